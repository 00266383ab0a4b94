import { isomorphic } from 'rdf-isomorphic';
import { describe, expect, it } from 'vitest';
import {
  blankNode, createQuadSerialiser, defaultGraph, keyToNTriples, literal, namedNode, parseQuads, quad, RDF_FORMATS,
  serialiseQuads, termToKey, type Quad, type RdfFormat,
} from '../src/index.js';

const ex = (s: string) => namedNode('http://ex/' + s);
const XSD = 'http://www.w3.org/2001/XMLSchema#';

const triples: Quad[] = [
  quad(ex('s'), ex('p'), ex('o')),
  quad(ex('s'), ex('p'), literal('plain')),
  quad(ex('s'), ex('p'), literal('tab\there "quoted" back\\slash\nnew line\r\u0001\u007f é 😀')),
  quad(ex('s'), ex('p'), literal('chat', 'en-gb')),
  quad(ex('s'), ex('n'), literal('42', namedNode(XSD + 'integer'))),
  quad(ex('s'), ex('n'), literal('x', namedNode('http://ex/dt'))),
  quad(blankNode('b1'), ex('p'), blankNode('b2')),
  quad(blankNode('b2'), ex('p'), literal('')),
  quad(namedNode('http://ex/ünïcödé/#frag?q=1&r=%20'), ex('p'), ex('o')),
];
const inGraphs: Quad[] = [
  ...triples,
  quad(ex('s'), ex('p'), ex('o'), ex('g')),
  quad(ex('s'), ex('p'), literal('in a blank graph'), blankNode('g2')),
  quad(blankNode('b1'), ex('p'), literal('shared'), ex('g')),
];

function roundTrip(quads: Quad[], format: RdfFormat): Quad[] {
  const text = serialiseQuads(quads, format, { prefixes: { ex: 'http://ex/', xsd: XSD } });
  return parseQuads(text, { format }).quads;
}

describe('serialisers', () => {
  it.each(RDF_FORMATS.map((f) => [f]))('round-trips through %s', (format) => {
    const data = format === 'application/trig' || format === 'application/n-quads' ? inGraphs : triples;
    const back = roundTrip(data, format);
    expect(back).toHaveLength(data.length);
    expect(isomorphic(back, data)).toBe(true);
  });

  it('writes canonical N-Triples lines', () => {
    const text = serialiseQuads([quad(ex('s'), ex('p'), literal('a"b\\c\nd\te', 'en')), quad(ex('s'), ex('p'), literal('1', namedNode(XSD + 'string')))], 'application/n-triples');
    expect(text).toBe('<http://ex/s> <http://ex/p> "a\\"b\\\\c\\nd\\te"@en .\n<http://ex/s> <http://ex/p> "1" .\n');
  });

  it('writes characters IRIs cannot hold as \\u escapes (which strict parsers then reject)', () => {
    expect(serialiseQuads([quad(namedNode('http://ex/a b'), ex('p'), ex('o'))], 'application/n-triples')).toBe('<http://ex/a\\u0020b> <http://ex/p> <http://ex/o> .\n');
  });

  it('refuses such IRIs in Turtle and TriG rather than write what cannot be read back', () => {
    for (const format of ['text/turtle', 'application/trig'] as const) {
      expect(() => serialiseQuads([quad(ex('s'), ex('p'), literal('x', namedNode('http://ex/a b')))], format)).toThrow(TypeError);
    }
  });

  it('uses prefixes in Turtle', () => {
    const text = serialiseQuads([quad(ex('s'), ex('p'), ex('o'))], 'text/turtle', { prefixes: { ex: 'http://ex/' } });
    expect(text).toContain('@prefix ex: <http://ex/>');
    expect(text).toContain('ex:s ex:p ex:o');
  });

  it('streams: each quad reaches write as soon as it is pushed (line formats)', () => {
    const chunks: string[] = [];
    const serialiser = createQuadSerialiser('application/n-quads', (c) => chunks.push(c));
    serialiser.push(quad(ex('s'), ex('p'), ex('o'), ex('g')));
    expect(chunks).toEqual(['<http://ex/s> <http://ex/p> <http://ex/o> <http://ex/g> .\n']);
    serialiser.end();
    expect(() => serialiser.push(quad(ex('s'), ex('p'), ex('o')))).toThrow(TypeError);
  });

  it('refuses named graphs in triple formats', () => {
    for (const format of ['text/turtle', 'application/n-triples'] as const) {
      expect(() => serialiseQuads([quad(ex('s'), ex('p'), ex('o'), ex('g'))], format)).toThrow(TypeError);
    }
  });

  it('keyToNTriples matches termToNTriples for every kind of key', () => {
    for (const q of inGraphs) {
      for (const term of [q.subject, q.predicate, q.object]) {
        const line = serialiseQuads([quad(ex('s'), ex('p'), term as Quad['object'], defaultGraph())], 'application/n-triples');
        expect(line).toContain(' ' + keyToNTriples(termToKey(term)) + ' .');
      }
    }
  });
});
