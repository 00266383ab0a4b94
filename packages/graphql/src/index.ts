export { executeGraphql, type GraphqlOptions, type GraphqlOutcome, type GraphqlRequest, type GraphqlResponseBody } from './execute.js';
export { TraversalError, type TraversalErrorCode } from './errors.js';
export { DEFAULT_LIMITS, type Limits } from './limits.js';
export { TraversalLoader, type Edges, type LoaderOptions } from './loader.js';
export { DEFAULT_LIMIT, MAX_LIMIT, IS_STATE_OF, traversalSchema, type NodeRef, type TraversalContext } from './schema.js';
export { DEFAULT_PREFIXES } from './terms.js';
export { graphiqlPage } from './page.js';

import { printSchema } from 'graphql';
import { traversalSchema } from './schema.js';

/** The schema in SDL (for docs and clients). */
export function traversalSdl(): string {
  return printSchema(traversalSchema);
}
