/**
 * One GraphQL request over a Dataset (normally the caller's ABAC view): check the request, parse,
 * validate, check depth and complexity, execute synchronously with a fresh per-request loader.
 * Returns the GraphQL response body and the number of dataset scans it took.
 */
import { executeSync, getOperationAST, GraphQLError, parse, specifiedRules, validate, type DocumentNode } from 'graphql';
import type { Dataset } from '@ianode/rdf';
import { TraversalError } from './errors.js';
import { checkLimits, DEFAULT_LIMITS, type Limits } from './limits.js';
import { TraversalLoader } from './loader.js';
import { traversalSchema, type TraversalContext } from './schema.js';
import { DEFAULT_PREFIXES } from './terms.js';

/** The GraphQL-over-HTTP request parameters, as received (checked here). */
export interface GraphqlRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

export interface GraphqlOptions {
  /** Epoch milliseconds after which reads stop with a QUERY_TIMEOUT error. */
  deadline?: number | undefined;
  limits?: Partial<Limits> | undefined;
  /** Prefixes for `shortUri` / `shortPredicate` (default: DEFAULT_PREFIXES). */
  prefixes?: Readonly<Record<string, string>> | undefined;
}

/** A GraphQL response body (JSON-ready). */
export interface GraphqlResponseBody {
  data?: Record<string, unknown> | null;
  errors?: Array<ReturnType<GraphQLError['toJSON']>>;
}

export interface GraphqlOutcome {
  body: GraphqlResponseBody;
  /** Whether the request reached execution (GraphQL-over-HTTP: no data = 400). */
  hasData: boolean;
  /** Dataset calls (match, matchBatches, count) made for this request. */
  scans: number;
  /** The request ran over its time limit: the body holds that error only, no partial data
   * (a server answers 503, as for a SPARQL query over the limit). */
  timedOut?: boolean;
}

const failed = (error: GraphQLError, scans = 0): GraphqlOutcome => ({ body: { errors: [error.toJSON()] }, hasData: false, scans });

export function executeGraphql(dataset: Dataset, request: GraphqlRequest, options: GraphqlOptions = {}): GraphqlOutcome {
  const { query, variables, operationName } = request;
  if (typeof query !== 'string' || query.trim() === '') {
    return failed(new TraversalError('BAD_REQUEST', 'no query: give {"query": "..."} in a JSON body, or ?query= on GET'));
  }
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return failed(new TraversalError('BAD_REQUEST', '"variables" must be a JSON object'));
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    return failed(new TraversalError('BAD_REQUEST', '"operationName" must be a string'));
  }
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (error) {
    const e = error as GraphQLError;
    return failed(new GraphQLError(e.message, { source: e.source, positions: e.positions, extensions: { code: 'GRAPHQL_PARSE_FAILED' } }));
  }
  const invalid = validate(traversalSchema, document, specifiedRules);
  if (invalid.length > 0) {
    const errors = invalid.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }).toJSON());
    return { body: { errors }, hasData: false, scans: 0 };
  }
  const operation = getOperationAST(document, (operationName as string | null | undefined) ?? undefined);
  if (!operation) {
    const why = operationName ? `no operation named ${JSON.stringify(operationName)}` : 'the document has several operations: give operationName';
    return failed(new TraversalError('BAD_REQUEST', why));
  }
  const values = (variables ?? {}) as Record<string, unknown>;
  try {
    checkLimits(document, operation, values, { ...DEFAULT_LIMITS, ...stripUndefined(options.limits ?? {}) });
  } catch (error) {
    return failed(error as TraversalError);
  }
  const loader = new TraversalLoader(dataset, { deadline: options.deadline });
  const contextValue: TraversalContext = { loader, prefixes: options.prefixes ?? DEFAULT_PREFIXES };
  const result = executeSync({
    schema: traversalSchema,
    document,
    variableValues: values,
    operationName: (operationName as string | null | undefined) ?? undefined,
    contextValue,
  });
  // A timeout is not a field error: what was resolved before it is an arbitrary part of the
  // answer, so no data goes out, only the timeout.
  const timeout = result.errors?.find((e) => (e.originalError ?? e) instanceof TraversalError && ((e.originalError ?? e) as TraversalError).code === 'QUERY_TIMEOUT');
  if (timeout !== undefined) {
    return { body: { errors: [new TraversalError('QUERY_TIMEOUT', timeout.message).toJSON()] }, hasData: false, scans: loader.scans, timedOut: true };
  }
  const body: GraphqlResponseBody = {};
  if (result.errors !== undefined) body.errors = result.errors.map((e) => e.toJSON());
  if (result.data !== undefined) body.data = result.data as Record<string, unknown> | null;
  // Reorder so `data` comes first, as GraphQL responses conventionally do.
  const ordered: GraphqlResponseBody = result.data !== undefined ? { data: body.data, ...(body.errors ? { errors: body.errors } : {}) } : body;
  return { body: ordered, hasData: result.data !== undefined, scans: loader.scans };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
