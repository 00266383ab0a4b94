/**
 * Query result formats: streamed writers (SPARQL JSON, XML, CSV, TSV; Turtle, N-Triples,
 * N-Quads, TriG through @ianode/rdf; JSON-LD), readers for the results formats and for DAWG
 * result-set graphs, Accept negotiation, and the W3C way of comparing results.
 */
export type { BindingsResult, BooleanResult, ParsedResults, QuadsResult } from './types.js';
export {
  canonicalMediaType, GRAPH_MEDIA_TYPES, JSON_LD, mediaTypesFor, N_QUADS, N_TRIPLES, negotiateResultType, RDF_XML, RESULTS_MEDIA_TYPES,
  SPARQL_RESULTS_CSV, SPARQL_RESULTS_JSON, SPARQL_RESULTS_TSV, SPARQL_RESULTS_XML, TRIG, TURTLE, type ResultType,
} from './media-types.js';
export { CHUNK_SIZE, createResultWriter, resultChunks, serialiseResult, serialiseResultToString } from './serialise.js';
export { parseResults, resultsFormatFromExtension } from './parse.js';
export { parseJsonResults } from './json.js';
export { RdfXmlError, rdfXmlChunks } from './rdf-xml.js';
export { parseXmlResults, SPARQL_RESULTS_NS } from './xml.js';
export { ASK_RESULT_COLUMN, parseCsvResults } from './csv.js';
export { parseTsvResults } from './tsv.js';
export { parseResultSetGraph, RS } from './result-set-graph.js';
export { compareResults, showSolution, termKey, type CompareOptions } from './compare.js';
export { ResultsSyntaxError } from './errors.js';
