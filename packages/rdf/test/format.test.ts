import { describe, expect, it } from 'vitest';
import { formatFromContentType, formatFromExtension, RDF_FORMATS } from '../src/index.js';

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
