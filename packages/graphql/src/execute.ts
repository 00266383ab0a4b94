/**
 * One GraphQL request over a Dataset (normally the caller's ABAC view): check the request, parse,
 * validate, check depth and complexity, execute synchronously with a fresh per-request loader.
 * Returns the GraphQL response body and the number of dataset scans it took.
 */
import { executeSync, getOperationAST, GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Dataset } from '@ianode/rdf';
import { TraversalError } from './errors.js';
import { checkLimits, DEFAULT_LIMITS, type Limits } from './limits.js';
import { TraversalLoader } from './loader.js';
import { datasetSchema, MAX_UNPAGED, traversalGraphSchema, type RdfContext } from './rdf-schemas.js';
import { iesSchema, type TraversalContext } from './schema.js';
import { DEFAULT_PREFIXES } from './terms.js';

/** The GraphQL-over-HTTP request parameters, as received (checked here). */
export interface GraphqlRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/** The four schemas of graphql-jena: `ies` (the IES / telicent-graph schema, also served as the
 * "ianode" schema), `dataset` (quads) and `traversal` (nodes and edges). */
export type SchemaName = 'ies' | 'dataset' | 'traversal';

export const SCHEMAS: Readonly<Record<SchemaName, GraphQLSchema>> = { ies: iesSchema, dataset: datasetSchema, traversal: traversalGraphSchema };

export interface GraphqlOptions {
  /** Which schema answers (default `ies`). */
  schema?: SchemaName | undefined;
  /** List items a Dataset or Traversal request may return in all (default MAX_UNPAGED). */
  maxItems?: number | undefined;
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

/** A request checked, parsed, validated and within the limits, ready to run; or the errors why not. */
type Prepared = { ok: true; document: DocumentNode; operation: OperationDefinitionNode; values: Record<string, unknown> } | { ok: false; outcome: GraphqlOutcome };

/**
 * Documents that parsed and validated, by schema and query text, most recently used last: parsing
 * and validating cost more than many requests take to run, and clients send the same query texts
 * again and again (as the SPARQL engine's parse cache). Documents are never mutated. Texts that
 * fail to parse or validate are not kept: they are checked afresh and answered with their errors.
 */
const DOCUMENT_CACHE_SIZE = 256;
const documents = new Map<GraphQLSchema, Map<string, DocumentNode>>();

function cachedDocument(schema: GraphQLSchema, query: string): DocumentNode | undefined {
  const cache = documents.get(schema);
  const hit = cache?.get(query);
  if (hit !== undefined) {
    cache!.delete(query);
    cache!.set(query, hit);
  }
  return hit;
}

function keepDocument(schema: GraphQLSchema, query: string, document: DocumentNode): void {
  let cache = documents.get(schema);
  if (cache === undefined) documents.set(schema, (cache = new Map()));
  cache.set(query, document);
  if (cache.size > DOCUMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
}

function prepare(schema: GraphQLSchema, request: GraphqlRequest, options: GraphqlOptions): Prepared {
  const no = (outcome: GraphqlOutcome): Prepared => ({ ok: false, outcome });
  const { query, variables, operationName } = request;
  if (typeof query !== 'string' || query.trim() === '') {
    return no(failed(new TraversalError('BAD_REQUEST', 'no query: give {"query": "..."} in a JSON body, or ?query= on GET')));
  }
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return no(failed(new TraversalError('BAD_REQUEST', '"variables" must be a JSON object')));
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    return no(failed(new TraversalError('BAD_REQUEST', '"operationName" must be a string')));
  }
  let document = cachedDocument(schema, query);
  if (document === undefined) {
    try {
      document = parse(query);
    } catch (error) {
      const e = error as GraphQLError;
      return no(failed(new GraphQLError(e.message, { source: e.source, positions: e.positions, extensions: { code: 'GRAPHQL_PARSE_FAILED' } })));
    }
    const invalid = validate(schema, document, specifiedRules);
    if (invalid.length > 0) {
      const errors = invalid.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }).toJSON());
      return no({ body: { errors }, hasData: false, scans: 0 });
    }
    keepDocument(schema, query, document);
  }
  const operation = getOperationAST(document, (operationName as string | null | undefined) ?? undefined);
  if (!operation) {
    const why = operationName ? `no operation named ${JSON.stringify(operationName)}` : 'the document has several operations: give operationName';
    return no(failed(new TraversalError('BAD_REQUEST', why)));
  }
  const values = (variables ?? {}) as Record<string, unknown>;
  try {
    checkLimits(document, operation, values, { ...DEFAULT_LIMITS, ...stripUndefined(options.limits ?? {}) }, schema === iesSchema);
  } catch (error) {
    return no(failed(error as TraversalError));
  }
  return { ok: true, document, operation, values };
}

/**
 * Validation only (graphql-jena's `/validate` endpoints): the same checks as executeGraphql up to,
 * not including, execution (request, parse, schema validation, depth and complexity). Reads no data.
 */
export function validateGraphql(request: GraphqlRequest, options: GraphqlOptions = {}): { valid: boolean; errors: Array<ReturnType<GraphQLError['toJSON']>> } {
  const prepared = prepare(SCHEMAS[options.schema ?? 'ies'], request, options);
  return prepared.ok ? { valid: true, errors: [] } : { valid: false, errors: prepared.outcome.body.errors ?? [] };
}

export function executeGraphql(dataset: Dataset, request: GraphqlRequest, options: GraphqlOptions = {}): GraphqlOutcome {
  const schema = SCHEMAS[options.schema ?? 'ies'];
  const prepared = prepare(schema, request, options);
  if (!prepared.ok) return prepared.outcome;
  const { document, values } = prepared;
  const { operationName } = request;
  const loader = new TraversalLoader(dataset, { deadline: options.deadline });
  const contextValue: TraversalContext & RdfContext = { loader, prefixes: options.prefixes ?? DEFAULT_PREFIXES, maxItems: options.maxItems ?? MAX_UNPAGED, items: 0 };
  const result = executeSync({
    schema,
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
