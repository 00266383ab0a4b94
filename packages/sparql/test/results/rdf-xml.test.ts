/** The RDF/XML writer: round trips through rdfxml-streaming-parser on random graphs (fixed seed),
 * compared as isomorphic graphs, and the refusals for what RDF/XML cannot hold. */
import { isomorphic } from 'rdf-isomorphic';
import { describe, expect, it } from 'vitest';
import { blankNode, literal, namedNode, quad, RDF_NS, type Quad } from '@ianode/rdf';
import { nodeId, RdfXmlError, rdfXmlChunks, splitPredicate } from '../../src/results/rdf-xml.js';
import { negotiateResultType, serialiseResultToString } from '../../src/index.js';
import { mulberry32, parseRdfXml } from '@ianode/testkit';

const XSD = 'http://www.w3.org/2001/XMLSchema#';


const PREDICATES = [
  'http://ex/p', 'http://ex/ns#local', 'http://ex/a/b.c-d_e', 'http://ex/123abc', 'urn:x:y', `${RDF_NS}type`, `${RDF_NS}_1`,
  'http://ex/ünïcödé', 'http://ex/x?q=1&r=v', 'http://ex/%20p', 'http://ex/日本語', 'tag:x,2024:p',
];
const IRIS = ['http://ex/s', 'http://ex/o?a=1&b=2', 'http://ex/ünï/#frag', 'urn:uuid:1234', 'http://ex/<x>'.replace(/[<>]/g, ''), 'http://ex/t\'s'];
const BLANKS = ['b1', 'x.y', 'é', 'a_b', '0', 'b-1', 'B1'];
const TEXTS = [
  '', 'plain', ' leading and trailing ', 'tab\there "quoted" & <angle> ]]> \'apos\'', 'line\nbreak', 'cr\r\nlf', 'lone\rcr',
  'é 😀 日本', '<x:y xmlns:x="urn:x">markup-looking</x:y>', '&amp; already escaped', '--> comment end',
];
const LANGS = ['en', 'en-gb', 'zh-hant-tw', 'de'];
const DATATYPES = [`${XSD}integer`, `${XSD}dateTime`, 'http://ex/dt', `${RDF_NS}XMLLiteral`, `${RDF_NS}JSON`, `${XSD}string`];

function randomGraph(random: () => number, size: number): Quad[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const subject = () => (random() < 0.3 ? blankNode(pick(BLANKS)) : namedNode(pick(IRIS)));
  const object = () => {
    const r = random();
    if (r < 0.2) return namedNode(pick(IRIS));
    if (r < 0.35) return blankNode(pick(BLANKS));
    if (r < 0.55) return literal(pick(TEXTS), pick(LANGS));
    if (r < 0.75) return literal(pick(TEXTS), namedNode(pick(DATATYPES)));
    return literal(pick(TEXTS));
  };
  const quads: Quad[] = [];
  const seen = new Set<string>();
  while (quads.length < size) {
    const q = quad(subject(), namedNode(pick(PREDICATES)), object());
    const key = JSON.stringify([q.subject, q.predicate, q.object]);
    if (seen.has(key)) continue;
    seen.add(key);
    quads.push(q);
  }
  // Runs of the same subject as well as interleaved ones.
  return random() < 0.5 ? quads : quads.sort((a, b) => (a.subject.value < b.subject.value ? -1 : 1));
}

describe('RDF/XML writer', () => {
  it('round-trips random graphs (isomorphic after rdfxml-streaming-parser)', async () => {
    const random = mulberry32(20261126);
    for (let i = 0; i < 40; i++) {
      const data = randomGraph(random, 1 + Math.floor(random() * 60));
      const text = [...rdfXmlChunks(data)].join('');
      const back = await parseRdfXml(text);
      if (!isomorphic(back, data)) throw new Error(`graph ${i} did not round-trip:\n${text}`);
      expect(back).toHaveLength(data.length);
    }
  });

  it('writes the empty graph as an empty rdf:RDF', async () => {
    expect(await parseRdfXml([...rdfXmlChunks([])].join(''))).toEqual([]);
  });

  it('splits predicates at the longest XML name that ends them', () => {
    expect(splitPredicate('http://ex/ns#local')).toEqual(['http://ex/ns#', 'local']);
    expect(splitPredicate('http://ex/123abc')).toEqual(['http://ex/123', 'abc']);
    expect(splitPredicate('http://ex/a/b.c-d_e')).toEqual(['http://ex/a/', 'b.c-d_e']);
    expect(splitPredicate('http://ex/日本語')).toEqual(['http://ex/', '日本語']);
  });

  it('refuses, naming the term, what RDF/XML cannot hold', () => {
    const s = namedNode('http://ex/s');
    const write = (q: Quad) => [...rdfXmlChunks([q])].join('');
    expect(() => write(quad(s, namedNode('http://ex/1'), s))).toThrow(/<http:\/\/ex\/1> cannot be written in RDF\/XML/);
    expect(() => write(quad(s, namedNode('http://ex/p/'), s))).toThrow(RdfXmlError);
    expect(() => write(quad(s, namedNode(`${RDF_NS}li`), s))).toThrow(/RDF\/XML syntax/);
    expect(() => write(quad(s, namedNode('http://ex/p'), literal('bell\u0007')))).toThrow(/control character/);
    expect(() => write(quad(s, namedNode('http://ex/p'), s, namedNode('http://ex/g')))).toThrow(/named graphs/);
  });

  it('blank node ids are NCNames and distinct labels stay distinct', () => {
    const labels = ['a_b', 'a_5f_b', 'é', '_', 'x.y', '0'];
    const ids = labels.map(nodeId);
    expect(new Set(ids).size).toBe(labels.length);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z_][A-Za-z0-9._-]*$/);
  });

  it('is offered for graphs: application/rdf+xml, and chosen by the clients\' Accept headers', () => {
    // SPARQLWrapper (returnFormat XML) and rdflib's SPARQLStore for CONSTRUCT/DESCRIBE.
    expect(negotiateResultType('application/rdf+xml', 'quads')).toBe('application/rdf+xml');
    expect(negotiateResultType('application/rdf+xml, text/rdf+xml', 'quads')).toBe('application/rdf+xml');
    // Jena's RDFConnection asks with q-values: they decide.
    expect(negotiateResultType('text/turtle,application/n-triples;q=0.9,application/ld+json;q=0.8,application/rdf+xml;q=0.7,*/*;q=0.5', 'quads')).toBe('text/turtle');
    expect(negotiateResultType('application/rdf+xml;q=1.0,text/turtle;q=0.9,*/*;q=0.1', 'quads')).toBe('application/rdf+xml');
    expect(negotiateResultType('application/rdf+xml', 'bindings')).toBeUndefined();
    // Jena's SELECT Accept: JSON at 1.0 wins over XML at 0.9 and the rest.
    const jenaSelect = 'application/sparql-results+json, application/sparql-results+xml;q=0.9, text/tab-separated-values;q=0.7, text/csv;q=0.5, application/json;q=0.2, application/xml;q=0.2, */*;q=0.1';
    expect(negotiateResultType(jenaSelect, 'bindings')).toBe('application/sparql-results+json');
    expect(negotiateResultType('application/sparql-results+json;q=0.5, application/sparql-results+xml', 'bindings')).toBe('application/sparql-results+xml');
    // A browser asking for a graph still gets Turtle (application/xml is no RDF/XML alias).
    expect(negotiateResultType('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'quads')).toBe('text/turtle');
    const text = serialiseResultToString({ type: 'quads', quads: [quad(namedNode('http://ex/s'), namedNode('http://ex/p'), literal('v'))] }, 'application/rdf+xml');
    expect(text).toContain('<rdf:Description rdf:about="http://ex/s">');
  });
});
