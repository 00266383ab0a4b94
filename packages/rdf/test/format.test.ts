import { describe, expect, it } from 'vitest';
import { charsetOf, formatFromContentType, formatFromExtension, isUtf8Charset, mediaTypeEssence, RDF_FORMATS } from '../src/index.js';

describe('formatFromContentType', () => {
  it.each([
    ['text/turtle', 'text/turtle'],
    ['text/turtle; charset=utf-8', 'text/turtle'],
    ['Text/Turtle;charset=UTF-8', 'text/turtle'],
    ['application/x-turtle', 'text/turtle'],
    ['application/trig', 'application/trig'],
    ['application/x-trig', 'application/trig'],
    ['application/n-triples', 'application/n-triples'],
    ['text/plain', 'application/n-triples'],
    ['application/n-quads', 'application/n-quads'],
    ['text/x-nquads', 'application/n-quads'],
    ['  application/n-quads ; q=1', 'application/n-quads'],
  ])('%s -> %s', (ct, format) => {
    expect(formatFromContentType(ct)).toBe(format);
  });

  it('returns undefined for other or missing types', () => {
    expect(formatFromContentType('application/ld+json')).toBeUndefined();
    expect(formatFromContentType('')).toBeUndefined();
    expect(formatFromContentType(undefined)).toBeUndefined();
  });
});

describe('formatFromExtension', () => {
  it.each([
    ['.ttl', 'text/turtle'],
    ['ttl', 'text/turtle'],
    ['data.TTL', 'text/turtle'],
    ['x.trig', 'application/trig'],
    ['/tmp/a.nt', 'application/n-triples'],
    ['a.nq', 'application/n-quads'],
  ])('%s -> %s', (name, format) => {
    expect(formatFromExtension(name)).toBe(format);
  });

  it('returns undefined for unknown extensions', () => {
    expect(formatFromExtension('.jsonld')).toBeUndefined();
    expect(formatFromExtension('README')).toBeUndefined();
  });

  it('lists the four formats', () => {
    expect(RDF_FORMATS).toHaveLength(4);
  });
});

describe('mediaTypeEssence and charsetOf (the one reader of Content-Type headers)', () => {
  it.each([
    ['text/turtle', 'text/turtle'],
    ['  Application/SPARQL-Query ; charset=UTF-8', 'application/sparql-query'],
    ['application/x-www-form-urlencoded;charset=utf-8', 'application/x-www-form-urlencoded'],
    ['', ''],
    [undefined, ''],
    [null, ''],
  ])('essence of %j is %j', (header, essence) => {
    expect(mediaTypeEssence(header)).toBe(essence);
  });

  it.each([
    ['text/turtle; charset=utf-8', 'utf-8'],
    ['text/turtle;CHARSET="ISO-8859-1"', 'ISO-8859-1'],
    ['text/turtle; q=1; charset=utf8', 'utf8'],
    ['text/turtle', undefined],
    [undefined, undefined],
  ])('charset of %j is %j', (header, charset) => {
    expect(charsetOf(header)).toBe(charset);
  });

  it('UTF-8 is named utf-8 or utf8 in any case, nothing else', () => {
    expect(['utf-8', 'UTF8', 'Utf-8'].map(isUtf8Charset)).toEqual([true, true, true]);
    expect(['latin1', 'utf-16', 'utf_8', ''].map(isUtf8Charset)).toEqual([false, false, false, false]);
  });
});
