/** The result formats of @ianode/sparql (negotiation and streamed writers) used by the routes. */
export {
  negotiateResultType, serialiseResult, mediaTypesFor, GRAPH_MEDIA_TYPES, RESULTS_MEDIA_TYPES, JSON_LD, N_QUADS, N_TRIPLES, RDF_XML, TRIG, TURTLE,
  SPARQL_RESULTS_CSV, SPARQL_RESULTS_JSON, SPARQL_RESULTS_TSV, SPARQL_RESULTS_XML, parseResults,
} from '@ianode/sparql';
