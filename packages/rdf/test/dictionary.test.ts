import { describe, expect, it } from 'vitest';
import {
  blankNode, DECODED_CACHE_SLOTS, DEFAULT_GRAPH_ID, defaultGraph, keyToTerm, literal, namedNode, TermDictionary, termToKey, type Term,
} from '../src/index.js';

const XSD = 'http://www.w3.org/2001/XMLSchema#';

const terms: Term[] = [
  namedNode('http://ex/a'),
  namedNode(''),
  blankNode('b1'),
  literal('plain'),
  literal(''),
  literal('with "quotes" and @ and ^^'),
  literal('chat', 'en-gb'),
  literal('1', namedNode(XSD + 'integer')),
  literal('x"^^y', namedNode('http://ex/dt')),
  defaultGraph(),
];

describe('termToKey / keyToTerm', () => {
  it('round-trips every kind of term', () => {
    for (const t of terms) expect(keyToTerm(termToKey(t)).equals(t)).toBe(true);
  });

  it('uses the documented key forms', () => {
    expect(terms.map(termToKey)).toEqual([
      '<http://ex/a',
      '<',
      '_:b1',
      '"plain"',
      '""',
      '"with "quotes" and @ and ^^"',
      '"chat"@en-gb',
      `"1"^^${XSD}integer`,
      '"x"^^y"^^http://ex/dt',
      '',
    ]);
    expect(termToKey(literal('s', namedNode(XSD + 'string')))).toBe('"s"');
  });

  it('rejects what is not a key', () => {
    expect(() => keyToTerm('x')).toThrow(TypeError);
  });
});

describe('TermDictionary', () => {
  it('interns, looks up and decodes', () => {
    const d = new TermDictionary();
    expect(d.size).toBe(1);
    expect(d.key(DEFAULT_GRAPH_ID)).toBe('');
    const ids = terms.map((t) => d.internTerm(t));
    expect(ids[ids.length - 1]).toBe(DEFAULT_GRAPH_ID);
    expect(new Set(ids).size).toBe(terms.length);
    expect(d.intern('<http://ex/a')).toBe(ids[0]);
    terms.forEach((t, i) => {
      expect(d.lookup(t)).toBe(ids[i]);
      expect(d.term(ids[i]!).equals(t)).toBe(true);
    });
    expect(d.lookup(namedNode('http://ex/unknown'))).toBeUndefined();
    expect(() => d.term(9999)).toThrow(RangeError);
  });

  it('hands out ids in order of first sight and forgets them on truncate', () => {
    const d = new TermDictionary();
    const a = d.intern('<http://ex/a');
    const before = d.size;
    const b = d.intern('<http://ex/b');
    const c = d.intern('<http://ex/c');
    expect([a, b, c]).toEqual([1, 2, 3]);
    expect(d.keysFrom(before)).toEqual(['<http://ex/b', '<http://ex/c']);
    d.truncate(before);
    expect(d.size).toBe(before);
    expect(d.lookupKey('<http://ex/b')).toBeUndefined();
    expect(d.lookupKey('<http://ex/a')).toBe(a);
    expect(d.intern('<http://ex/c')).toBe(before);
    expect(() => d.truncate(0)).toThrow(RangeError);
  });

  it('keeps its term scope while ids only grow and replaces it when a truncate forgets ids', () => {
    const d = new TermDictionary();
    const scope = d.termScope();
    d.intern('<http://ex/a');
    const before = d.size;
    d.intern('"1"^^http://www.w3.org/2001/XMLSchema#integer');
    expect(d.termScope()).toBe(scope);
    d.truncate(d.size); // forgets nothing
    expect(d.termScope()).toBe(scope);
    d.truncate(before);
    const next = d.termScope();
    expect(next).not.toBe(scope);
    d.intern('"2"^^http://www.w3.org/2001/XMLSchema#integer'); // the forgotten id, another term
    expect(d.termScope()).toBe(next);
  });

  it('serves decoded terms from its cache but never a forgotten or unknown id', () => {
    const d = new TermDictionary();
    // Ids that share cache slots: each decode evicts the other.
    const slots = DECODED_CACHE_SLOTS;
    const ids: number[] = [];
    for (let i = 0; i < slots + 8; i++) ids.push(d.intern(`<http://ex/t${i}`));
    const first = ids[0]!;
    const twin = ids.find((id) => id !== first && (id & (slots - 1)) === (first & (slots - 1)))!;
    expect(d.term(first).value).toBe('http://ex/t0');
    expect(d.term(first)).toBe(d.term(first));
    expect(d.key(twin)).toBe(`<http://ex/t${twin - first}`);
    expect(d.term(first).value).toBe('http://ex/t0');
    // Empty slots never answer: not for 0xffffffff, negative or fractional ids.
    const fresh = new TermDictionary();
    for (const bad of [0xffffffff, 0xfffffffe, slots - 1, slots - 2, 1, -1, 1.5, Number.NaN]) {
      expect(() => fresh.key(bad), String(bad)).toThrow(RangeError);
      expect(() => fresh.term(bad), String(bad)).toThrow(RangeError);
    }
    // Truncate forgets cached decodes with the ids.
    const before = d.size;
    const extra = d.intern('<http://ex/extra');
    expect(d.term(extra).value).toBe('http://ex/extra');
    d.truncate(before);
    expect(() => d.term(extra)).toThrow(RangeError);
    expect(() => d.key(extra)).toThrow(RangeError);
    expect(d.term(d.intern('<http://ex/other')).value).toBe('http://ex/other');
  });
});
