/**
 * SPARQL 1.1 Protocol query operation (SPEC §4) on `/{ds}`, `/{ds}/query`, `/{ds}/sparql`: GET
 * `?query=`, POST form `query=`, POST `application/sparql-query`; `default-graph-uri` and
 * `named-graph-uri`; results negotiated over every format, 406 when none fits. SPARQL Update (POST
 * form `update=` or `application/sparql-update`, on `/{ds}` and `/{ds}/update`) needs the write
 * permission and runs as one atomic transaction (../writes.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { executeQuery, type QueryResult } from '@ianode/sparql';
import { negotiateResultType, serialiseResult } from '../sparql-results.js';
import { GraphServerError } from '../errors.js';
import type { RouteContext } from './context.js';
import { sendChunks } from './respond.js';
import { runSparqlUpdate } from '../writes.js';

interface Params {
  query?: string | undefined;
  update?: string | undefined;
  defaultGraphs: string[];
  namedGraphs: string[];
}


function all(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

function one(value: unknown, name: string): string | undefined {
  const values = all(value);
  if (values.length > 1) throw new GraphServerError('BAD_REQUEST', `give one ${name} parameter, not ${values.length}`);
  return values[0];
}

/** The protocol parameters of a request, wherever they came from. */
function paramsOf(request: FastifyRequest): Params {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const params: Params = {
    query: one(query.query, 'query'),
    update: undefined,
    defaultGraphs: all(query['default-graph-uri']),
    namedGraphs: all(query['named-graph-uri']),
  };
  if (request.method !== 'POST') return params;
  const essence = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (essence === 'application/x-www-form-urlencoded') {
    const form = request.body as Record<string, unknown>;
    params.query = one(form.query, 'query') ?? params.query;
    params.update = one(form.update, 'update');
    params.defaultGraphs.push(...all(form['default-graph-uri']));
    params.namedGraphs.push(...all(form['named-graph-uri']));
  } else if (essence === 'application/sparql-query') {
    params.query = request.body as string;
  } else if (essence === 'application/sparql-update') {
    params.update = request.body as string;
  } else if (essence === '') {
    if (params.query === undefined) throw new GraphServerError('BAD_REQUEST', 'POST a query as application/sparql-query or a form with query=');
  } else {
    throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `a SPARQL request is application/sparql-query, application/sparql-update or application/x-www-form-urlencoded, not ${essence}`);
  }
  return params;
}

/** The result with at most `cap` solutions (or quads); one more is a 413 (SPEC §4 result size limit). */
function capRows(result: QueryResult, cap: number): QueryResult {
  function* limited<T>(items: Iterable<T>): Generator<T> {
    let n = 0;
    for (const item of items) {
      if (++n > cap) throw new GraphServerError('PAYLOAD_TOO_LARGE', `result over the limit of ${cap} rows: add LIMIT, or narrow the query`);
      yield item;
    }
  }
  if (result.type === 'bindings') return { ...result, solutions: limited(result.solutions) };
  if (result.type === 'quads') return { ...result, quads: limited(result.quads) };
  return result;
}

export function registerSparql(app: FastifyInstance, ctx: RouteContext): void {
  const ds = ctx.config.dataset.name;
  const update = async (request: FastifyRequest, reply: import('fastify').FastifyReply, text: string) => {
    ctx.security.require(request.caller!, 'write');
    if (text.trim() === '') throw new GraphServerError('BAD_REQUEST', 'no update: give a form field update= or a body of type application/sparql-update');
    let outcome = 'error';
    try {
      const result = await runSparqlUpdate(ctx, request, text);
      outcome = 'ok';
      return reply.code(200).send({ operations: result.operations, inserted: result.inserted, deleted: result.deleted, txId: result.txId });
    } finally {
      ctx.metrics.queries.inc({ outcome: `update-${outcome}` });
    }
  };
  const handler = async (request: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const params = paramsOf(request);
    if (params.update !== undefined) {
      if (params.query !== undefined) throw new GraphServerError('BAD_REQUEST', 'give query= or update=, not both');
      return update(request, reply, params.update);
    }
    if (params.query === undefined || params.query.trim() === '') {
      throw new GraphServerError('BAD_REQUEST', 'no query: give ?query=, a form field query=, or a body of type application/sparql-query');
    }
    ctx.security.require(request.caller!, 'read');
    const view = ctx.viewFor(request.caller!);
    const { queryTimeoutMs, resultRows } = ctx.config.limits;
    let outcome = 'error';
    try {
      const result = executeQuery(view, params.query, {
        deadline: queryTimeoutMs > 0 ? Date.now() + queryTimeoutMs : undefined,
        rowBudget: resultRows > 0 ? resultRows : undefined,
        baseIRI: ctx.baseIRI,
        defaultGraphs: params.defaultGraphs.length > 0 ? params.defaultGraphs : undefined,
        namedGraphs: params.namedGraphs.length > 0 ? params.namedGraphs : undefined,
      });
      const capped = resultRows > 0 ? capRows(result, resultRows) : result;
      const mediaType = negotiateResultType(request.headers.accept, result.type);
      if (mediaType === undefined) {
        throw new GraphServerError('NOT_ACCEPTABLE', `cannot answer a ${result.type === 'quads' ? 'graph' : 'results'} query in ${JSON.stringify(request.headers.accept)}`);
      }
      const sent = await sendChunks(reply, mediaType, serialiseResult(capped, mediaType));
      outcome = 'ok';
      return sent;
    } finally {
      ctx.metrics.queries.inc({ outcome });
    }
  };
  for (const path of [`/${ds}`, `/${ds}/query`, `/${ds}/sparql`]) {
    app.get(path, handler);
    app.post(path, handler);
  }
  app.post(`/${ds}/update`, async (request, reply) => {
    const params = paramsOf(request);
    if (params.query !== undefined && params.update === undefined) {
      throw new GraphServerError('BAD_REQUEST', `/${ds}/update takes updates only: send queries to /${ds}/query`);
    }
    return update(request, reply, params.update ?? '');
  });
  app.get(`/${ds}/update`, async () => {
    throw new GraphServerError('METHOD_NOT_ALLOWED', 'SPARQL update is POST only');
  });
}
