import { describe, expect, it } from 'vitest';
import { TermDictionary } from '../src/index.js';

describe('TermDictionary arena and hash table', () => {
  const awkward = [
    '"café"',
    '"日本語"@ja',
    '"emoji 😀 pair"',
    '"lone \ud800 surrogate"',
    '<http://ex/ünïcödé',
    '"mixed ascii é then ascii"',
    '"\u0000 nul and \n newline"',
  ];

  it('round-trips non-ASCII keys and finds them again', () => {
    const d = new TermDictionary();
    const ids = awkward.map((k) => d.intern(k));
    expect(new Set(ids).size).toBe(awkward.length);
    awkward.forEach((k, i) => {
      expect(d.lookupKey(k)).toBe(ids[i]);
      expect(d.intern(k)).toBe(ids[i]);
    });
    // A lone surrogate is stored as U+FFFD (what UTF-8 can hold); every other key is exact.
    awkward.forEach((k, i) => expect(d.key(ids[i]!)).toBe(k.replace('\ud800', '\ufffd')));
  });

  it('does not confuse keys that share a prefix or differ only past ASCII', () => {
    const d = new TermDictionary();
    const a = d.intern('"é"');
    const b = d.intern('"è"');
    const c = d.intern('"é"@fr');
    const e = d.intern('"e"');
    expect(new Set([a, b, c, e]).size).toBe(4);
    expect(d.lookupKey('"é')).toBeUndefined();
    expect(d.lookupKey('"é"@f')).toBeUndefined();
  });

  it('keeps every id through many rehashes and a truncate', () => {
    const d = new TermDictionary();
    const n = 50_000;
    for (let i = 0; i < n; i++) expect(d.intern(`<http://ex/${i}`)).toBe(i + 1);
    for (let i = 0; i < n; i += 997) expect(d.lookupKey(`<http://ex/${i}`)).toBe(i + 1);
    d.truncate(1001);
    expect(d.size).toBe(1001);
    expect(d.lookupKey('<http://ex/999')).toBe(1000);
    expect(d.lookupKey('<http://ex/1000')).toBeUndefined();
    expect(d.intern('<http://ex/new')).toBe(1001);
    expect(d.key(1001)).toBe('<http://ex/new');
    expect(() => d.key(1002)).toThrow(RangeError);
  });
});
