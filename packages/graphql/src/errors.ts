/**
 * The GraphQL package's errors (STYLE.md "Errors"): one class with a closed set of codes. Each
 * reaches the client as a GraphQL error whose `extensions.code` is the code.
 */
import { GraphQLError } from 'graphql';

export type TraversalErrorCode =
  /** limit over the maximum, negative, or an offset below 1 */
  | 'BAD_PAGING'
  /** the operation nests deeper than the depth limit */
  | 'DEPTH_LIMIT'
  /** the operation's estimated work is over the complexity limit */
  | 'COMPLEXITY_LIMIT'
  /** an unpaged list (Dataset quads, Traversal nodes/edges, search) longer than its cap */
  | 'RESULT_LIMIT'
  /** over the request's time limit */
  | 'QUERY_TIMEOUT'
  /** the query text does not parse */
  | 'GRAPHQL_PARSE_FAILED'
  /** the query does not validate against the schema (unknown fields, wrong arguments, ...) */
  | 'GRAPHQL_VALIDATION_FAILED'
  /** the request itself is unusable (no query, bad variables, unknown operation) */
  | 'BAD_REQUEST';

export class TraversalError extends GraphQLError {
  constructor(
    readonly code: TraversalErrorCode,
    message: string,
  ) {
    super(message, { extensions: { code } });
    this.name = 'TraversalError';
  }
}
