import { describe, expect, it } from 'vitest';
import { blankNode, literal, namedNode, parseQuads, quad, XSD, type Quad } from '@ianode/rdf';
import type { QueryResult, Solution } from '../../src/api.js';
import {
  CHUNK_SIZE, createResultWriter, JSON_LD, N_QUADS, N_TRIPLES, parseJsonResults, RESULTS_MEDIA_TYPES, serialiseResult,
  serialiseResultToString, SPARQL_RESULTS_JSON, TRIG, TURTLE,
} from '../../src/results/index.js';
import { solution } from './support.js';

/** A lazy result of `n` solutions that records how many were pulled. */
function lazyResult(n: number): { result: QueryResult; pulled: () => number } {
  let pulled = 0;
  function* solutions(): Generator<Solution> {
    for (let i = 0; i < n; i++) {
      pulled++;
      yield solution({ i: literal(String(i), namedNode(XSD + 'integer')), s: literal('x'.repeat(100)) });
    }
  }
  return { result: { type: 'bindings', variables: ['i', 's'], solutions: { [Symbol.iterator]: solutions } }, pulled: () => pulled };
}

describe('streaming', () => {
  for (const mediaType of RESULTS_MEDIA_TYPES) {
    it(`${mediaType}: chunks come out while solutions are still being produced`, async () => {
      const { result, pulled } = lazyResult(10_000);
      const iterator = serialiseResult(result, mediaType)[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(first.done).toBe(false);
      expect(first.value!.length).toBeGreaterThanOrEqual(CHUNK_SIZE);
      // Only about one chunk's worth of solutions was pulled (each writes over 100 characters), not all 10,000.
      expect(pulled()).toBeLessThan(CHUNK_SIZE / 100 + 2);
      let total = first.value!.length;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) total += next.value.length;
      expect(pulled()).toBe(10_000);
      expect(total).toBeGreaterThan(10_000 * 100);
    });
  }

  it('createResultWriter awaits each write (backpressure) and gives the whole document', async () => {
    const { result } = lazyResult(1_000);
    const chunks: string[] = [];
    let writing = false;
    await createResultWriter(result, 'application/json; charset=utf-8', async (chunk) => {
      expect(writing).toBe(false);
      writing = true;
      await new Promise((resolve) => setTimeout(resolve, 1));
      chunks.push(chunk);
      writing = false;
    });
    expect(chunks.length).toBeGreaterThan(1);
    const back = parseJsonResults(chunks.join(''));
    expect(back.type === 'bindings' && back.solutions.length).toBe(1_000);
  });

  it('an evaluation error early in the result surfaces before the first chunk', async () => {
    function* failing(): Generator<Solution> {
      yield solution({ i: literal('1') });
      throw new Error('deadline passed');
    }
    const result: QueryResult = { type: 'bindings', variables: ['i'], solutions: { [Symbol.iterator]: failing } };
    const written: string[] = [];
    await expect(createResultWriter(result, SPARQL_RESULTS_JSON, (c) => void written.push(c))).rejects.toThrow('deadline passed');
    expect(written).toEqual([]);
  });

  it('a media type that cannot carry the result is a TypeError, thrown at once', () => {
    const bindings: QueryResult = { type: 'bindings', variables: [], solutions: [] };
    expect(() => serialiseResult(bindings, TURTLE)).toThrow(TypeError);
    expect(() => createResultWriter({ type: 'quads', quads: [] }, SPARQL_RESULTS_JSON, () => {})).toThrow(TypeError);
    expect(() => serialiseResult({ type: 'boolean', value: true }, 'image/png')).toThrow(TypeError);
  });
});

describe('graphs', () => {
  const ex = (local: string) => namedNode('http://example.org/' + local);
  const triples: Quad[] = [
    quad(ex('s'), ex('p'), literal('a "quoted"\nline')),
    quad(ex('s'), ex('p'), literal('chat', 'fr')),
    quad(ex('s'), ex('q'), blankNode('b1')),
    quad(blankNode('b1'), ex('p'), literal('1', namedNode(XSD + 'integer'))),
  ];
  const named: Quad[] = [...triples, quad(ex('s'), ex('p'), ex('o'), ex('g')), quad(blankNode('b1'), ex('p'), literal('x'), ex('g'))];

  const key = (q: Quad) => [q.subject, q.predicate, q.object, q.graph].map((t) => `${t.termType}:${t.value}:${t.termType === 'Literal' ? t.language + t.datatype.value : ''}`).join(' ');
  /** Same quads, blank node labels aside (the parsers prefix them). */
  const sameQuads = (a: Quad[], b: Quad[]) => {
    const strip = (q: Quad) => key(q).replace(/BlankNode:[^:]*:/g, 'BlankNode::');
    expect(a.map(strip).sort()).toEqual(b.map(strip).sort());
  };

  for (const [mediaType, quads] of [[TURTLE, triples], [N_TRIPLES, triples], [N_QUADS, named], [TRIG, named]] as const) {
    it(`${mediaType} goes through @ianode/rdf and reads back`, () => {
      const text = serialiseResultToString({ type: 'quads', quads }, mediaType);
      sameQuads(parseQuads(text, { format: mediaType as 'text/turtle' }).quads, [...quads]);
    });
  }

  it('JSON-LD: expanded form, one node object per run of quads, named graphs as graph objects', () => {
    const text = serialiseResultToString({ type: 'quads', quads: named }, JSON_LD);
    const doc = JSON.parse(text) as Record<string, unknown>[];
    expect(doc).toEqual([
      {
        '@id': 'http://example.org/s',
        'http://example.org/p': [{ '@value': 'a "quoted"\nline' }, { '@value': 'chat', '@language': 'fr' }],
        'http://example.org/q': [{ '@id': '_:b1' }],
      },
      { '@id': '_:b1', 'http://example.org/p': [{ '@value': '1', '@type': XSD + 'integer' }] },
      {
        '@id': 'http://example.org/g',
        '@graph': [
          { '@id': 'http://example.org/s', 'http://example.org/p': [{ '@id': 'http://example.org/o' }] },
          { '@id': '_:b1', 'http://example.org/p': [{ '@value': 'x' }] },
        ],
      },
    ]);
  });

  it('JSON-LD: a property seen earlier in a run starts a new node object (JSON keys are unique)', () => {
    const quads = [quad(ex('s'), ex('p'), literal('1')), quad(ex('s'), ex('q'), literal('2')), quad(ex('s'), ex('p'), literal('3'))];
    const doc = JSON.parse(serialiseResultToString({ type: 'quads', quads }, JSON_LD)) as unknown;
    expect(doc).toEqual([
      { '@id': 'http://example.org/s', 'http://example.org/p': [{ '@value': '1' }], 'http://example.org/q': [{ '@value': '2' }] },
      { '@id': 'http://example.org/s', 'http://example.org/p': [{ '@value': '3' }] },
    ]);
    expect(JSON.parse(serialiseResultToString({ type: 'quads', quads: [] }, JSON_LD))).toEqual([]);
    expect(JSON.parse(serialiseResultToString({ type: 'quads', quads: [quad(ex('s'), ex('p'), ex('o'), ex('g'))] }, 'application/json'))).toEqual([
      { '@id': 'http://example.org/g', '@graph': [{ '@id': 'http://example.org/s', 'http://example.org/p': [{ '@id': 'http://example.org/o' }] }] },
    ]);
  });
});
