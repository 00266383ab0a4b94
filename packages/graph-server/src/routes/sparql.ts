/**
 * SPARQL 1.1 Protocol (SPEC §4). Query operation on `/{ds}`, `/{ds}/query`, `/{ds}/sparql`: GET
 * `?query=`, POST form `query=`, POST `application/sparql-query`; `default-graph-uri` and
 * `named-graph-uri`; results negotiated over every format, 406 when none fits. Update operation
 * (POST form `update=` or `application/sparql-update`, on `/{ds}` and `/{ds}/update`; never GET:
 * 405) with `using-graph-uri` and `using-named-graph-uri`; it needs the write permission and runs
 * as one atomic transaction (../writes.ts).
 *
 * Bodies are UTF-8 (../body.ts: another charset is 415, other bytes 400); one `query` or `update`
 * per request (400 for two); a POST of another media type is 415, a POST without one 400. A GET
 * without a `query` (or `update`) parameter answers the service description
 * (./service-description.ts). Relative IRIs in a query or update resolve against the configured
 * base IRI, else against the endpoint's URL ("which MAY be the service endpoint", SPARQL 1.1
 * Protocol §2.2.3).
 */
import { parseUpdate, type UpdateResult } from '@ianode/sparql';
import type { WriteOutcome } from '@ianode/store';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphServerError } from '../errors.js';
import { checkQueryShape } from '../query-shape.js';
import { endpointUrl, parameterIri } from '../request-iri.js';
import type { RouteContext } from './context.js';
import { sendStream, varyNegotiated } from './respond.js';
import { acceptOf } from '../format-param.js';
import { sendServiceDescription, type EndpointKind } from './service-description.js';
import { audit } from '../request-audit.js';
import { requestLabel } from '../request-label.js';
import { applySparqlUpdate, withProtocolDataset, writeCounts, type UpdateDataset, type WriteCounts } from '../writes.js';
import { logWriter, submitUpdate } from '../kafka/submit.js';
import { mediaTypeEssence } from '@ianode/rdf';

interface Params {
  query?: string | undefined;
  update?: string | undefined;
  defaultGraphs: string[];
  namedGraphs: string[];
  usingGraphs: string[];
  usingNamedGraphs: string[];
  /** Whether the request named any protocol parameter at all (a bare GET is a service description request). */
  any: boolean;
  /** The form body's fields (a POST of a form), for `format` / `output`. */
  form: Record<string, unknown>;
}

const PROTOCOL_PARAMETERS = ['query', 'update', 'default-graph-uri', 'named-graph-uri', 'using-graph-uri', 'using-named-graph-uri'];

function all(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

/** At most one value of `name` over every source (URL, form, body). */
function one(name: string, ...sources: unknown[]): string | undefined {
  const values = sources.flatMap(all);
  if (values.length > 1) throw new GraphServerError('BAD_REQUEST', `give one ${name}, not ${values.length}`);
  return values[0];
}

/** The protocol parameters of a request, wherever they came from (URL, form body, direct body). */
function paramsOf(request: FastifyRequest): Params {
  const url = (request.query ?? {}) as Record<string, unknown>;
  let form: Record<string, unknown> = {};
  let directQuery: string | undefined;
  let directUpdate: string | undefined;
  if (request.method === 'POST') {
    const essence = mediaTypeEssence(request.headers['content-type']);
    if (essence === 'application/x-www-form-urlencoded') form = request.body as Record<string, unknown>;
    else if (essence === 'application/sparql-query') directQuery = request.body as string;
    else if (essence === 'application/sparql-update') directUpdate = request.body as string;
    else if (essence === '') {
      // Only a POST that carries its query in the URL may go without a Content-Type.
      if (url.query === undefined) throw new GraphServerError('BAD_REQUEST', 'a POST needs a Content-Type: application/sparql-query, application/sparql-update or application/x-www-form-urlencoded');
    } else {
      throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `a SPARQL request is application/sparql-query, application/sparql-update or application/x-www-form-urlencoded, not ${essence}`);
    }
  }
  const pick = (name: string) => [...all(url[name]), ...all(form[name])];
  return {
    query: one('query (query= parameter or body)', url.query, form.query, directQuery),
    update: one('update (update= parameter or body)', url.update, form.update, directUpdate),
    defaultGraphs: pick('default-graph-uri'),
    namedGraphs: pick('named-graph-uri'),
    usingGraphs: pick('using-graph-uri'),
    usingNamedGraphs: pick('using-named-graph-uri'),
    any: directQuery !== undefined || directUpdate !== undefined || PROTOCOL_PARAMETERS.some((name) => url[name] !== undefined || form[name] !== undefined),
    form,
  };
}

const UPDATE_IS_POST = 'SPARQL Update is POST only: application/sparql-update, or a form with update=';

export function registerSparql(app: FastifyInstance, ctx: RouteContext): void {
  const ds = ctx.config.dataset.name;
  /** The base IRI of a request to the endpoint at `path`: configured, else the endpoint's URL. */
  const baseOf = (request: FastifyRequest, path: string): string | undefined => {
    if (ctx.baseIRI !== undefined) return ctx.baseIRI;
    try {
      return endpointUrl(request, path);
    } catch {
      return undefined; // a Host header that is no host: relative IRIs are then errors
    }
  };

  const update = async (request: FastifyRequest, reply: FastifyReply, params: Params, path: string) => {
    ctx.security.require(request.caller!, 'write');
    const text = params.update ?? '';
    if (text.trim() === '') throw new GraphServerError('BAD_REQUEST', 'no update: give a form field update= or a body of type application/sparql-update');
    checkQueryShape(text, 'sparql-update', ctx.config.limits);
    if (params.defaultGraphs.length > 0 || params.namedGraphs.length > 0) {
      throw new GraphServerError('BAD_REQUEST', 'default-graph-uri and named-graph-uri are query parameters: an update takes using-graph-uri and using-named-graph-uri');
    }
    const baseIRI = baseOf(request, path);
    const using = {
      default: params.usingGraphs.map((v) => parameterIri(v, baseIRI, 'using-graph-uri')),
      named: params.usingNamedGraphs.map((v) => parameterIri(v, baseIRI, 'using-named-graph-uri')),
    };
    let outcome = 'error';
    try {
      const result = await runSparqlUpdate(ctx, request, text, { baseIRI, using });
      outcome = 'ok';
      if (result.offset !== undefined) reply.header('ianode-offset', result.offset);
      return reply.code(200).send(result);
    } finally {
      ctx.metrics.queries.inc({ outcome: `update-${outcome}` });
    }
  };

  const query = async (request: FastifyRequest, reply: FastifyReply, params: Params, path: string) => {
    // The answer is negotiated (Accept or format=, Accept-Encoding): so are its error answers.
    varyNegotiated(reply);
    if (params.query === undefined || params.query.trim() === '') {
      throw new GraphServerError('BAD_REQUEST', 'no query: give ?query=, a form field query=, or a body of type application/sparql-query');
    }
    if (params.usingGraphs.length > 0 || params.usingNamedGraphs.length > 0) {
      throw new GraphServerError('BAD_REQUEST', 'using-graph-uri and using-named-graph-uri are update parameters: a query takes default-graph-uri and named-graph-uri');
    }
    ctx.security.require(request.caller!, 'read');
    checkQueryShape(params.query, 'sparql-query', ctx.config.limits);
    const baseIRI = baseOf(request, path);
    const defaultGraphs = params.defaultGraphs.map((v) => parameterIri(v, baseIRI, 'default-graph-uri'));
    const namedGraphs = params.namedGraphs.map((v) => parameterIri(v, baseIRI, 'named-graph-uri'));
    const { queryTimeoutMs, resultRows } = ctx.config.limits;
    const { accept, format } = acceptOf(request, params.form);
    let outcome = 'error';
    try {
      // Parse, plan, evaluate and serialise on a query worker, over the caller's view there.
      const answer = await ctx.queries.sparql(request.caller!, {
        type: 'sparql',
        query: params.query,
        accept,
        format,
        deadline: queryTimeoutMs > 0 ? Date.now() + queryTimeoutMs : undefined,
        rowBudget: resultRows > 0 ? resultRows : undefined,
        resultRows,
        baseIRI,
        defaultGraphs: defaultGraphs.length > 0 ? defaultGraphs : undefined,
        namedGraphs: namedGraphs.length > 0 ? namedGraphs : undefined,
      });
      outcome = 'ok';
      return sendStream(request, reply, answer.mediaType, answer);
    } finally {
      ctx.metrics.queries.inc({ outcome });
    }
  };

  /** GET/POST on a query endpoint (`both`: also updates, by POST). */
  const endpoint = (path: string, kind: EndpointKind) => async (request: FastifyRequest, reply: FastifyReply) => {
    const params = paramsOf(request);
    if (params.update !== undefined) {
      if (request.method !== 'POST') throw new GraphServerError('METHOD_NOT_ALLOWED', UPDATE_IS_POST, { headers: { allow: 'POST' } });
      if (params.query !== undefined) throw new GraphServerError('BAD_REQUEST', 'give query= or update=, not both');
      return update(request, reply, params, path);
    }
    if (params.query === undefined && request.method !== 'POST' && !params.any) {
      ctx.security.require(request.caller!, 'read');
      return sendServiceDescription(request, reply, path, kind);
    }
    return query(request, reply, params, path);
  };

  const ALLOW = 'GET, HEAD, POST';
  const notAllowed = async (request: FastifyRequest) => {
    throw new GraphServerError('METHOD_NOT_ALLOWED', `${request.method} is not a SPARQL protocol method: use GET or POST (an update is POST only)`, { headers: { allow: ALLOW } });
  };
  for (const [path, kind] of [[`/${ds}`, 'both'], [`/${ds}/query`, 'query'], [`/${ds}/sparql`, 'query']] as const) {
    const handler = endpoint(path, kind);
    app.get(path, handler);
    app.post(path, handler);
    app.route({ method: ['PUT', 'DELETE', 'PATCH'], url: path, config: { notAllowed: true }, handler: notAllowed });
  }
  const updatePath = `/${ds}/update`;
  app.post(updatePath, async (request, reply) => {
    const params = paramsOf(request);
    if (params.query !== undefined && params.update === undefined) {
      throw new GraphServerError('BAD_REQUEST', `${updatePath} takes updates only: send queries to /${ds}/query`);
    }
    if (params.query !== undefined) throw new GraphServerError('BAD_REQUEST', 'give query= or update=, not both');
    return update(request, reply, params, updatePath);
  });
  app.get(updatePath, async (request, reply) => {
    if (paramsOf(request).any) throw new GraphServerError('METHOD_NOT_ALLOWED', UPDATE_IS_POST, { headers: { allow: 'POST' } });
    ctx.security.require(request.caller!, 'read');
    return sendServiceDescription(request, reply, updatePath, 'update');
  });
  app.route({ method: ['PUT', 'DELETE', 'PATCH'], url: updatePath, config: { notAllowed: true }, handler: notAllowed });
}

/** SPARQL Update for a caller: parse (400 before any write), then one transaction. */
async function runSparqlUpdate(
  ctx: RouteContext,
  request: FastifyRequest,
  text: string,
  options: { baseIRI?: string | undefined; using?: UpdateDataset | undefined } = {},
): Promise<{ operations: number; offset?: string } & WriteCounts> {
  const caller = request.caller!;
  const label = requestLabel(request, ctx.config.dataset.labels.legacy);
  const baseIRI = options.baseIRI ?? ctx.baseIRI;
  const parsed = withProtocolDataset(parseUpdate(text, { baseIRI }), options.using);
  let value: UpdateResult | { operations: number };
  let txId: number;
  let outcome: WriteOutcome;
  let offset: bigint | undefined;
  try {
    const log = logWriter(ctx);
    if (log) {
      // CQRS: checked (parsed) here, applied from the topic (kafka/submit.ts).
      const submitted = await submitUpdate(log, caller, text, label, baseIRI, options.using);
      ({ value, txId, outcome } = submitted.result);
      offset = submitted.offset;
    } else ({ value, txId, outcome } = await applySparqlUpdate(ctx, caller, parsed, label));
  } catch (error) {
    audit(request, 'sparql-update', { outcome: 'failed', code: (error as { code?: string }).code, label });
    throw error;
  }
  const counts = writeCounts(outcome, txId);
  audit(request, 'sparql-update', { outcome: 'ok', operations: value.operations, inserted: counts.inserted, relabelled: counts.relabelled, deleted: counts.deleted, unchanged: counts.unchanged, labels: counts.labels, label, txId });
  return { operations: value.operations, ...counts, ...(offset === undefined ? {} : { offset: String(offset) }) };
}
