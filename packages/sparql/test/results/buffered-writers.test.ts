/**
 * The buffered, memoising results writers against the writers they replaced (legacy-writers.ts):
 * the same bytes for random results full of terms each format must escape, the same errors, and
 * chunks of about CHUNK_SIZE characters.
 */
import { describe, expect, it } from 'vitest';
import { blankNode, defaultGraph, literal, namedNode, quad, RDF_LANG_STRING, XSD, XSD_STRING, type BlankNode, type NamedNode, type Quad, type Term } from '@ianode/rdf';
import type { QueryResult, Solution } from '../../src/api.js';
import {
  CHUNK_SIZE, N_QUADS, N_TRIPLES, resultChunks, SPARQL_RESULTS_CSV, SPARQL_RESULTS_JSON, SPARQL_RESULTS_TSV, SPARQL_RESULTS_XML, type BindingsResult,
} from '../../src/results/index.js';
import { memoTermText } from '../../src/results/text-buffer.js';
import { legacyCsv, legacyJson, legacyLines, legacyTsv, legacyXml } from './legacy-writers.js';
import { mulberry32 } from '@ianode/testkit';

const FORMATS: ReadonlyArray<[string, (r: BindingsResult) => Generator<string>]> = [
  [SPARQL_RESULTS_JSON, legacyJson],
  [SPARQL_RESULTS_XML, legacyXml],
  [SPARQL_RESULTS_CSV, legacyCsv],
  [SPARQL_RESULTS_TSV, legacyTsv],
];

// Pieces of text that some format escapes, quotes or replaces.
const PIECES = [
  'a', 'plain text', '"', '""', '\\', '\\n', '\t', '\n', '\r', '\r\n', ',', ';', '<', '>', '&', '&amp;', ']]>', "'", ' ', '',
  '\u0000', '\u0001', '\u0008', '\u000b', '\u000c', '\u001f', '\u007f', '\u0085', '\u2028', '\u2029', '\ufeff', '\ufffe', '\uffff',
  'é', 'ünïcödé', '日本語', '😀', '\ud83d\ude00x', '\ud800', '\udc00', 'x\ud800y', '_:b', '?x', '$y', '1', '-2', '3.5', '1.0e6',
];
const DATATYPES = [
  XSD + 'integer', XSD + 'decimal', XSD + 'double', XSD + 'boolean', XSD + 'date', XSD_STRING, 'http://example.org/dt?a=1&b="2"',
  'http://example.org/ünï/😀',
];
const NUMBERS = ['0', '42', '-7', '+3', '1.5', '.5', '-0.0', '1e6', '1.0E-3', '.5e1', 'NaN', 'INF', '1,5', ' 4', '4 ', '0x1', ''];
const LANGUAGES = ['en', 'en-GB', 'ja', 'de-CH-1996', 'x-a"b&c<d'];
const LABELS = ['b0', 'b1', 'node.with.dots', 'ünï', 'a-b_c', '😀'];

function randomText(random: () => number): string {
  let text = '';
  const n = Math.floor(random() * 4);
  for (let i = 0; i < n; i++) text += PIECES[Math.floor(random() * PIECES.length)]!;
  return text;
}

function randomTerm(random: () => number): Term {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const r = random();
  if (r < 0.25) return namedNode('http://example.org/' + randomText(random));
  if (r < 0.35) return blankNode(pick(LABELS));
  if (r < 0.55) return literal(randomText(random));
  if (r < 0.65) return literal(randomText(random), pick(LANGUAGES));
  if (r < 0.8) return literal(pick(NUMBERS), namedNode(pick(DATATYPES.slice(0, 3))));
  if (r < 0.95) return literal(randomText(random), namedNode(pick(DATATYPES)));
  return literal(randomText(random), namedNode(RDF_LANG_STRING));
}

/** `rows` solutions over 0–5 variables; terms come from a small pool (so the same Term objects
 * repeat, as a store's decoded terms do) or are made afresh (equal terms, other objects). */
function randomResult(seed: number, rows: number): BindingsResult {
  const random = mulberry32(seed);
  const variables = ['s', 'p', 'o', 'näme', 'x_1'].slice(0, Math.floor(random() * 6));
  const pool = Array.from({ length: 1 + Math.floor(random() * 30) }, () => randomTerm(random));
  const solutions: Solution[] = [];
  for (let i = 0; i < rows; i++) {
    const solution: Solution = new Map();
    for (const v of variables) {
      const r = random();
      if (r < 0.15) continue; // unbound
      solution.set(v, r < 0.7 ? pool[Math.floor(random() * pool.length)]! : randomTerm(random));
    }
    if (random() < 0.05) solution.set('notSelected', literal('ignored'));
    solutions.push(solution);
  }
  return { type: 'bindings', variables, solutions };
}

/** The text, or the error's class and message. */
function outcome(write: () => Iterable<string>): string {
  try {
    return 'ok ' + [...write()].join('');
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

describe('buffered writers write the bytes the per-solution writers wrote', () => {
  for (const [mediaType, legacy] of FORMATS) {
    it(`${mediaType}: 300 random results`, () => {
      for (let seed = 1; seed <= 300; seed++) {
        const result = randomResult(seed, Math.floor(mulberry32(seed * 7919)() * 40));
        const expected = outcome(() => legacy(result));
        expect(expected.startsWith('ok ') || expected.startsWith('TypeError')).toBe(true);
        expect(outcome(() => resultChunks(result, mediaType)), `seed ${seed}`).toBe(expected);
      }
    });

    it(`${mediaType}: a result of many chunks`, () => {
      const result = randomResult(4242, 20_000);
      const chunks = [...resultChunks(result, mediaType)];
      expect(chunks.length).toBeGreaterThan(3);
      for (const chunk of chunks.slice(0, -1)) {
        expect(chunk.length).toBeGreaterThanOrEqual(CHUNK_SIZE);
        expect(chunk.length).toBeLessThan(CHUNK_SIZE + 4096);
      }
      expect(chunks.join('')).toBe([...legacy(result)].join(''));
    });

    it(`${mediaType}: no solutions, and solutions with nothing bound`, () => {
      for (const solutions of [[], [new Map(), new Map()]] as Solution[][]) {
        for (const variables of [[], ['a', 'b']]) {
          const result: BindingsResult = { type: 'bindings', variables, solutions };
          expect(outcome(() => resultChunks(result, mediaType))).toBe(outcome(() => legacy(result)));
        }
      }
    });

    it(`${mediaType}: a term no results format can hold fails as before, also after it was met once`, () => {
      const result: BindingsResult = {
        type: 'bindings', variables: ['x'],
        solutions: [new Map([['x', namedNode('http://example.org/a')]]), new Map<string, Term>([['x', defaultGraph()]])],
      };
      const expected = outcome(() => legacy(result));
      expect(expected).toMatch(/^TypeError/);
      expect(outcome(() => resultChunks(result, mediaType))).toBe(expected);
    });
  }

  it('a TSV blank node label with white space fails as before', () => {
    const result: BindingsResult = { type: 'bindings', variables: ['x'], solutions: [new Map([['x', blankNode('a b')]])] };
    expect(outcome(() => resultChunks(result, SPARQL_RESULTS_TSV))).toBe(outcome(() => legacyTsv(result)));
    expect(outcome(() => legacyTsv(result))).toMatch(/^TypeError: the blank node label/);
  });

  it('booleans are unchanged', () => {
    const expected: Record<string, string> = {
      [SPARQL_RESULTS_JSON]: '{"head":{},"boolean":true}\n',
      [SPARQL_RESULTS_CSV]: '_askResult\r\ntrue\r\n',
      [SPARQL_RESULTS_TSV]: '_askResult\ntrue\n',
      [SPARQL_RESULTS_XML]: '<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n<head/>\n<boolean>true</boolean>\n</sparql>\n',
    };
    const result: QueryResult = { type: 'boolean', value: true };
    for (const [mediaType, text] of Object.entries(expected)) expect([...resultChunks(result, mediaType)].join('')).toBe(text);
  });
});

/** `n` quads whose terms come from small pools (the same objects repeat) or are made afresh;
 * named graphs with probability `named`. */
function randomQuads(seed: number, n: number, named: number): Quad[] {
  const random = mulberry32(seed);
  const subject = (): NamedNode | BlankNode => (random() < 0.3 ? blankNode(LABELS[Math.floor(random() * LABELS.length)]!) : namedNode('http://example.org/' + randomText(random)));
  const subjects = Array.from({ length: 10 }, subject);
  const predicates = Array.from({ length: 5 }, () => namedNode('http://example.org/p/' + randomText(random)));
  const objects = Array.from({ length: 20 }, () => randomTerm(random));
  const graphs = Array.from({ length: 3 }, subject);
  const from = <T>(pool: readonly T[], fresh: () => T): T => (random() < 0.7 ? pool[Math.floor(random() * pool.length)]! : fresh());
  return Array.from({ length: n }, () => quad(
    from(subjects, subject),
    from(predicates, () => namedNode('http://example.org/p/' + randomText(random))),
    from(objects, () => randomTerm(random)) as Quad['object'],
    random() < named ? from(graphs, subject) : defaultGraph(),
  ));
}

describe('buffered N-Triples and N-Quads write the bytes the per-quad writers wrote', () => {
  for (const [mediaType, nQuads] of [[N_TRIPLES, false], [N_QUADS, true]] as const) {
    it(`${mediaType}: 200 random graphs, and a failing one`, () => {
      for (let seed = 1; seed <= 200; seed++) {
        const quads = randomQuads(seed, Math.floor(mulberry32(seed * 31)() * 60), nQuads ? 0.5 : 0);
        const expected = outcome(() => legacyLines(quads, nQuads));
        expect(expected.startsWith('ok ')).toBe(true);
        expect(outcome(() => resultChunks({ type: 'quads', quads }, mediaType)), `seed ${seed}`).toBe(expected);
      }
      const quads = randomQuads(7, 30, 0.5);
      const expected = outcome(() => legacyLines(quads, nQuads));
      expect(outcome(() => resultChunks({ type: 'quads', quads }, mediaType))).toBe(expected);
      expect(expected.startsWith('ok ')).toBe(nQuads);
    });

    it(`${mediaType}: a graph of many chunks`, () => {
      const quads = randomQuads(99, 30_000, nQuads ? 0.5 : 0);
      const chunks = [...resultChunks({ type: 'quads', quads }, mediaType)];
      expect(chunks.length).toBeGreaterThan(3);
      for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeGreaterThanOrEqual(CHUNK_SIZE);
      expect(chunks.join('')).toBe([...legacyLines(quads, nQuads)].join(''));
    });
  }
});

describe('memoTermText', () => {
  it('computes each Term object once, and starts afresh past its limit', () => {
    const calls: Term[] = [];
    const text = memoTermText((t) => {
      calls.push(t);
      return `<${t.value}>`;
    }, 2);
    const [a, b, c] = [namedNode('http://a'), namedNode('http://b'), namedNode('http://c')];
    expect([a, b, a, b].map(text)).toEqual(['<http://a>', '<http://b>', '<http://a>', '<http://b>']);
    expect(calls).toEqual([a, b]);
    expect(text(c)).toBe('<http://c>'); // the memo was full: it starts afresh with c
    expect(text(a)).toBe('<http://a>');
    expect(calls).toEqual([a, b, c, a]);
  });

  it('does not remember errors', () => {
    let n = 0;
    const text = memoTermText(() => {
      n++;
      throw new TypeError('no');
    });
    const a = namedNode('http://a');
    expect(() => text(a)).toThrow('no');
    expect(() => text(a)).toThrow('no');
    expect(n).toBe(2);
  });
});
