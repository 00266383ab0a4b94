export { executeGraphql, validateGraphql, SCHEMAS, type SchemaName, type GraphqlOptions, type GraphqlOutcome, type GraphqlRequest, type GraphqlResponseBody } from './execute.js';
export { TraversalError, type TraversalErrorCode } from './errors.js';
export { DEFAULT_LIMITS, type Limits } from './limits.js';
export { TraversalLoader, type Edges, type LoaderOptions } from './loader.js';
export { DEFAULT_LIMIT, MAX_LIMIT, IES, IS_STATE_OF, IS_START_OF, IS_END_OF, IN_PERIOD, ISO8601_PERIOD, STATE_PREDICATES, iesSchema, traversalSchema, type NodeRef, type TraversalContext } from './schema.js';
export { DEFAULT_PREFIXES } from './terms.js';
export { graphiqlPage } from './page.js';

export { datasetSchema, traversalGraphSchema, MAX_UNPAGED } from './rdf-schemas.js';
export { DEFAULT_GRAPH_IRI, type NodeKind } from './core.js';
export { globMatches, TextIndex, textIndex, tokenize, type SearchType } from './search.js';

import { printSchema } from 'graphql';
import { SCHEMAS, type SchemaName } from './execute.js';

/** A schema in SDL (for docs and clients); default the IES schema. */
export function traversalSdl(schema: SchemaName = 'ies'): string {
  return printSchema(SCHEMAS[schema]);
}
