/**
 * GraphQL over HTTP (SPEC §4, §5), graphql-jena's four schemas at the reference's paths:
 *
 *   /{ds}/graphql            IES schema (as secure-agent-graph serves it at /ds/graphql)
 *   /{ds}/ianode/graphql     IES schema (as graphql-jena's server, "/dataset/ianode/graphql")
 *   /{ds}/traversal/graphql  Traversal schema
 *   /{ds}/dataset/graphql    Dataset schema (the reference server's "/dataset/graphql"; here under
 *                            the dataset's name, as /{ds}/graphql is the IES schema)
 *   /{ds}/validate, /{ds}/ianode/validate, /{ds}/traversal/validate, /{ds}/dataset/validate:
 *                            validation only (parse, schema, limits; no data read): 200
 *                            "Query is valid" or 400 with the list of errors, as the reference.
 *
 * Every path: POST `application/json`
 * `{query, variables, operationName}` and GET `?query=&variables=&operationName=`. Same
 * authentication (the dataset `onRequest` hook) and `read` permission as SPARQL, and the same
 * data path: a query worker over the caller's view (`ctx.queries`), never the store.
 *
 * Responses follow the GraphQL-over-HTTP convention: `application/graphql-response+json` when the
 * client accepts it, else `application/json`; 400 when there is no `data` (parse, validation,
 * limit or request errors), 200 otherwise. A client asking for HTML (a browser) gets a small
 * self-contained query page. No header tells how much work a request took: the number of dataset
 * scans depended on data hidden from the caller (a side channel, issue 13), so it is logged at
 * debug level for operators instead.
 * `graphql: false` in the configuration: 404.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { graphiqlPage, TraversalError, validateGraphql, type GraphqlRequest, type SchemaName } from '@ianode/graphql';
import { errorReply, GraphServerError } from '../errors.js';
import { checkQueryShape } from '../query-shape.js';
import type { RouteContext } from './context.js';
import { sendCompressible } from './respond.js';
import { mediaTypeEssence } from '@ianode/rdf';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** The media type of the answer: graphql-response+json when accepted, else JSON; 'html' for a page. */
function negotiate(accept: string | undefined): typeof GRAPHQL_RESPONSE | 'application/json' | 'html' {
  const ranges = (accept ?? '').split(',').map((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return { type: type!.trim(), q: q === undefined ? 1 : Number(q.slice(2)) || 0 };
  });
  const quality = (type: string) => Math.max(0, ...ranges.filter((r) => r.type === type).map((r) => r.q));
  const gql = quality(GRAPHQL_RESPONSE);
  const json = quality('application/json');
  const html = quality('text/html');
  if (html > 0 && html > gql && html > json) return 'html';
  return gql > 0 && gql >= json ? GRAPHQL_RESPONSE : 'application/json';
}

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new GraphServerError('BAD_REQUEST', `give one ${name} parameter`);
  return value;
}

/** The request parameters from the query string (GET) or the JSON body (POST). */
function paramsOf(request: FastifyRequest): GraphqlRequest {
  if (request.method === 'GET') {
    const q = (request.query ?? {}) as Record<string, unknown>;
    const variablesText = single(q.variables, 'variables');
    let variables: unknown;
    if (variablesText !== undefined && variablesText !== '') {
      try {
        variables = JSON.parse(variablesText);
      } catch {
        throw new GraphServerError('BAD_REQUEST', 'the variables parameter is not JSON');
      }
    }
    return { query: single(q.query, 'query'), variables, operationName: single(q.operationName, 'operationName') };
  }
  const essence = mediaTypeEssence(request.headers['content-type']);
  if (essence !== 'application/json') {
    throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `POST a GraphQL request as application/json {"query": ...}, not ${essence || 'a body without a content type'}`);
  }
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new GraphServerError('BAD_REQUEST', 'the body must be a JSON object {"query": ...}');
  const { query, variables, operationName } = body as Record<string, unknown>;
  return { query, variables, operationName };
}

/** The query page's starting query per schema (the IES one is the page's own example). */
const EXAMPLES: Record<SchemaName, string | undefined> = {
  ies: undefined,
  traversal: '{\n  nodes(starts: [{ kind: URI, value: "http://example/person4321" }]) {\n    node { kind value }\n    outgoing { edge { value } target { node { kind value } } }\n  }\n}',
  dataset: '{\n  quads(subject: { kind: URI, value: "http://example/person4321" }) {\n    predicate { value }\n    object { kind value datatype language }\n    graph { value }\n  }\n}',
};

/** Path (after /{ds}) → schema, for queries and for validation. */
const ENDPOINTS: ReadonlyArray<[string, SchemaName]> = [
  ['', 'ies'],
  ['/ianode', 'ies'],
  ['/traversal', 'traversal'],
  ['/dataset', 'dataset'],
];

export function registerGraphql(app: FastifyInstance, ctx: RouteContext): void {
  const ds = `/${ctx.config.dataset.name}`;
  const allowed = (request: FastifyRequest) => {
    ctx.security.require(request.caller!, 'read');
    if (!ctx.config.graphql) throw new GraphServerError('NOT_FOUND', `GraphQL is switched off for ${ds} (graphql: false in the configuration)`);
  };
  const query = (schema: SchemaName, path: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    allowed(request);
    const mediaType = negotiate(request.headers.accept);
    if (mediaType === 'html' && request.method === 'GET') {
      const given = single(((request.query ?? {}) as Record<string, unknown>).query, 'query');
      return reply.type('text/html; charset=utf-8').send(graphiqlPage(path, given ?? EXAMPLES[schema]));
    }
    const params = paramsOf(request);
    // graphql-js parses recursively: the document's size and nesting are checked before it parses.
    if (typeof params.query === 'string') checkQueryShape(params.query, 'graphql', ctx.config.limits);
    const { queryTimeoutMs } = ctx.config.limits;
    // Executed on a query worker, over the caller's view there (../pool/pool.ts).
    let answer;
    try {
      answer = await ctx.queries.graphql(request.caller!, {
        type: 'graphql',
        request: params,
        deadline: queryTimeoutMs > 0 ? Date.now() + queryTimeoutMs : undefined,
        schema,
      });
    } catch (error) {
      ctx.metrics.queries.inc({ outcome: 'error' });
      // A request its worker was stopped for at the deadline answers as the engine's own timeout
      // does: 503 with a GraphQL error body, no data.
      const { status, body } = errorReply(error);
      if (body.code !== 'QUERY_TIMEOUT') throw error;
      return reply
        .code(status)
        .type(`${mediaType === 'html' ? 'application/json' : mediaType}; charset=utf-8`)
        .send(JSON.stringify({ errors: [new TraversalError('QUERY_TIMEOUT', `query cancelled: over the time limit of ${queryTimeoutMs} ms (${body.message})`).toJSON()] }));
    }
    ctx.metrics.queries.inc({ outcome: answer.ok ? 'ok' : 'error' });
    request.log.debug({ scans: answer.scans, schema }, 'graphql request');
    reply.code(answer.status).type(`${mediaType === 'html' ? 'application/json' : mediaType}; charset=utf-8`);
    return sendCompressible(request, reply, answer.body);
  };
  // Validation reads no data, so it runs here rather than on a query worker; the same permission
  // applies all the same (an endpoint of the dataset, fail closed).
  const validation = (schema: SchemaName) => async (request: FastifyRequest, reply: FastifyReply) => {
    allowed(request);
    const params = paramsOf(request);
    if (typeof params.query === 'string') checkQueryShape(params.query, 'graphql', ctx.config.limits);
    const { valid, errors } = validateGraphql(params, { schema });
    if (valid) return reply.code(200).type('text/plain; charset=utf-8').send('Query is valid');
    return reply.code(400).type('application/json; charset=utf-8').send(JSON.stringify(errors));
  };
  for (const [prefix, schema] of ENDPOINTS) {
    const path = `${ds}${prefix}/graphql`;
    app.get(path, query(schema, path));
    app.post(path, query(schema, path));
    app.get(`${ds}${prefix}/validate`, validation(schema));
    app.post(`${ds}${prefix}/validate`, validation(schema));
  }
}
