/**
 * Writing a QueryResult in a negotiated media type, streamed: solutions (and quads) are pulled
 * from the result's lazy iterable only as the text is consumed, so a large result never sits in
 * memory. Chunks are gathered up to CHUNK_SIZE characters before they are handed on (the results
 * writers gather their own, writing each distinct term once per document); the first
 * chunk therefore comes after the first few solutions (or the end), so most evaluation errors
 * surface before anything was sent and a server can still answer with an error status.
 */
import { createQuadSerialiser, type Quad, type RdfFormat } from '@ianode/rdf';
import type { QueryResult } from '../api.js';
import { csvResultChunks } from './csv.js';
import { jsonLdChunks } from './json-ld.js';
import { jsonResultChunks } from './json.js';
import { rdfXmlChunks } from './rdf-xml.js';
import {
  canonicalMediaType, JSON_LD, mediaTypesFor, N_QUADS, N_TRIPLES, RDF_XML, SPARQL_RESULTS_CSV, SPARQL_RESULTS_JSON, SPARQL_RESULTS_TSV,
  SPARQL_RESULTS_XML, TRIG, TURTLE,
} from './media-types.js';
import { CHUNK_SIZE } from './text-buffer.js';
import { tsvResultChunks } from './tsv.js';
import { xmlResultChunks } from './xml.js';

export { CHUNK_SIZE } from './text-buffer.js';

const RDF_FORMATS: Readonly<Record<string, RdfFormat>> = {
  [TURTLE]: 'text/turtle',
  [TRIG]: 'application/trig',
  [N_TRIPLES]: 'application/n-triples',
  [N_QUADS]: 'application/n-quads',
};

/** Quads through @ianode/rdf's push serialiser, turned into a pull generator that hands on
 * chunks of about CHUNK_SIZE characters. */
function* rdfChunks(quads: Iterable<Quad>, format: RdfFormat): Generator<string> {
  let out = '';
  const serialiser = createQuadSerialiser(format, (chunk) => {
    out += chunk;
  });
  for (const q of quads) {
    serialiser.push(q);
    if (out.length >= CHUNK_SIZE) {
      yield out;
      out = '';
    }
  }
  serialiser.end();
  if (out.length > 0) yield out;
}

/** The text of `result` in `mediaType`, in pieces as they are produced (synchronous). Throws
 * TypeError when the media type cannot carry this kind of result. */
export function resultChunks(result: QueryResult, mediaType: string): Generator<string> {
  if (typeof result !== 'object' || result === null) throw new TypeError('result must be a QueryResult');
  const canonical = canonicalMediaType(mediaType, result.type);
  if (canonical === undefined) {
    throw new TypeError(`cannot write a ${result.type} result as ${JSON.stringify(mediaType)}; use one of ${mediaTypesFor(result.type).join(', ')}`);
  }
  if (result.type === 'quads') {
    if (canonical === JSON_LD) return jsonLdChunks(result.quads);
    if (canonical === RDF_XML) return rdfXmlChunks(result.quads);
    return rdfChunks(result.quads, RDF_FORMATS[canonical]!);
  }
  switch (canonical) {
    case SPARQL_RESULTS_JSON:
      return jsonResultChunks(result);
    case SPARQL_RESULTS_XML:
      return xmlResultChunks(result);
    case SPARQL_RESULTS_CSV:
      return csvResultChunks(result);
    case SPARQL_RESULTS_TSV:
      return tsvResultChunks(result);
    default:
      throw new TypeError(`no writer for ${canonical}`);
  }
}

function* gathered(chunks: Iterable<string>, size: number): Generator<string> {
  let buffer: string[] = [];
  let length = 0;
  for (const chunk of chunks) {
    buffer.push(chunk);
    length += chunk.length;
    if (length >= size) {
      yield buffer.join('');
      buffer = [];
      length = 0;
    }
  }
  if (length > 0) yield buffer.join('');
}

/**
 * The text of `result` in `mediaType` (a canonical type, an alias such as `application/json`, or
 * either with parameters), as an async iterable of chunks produced while the consumer reads
 * (e.g. `Readable.from(serialiseResult(result, type))` as a response body). Throws TypeError at
 * once when the media type cannot carry this kind of result; errors of the evaluation (timeouts,
 * row budgets) are thrown from the iteration.
 */
export function serialiseResult(result: QueryResult, mediaType: string): AsyncIterable<string> {
  const chunks = resultChunks(result, mediaType);
  return (async function* () {
    yield* gathered(chunks, CHUNK_SIZE);
  })();
}

/**
 * Writes `result` in `mediaType` through `write`, awaiting each call (so a `write` that waits for
 * the socket to drain gives backpressure). Throws TypeError at once for a media type that cannot
 * carry the result; the returned promise rejects with evaluation errors or `write`'s own.
 */
export function createResultWriter(result: QueryResult, mediaType: string, write: (chunk: string) => void | Promise<void>): Promise<void> {
  if (typeof write !== 'function') throw new TypeError('write must be a function');
  const chunks = resultChunks(result, mediaType);
  return (async () => {
    for (const chunk of gathered(chunks, CHUNK_SIZE)) await write(chunk);
  })();
}

/** The whole text at once (tests, small results). */
export function serialiseResultToString(result: QueryResult, mediaType: string): string {
  return [...resultChunks(result, mediaType)].join('');
}
