/**
 * Expected results of the W3C SPARQL evaluation tests, and the comparison with what the engine
 * returned. Results documents (.srx, .srj, .csv, .tsv) are read with @ianode/sparql's own parsers;
 * result-set graphs (.ttl, .nt, .rdf in the DAWG rs: vocabulary) and CONSTRUCT graphs are read
 * as RDF: Turtle and N-Triples with @ianode/rdf, RDF/XML with Oxigraph's parser (a root dev
 * dependency already, for the benchmarks; @ianode/rdf reads no RDF/XML).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatFromExtension, keyToTerm, parseQuadKeys, quad, termToKey, termToNTriples } from '@ianode/rdf';
import { isomorphic } from 'rdf-isomorphic';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const RESULTS_MODULE = path.join(repoRoot, 'packages/sparql/dist/results/index.js');

let results;
/** @ianode/sparql's results module (built); throws a clear error when the package is not built. */
export async function resultsModule() {
  if (results) return results;
  try {
    results = await import(pathToFileURL(RESULTS_MODULE).href);
  } catch (error) {
    throw new Error(`packages/sparql is not built (${RESULTS_MODULE}: ${error.code ?? error.message}); run npx tsc -b packages/sparql`);
  }
  return results;
}

const RDF_XML = 'application/rdf+xml';

/** The RDF format of a data or result file by extension (RDF/XML included), or undefined. */
export function rdfFormatOf(file) {
  if (/\.(rdf|owl|xml)$/i.test(file)) return RDF_XML;
  return formatFromExtension(file);
}

let oxigraph;
/**
 * Calls `sink(s, p, o, g)` with the dictionary keys (see @ianode/rdf terms.ts) of every quad of an
 * RDF file; `graph` is the key of the graph to put triples in ('' = the default graph). Blank
 * nodes get a fresh prefix per file, as separate documents never share blank nodes.
 */
export async function readRdfKeys(file, sink, graph = '') {
  return rdfTextKeys(readFileSync(file, 'utf8'), rdfFormatOf(file), pathToFileURL(file).href, sink, graph, file);
}

/**
 * As readRdfKeys, for RDF `text` in `format` (a media type: the Turtle family or RDF/XML) with
 * `baseIRI`; `what` names the document in errors.
 */
export async function rdfTextKeys(text, format, baseIRI, sink, graph = '', what = 'the document') {
  if (format === RDF_XML) {
    oxigraph ??= (await import('oxigraph')).default;
    const prefix = `x${Math.random().toString(16).slice(2, 10)}_`;
    const key = (t) => (t.termType === 'BlankNode' ? '_:' + prefix + t.value : termToKey(t));
    for (const q of oxigraph.parse(text, { format: RDF_XML, base_iri: baseIRI })) {
      sink(key(q.subject), key(q.predicate), key(q.object), q.graph.termType === 'DefaultGraph' ? graph : key(q.graph));
    }
    return;
  }
  if (!format) throw new Error(`cannot tell the RDF format of ${what}`);
  parseQuadKeys(text, { format, baseIRI }, (s, p, o, g) => sink(s, p, o, g === '' ? graph : g));
}

/** The quads of RDF `text` in `format` (a media type) as RDF/JS terms. */
export async function parseRdfText(text, format, baseIRI) {
  const quads = [];
  await rdfTextKeys(text, format, baseIRI, (s, p, o, g) => quads.push(quad(keyToTerm(s), keyToTerm(p), keyToTerm(o), keyToTerm(g))));
  return quads;
}

/** The quads of an RDF file as RDF/JS terms. */
export async function readRdfQuads(file) {
  const quads = [];
  await readRdfKeys(file, (s, p, o, g) => quads.push(quad(keyToTerm(s), keyToTerm(p), keyToTerm(o), keyToTerm(g))));
  return quads;
}

/**
 * The expected result of a test: `{ kind: 'results', result, format }` (a ParsedResults; format
 * is the media type or 'rs' for a result-set graph) or `{ kind: 'graph', quads }`. `graphResult`
 * says the query is a CONSTRUCT or DESCRIBE, whose expected result is a plain graph.
 */
export async function readExpected(file, graphResult) {
  const { parseResults, parseResultSetGraph, resultsFormatFromExtension } = await resultsModule();
  const mediaType = resultsFormatFromExtension(file);
  if (mediaType) return { kind: 'results', format: mediaType, result: parseResults(readFileSync(file, 'utf8'), mediaType) };
  const quads = await readRdfQuads(file);
  if (graphResult) return { kind: 'graph', quads };
  return { kind: 'results', format: 'rs', result: parseResultSetGraph(quads) };
}

/** Quads without duplicates (a graph is a set), blank node labels kept. */
function distinctQuads(quads) {
  const seen = new Set();
  return quads.filter((q) => {
    const k = [q.subject, q.predicate, q.object, q.graph].map(termToKey).join(' ');
    return !seen.has(k) && (seen.add(k), true);
  });
}

/** Why two graphs differ, in a line (ground quads only; blank node structure is summarised). */
function graphDifference(actual, expected) {
  const show = (q) => [q.subject, q.predicate, q.object].map(termToNTriples).join(' ');
  const ground = (qs) => new Set(qs.filter((q) => ![q.subject, q.object].some((t) => t.termType === 'BlankNode')).map(show));
  const a = ground(actual);
  const e = ground(expected);
  const missing = [...e].filter((x) => !a.has(x));
  const extra = [...a].filter((x) => !e.has(x));
  let reason = `graph not isomorphic to the expected one (${actual.length} triples, expected ${expected.length})`;
  if (missing.length) reason += `; missing ${missing.slice(0, 2).join(' | ')}`;
  if (extra.length) reason += `; unexpected ${extra.slice(0, 2).join(' | ')}`;
  return reason;
}

/**
 * Compares the engine's result (materialised: solutions and quads as arrays) with the expected
 * one; returns undefined when they are the same, else the reason in a line.
 *   orderBy: the ORDER BY keys (variables) whose sequence must match;
 *   lax: mf:LaxCardinality;
 *   csv: an mf:CSVResultFormatTest: the engine's result goes through our CSV writer and reader,
 *        and is compared with the expected CSV read the same way (CSV keeps text only).
 */
export async function compareWithExpected(actual, expected, { orderBy = [], lax = false, csv = false } = {}) {
  const { compareResults, parseCsvResults, serialiseResultToString, SPARQL_RESULTS_CSV } = await resultsModule();
  if (expected.kind === 'graph') {
    if (actual.type !== 'quads') return `a ${actual.type} result, expected a graph`;
    const a = distinctQuads(actual.quads);
    const e = distinctQuads(expected.quads);
    return isomorphic(a, e) ? undefined : graphDifference(a, e);
  }
  const expectedResult = expected.result;
  if (actual.type === 'quads') return `a graph, expected a ${expectedResult.type} result`;
  if (csv) {
    if (actual.type !== 'bindings') return `a ${actual.type} result, expected solutions`;
    actual = parseCsvResults(serialiseResultToString(actual, SPARQL_RESULTS_CSV));
  }
  const options = {
    orderBy: orderBy.filter((v) => expectedResult.type === 'bindings' && expectedResult.variables.includes(v)),
    laxCardinality: lax,
    // Result-set graphs do not always list every variable (rs:resultVariable is optional).
    variables: expected.format !== 'rs',
    // Numbers of the same datatype compare by value: the expected results write computed numbers
    // in many lexical forms ("3"^^xsd:decimal, "1050"^^xsd:double; csvtsv03.tsv has 1.0e6 for the
    // data's "1.0E6"^^xsd:double).
    numericValues: true,
  };
  return compareResults(actual, expectedResult, options);
}
