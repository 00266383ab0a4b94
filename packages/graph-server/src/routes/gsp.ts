/**
 * SPARQL 1.1 Graph Store HTTP Protocol reads on `/{ds}/data` and `/{ds}/get` (GET and HEAD):
 * `?default`, `?graph=<iri>`, or neither (the whole dataset). Reads go through the caller's view,
 * so a graph whose quads the caller cannot see answers 404 as if it did not exist.
 *
 * Writes on `/{ds}/data` (write permission; one atomic transaction each; audited): PUT replaces
 * the caller's visible quads of the graph with the body, POST adds the body, DELETE removes the
 * caller's visible quads of the graph (404 when it has none). `?default` or `?graph=` is required
 * for PUT and DELETE; a POST without either adds quads (N-Quads / TriG) to the dataset. Inserted
 * quads take the `Security-Label` header or the default label (../writes.ts has the rules).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { defaultGraph, factory, formatFromContentType, namedNode, parseQuadKeys, termToKey, type Dataset, type Quad, type RdfFormat } from '@ianode/rdf';
import type { UpdateOp } from '@ianode/sparql';
import { limitBytes, readText, tooLarge } from '../body.js';
import { isJsonLd, jsonLdToNQuads } from '../jsonld.js';
import { audit, requestLabel, withWriteScope } from '../writes.js';
import { negotiateResultType, serialiseResult, N_TRIPLES, TRIG, TURTLE } from '../sparql-results.js';
import { GraphServerError } from '../errors.js';
import type { RouteContext } from './context.js';
import { sendChunks } from './respond.js';

const LABELS_GRAPH = '<http://ndtp.co.uk/security#labels';
const LABELS_GRAPH_2 = '<http://telicent.io/security#labels';

function* quadsOf(view: Dataset, g: number | undefined): Generator<Quad> {
  const dg = defaultGraph();
  for (const q of view.match(g === undefined ? {} : { g })) {
    const graph = g !== undefined || q.g === 0 ? dg : view.term(q.g);
    yield factory.quad(view.term(q.s) as Quad['subject'], view.term(q.p) as Quad['predicate'], view.term(q.o) as Quad['object'], graph as Quad['graph']);
  }
}

export function registerGraphStore(app: FastifyInstance, ctx: RouteContext): void {
  const ds = ctx.config.dataset.name;
  const read = async (request: FastifyRequest, reply: FastifyReply) => {
    ctx.security.require(request.caller!, 'read');
    const query = (request.query ?? {}) as Record<string, unknown>;
    const graphParam = query.graph;
    const isDefault = Object.prototype.hasOwnProperty.call(query, 'default');
    if (Array.isArray(graphParam)) throw new GraphServerError('BAD_REQUEST', 'give one graph= parameter');
    if (isDefault && graphParam !== undefined) throw new GraphServerError('BAD_REQUEST', 'give ?default or ?graph=, not both');
    const view = ctx.viewFor(request.caller!);
    let g: number | undefined;
    if (isDefault) g = 0;
    else if (typeof graphParam === 'string') {
      let iri: string;
      try {
        iri = new URL(graphParam, ctx.baseIRI).href;
      } catch {
        throw new GraphServerError('BAD_REQUEST', `graph= must be an IRI: ${JSON.stringify(graphParam)}`);
      }
      const id = view.lookup(namedNode(iri));
      if (id === undefined || view.count({ g: id }) === 0) throw new GraphServerError('NOT_FOUND', `no graph <${iri}> in /${ds}`);
      g = id;
    }
    const accept = request.headers.accept;
    let mediaType = negotiateResultType(accept, 'quads');
    if (g === undefined && (mediaType === TURTLE || mediaType === N_TRIPLES)) {
      // The whole dataset has named graphs: only the quad formats can carry it.
      if (accept !== undefined && /turtle|n-triples/i.test(accept) && !/trig|n-quads|\*\/\*/i.test(accept)) {
        throw new GraphServerError('NOT_ACCEPTABLE', 'the whole dataset is served as application/trig, application/n-quads or application/ld+json');
      }
      mediaType = TRIG;
    }
    if (mediaType === undefined) throw new GraphServerError('NOT_ACCEPTABLE', `cannot serve a graph as ${JSON.stringify(accept)}`);
    return sendChunks(reply, mediaType, serialiseResult({ type: 'quads', quads: quadsOf(view, g) }, mediaType));
  };
  /** The target of a write: '' default graph, '<iri' a named graph, undefined the dataset. */
  const targetOf = (request: FastifyRequest): string | undefined => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    const graphParam = query.graph;
    const isDefault = Object.prototype.hasOwnProperty.call(query, 'default');
    if (Array.isArray(graphParam)) throw new GraphServerError('BAD_REQUEST', 'give one graph= parameter');
    if (isDefault && graphParam !== undefined) throw new GraphServerError('BAD_REQUEST', 'give ?default or ?graph=, not both');
    if (isDefault) return '';
    if (typeof graphParam !== 'string') return undefined;
    try {
      return termToKey(namedNode(new URL(graphParam, ctx.baseIRI).href));
    } catch {
      throw new GraphServerError('BAD_REQUEST', `graph= must be an IRI: ${JSON.stringify(graphParam)}`);
    }
  };
  /** The body's quads as keys, triples put in `target` (parsed before the transaction starts). */
  const bodyQuads = async (request: FastifyRequest, target: string | undefined): Promise<UpdateOp['quad'][]> => {
    const limit = ctx.config.limits.uploadBytes;
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
    const contentType = request.headers['content-type'];
    if (contentType === undefined || contentType.trim() === '') throw new GraphServerError('BAD_REQUEST', 'a graph store write needs a Content-Type (text/turtle, application/n-triples, application/n-quads, application/trig, application/ld+json)');
    const body = request.body as AsyncIterable<Uint8Array> | string | undefined;
    const source: AsyncIterable<Uint8Array | string> = typeof body === 'string' || body === undefined ? [body ?? ''] as unknown as AsyncIterable<string> : body;
    let text = await readText(limitBytes(source, limit));
    let format: RdfFormat | undefined;
    if (isJsonLd(contentType)) {
      text = await jsonLdToNQuads(text, ctx.baseIRI);
      format = 'application/n-quads';
    } else {
      const essence = contentType.split(';')[0]!.trim().toLowerCase();
      format = formatFromContentType(contentType) ?? (essence === 'text/trig' ? 'application/trig' : undefined);
    }
    if (format === undefined) throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `unsupported content type ${JSON.stringify(contentType)} for a graph store write`);
    const quads: UpdateOp['quad'][] = [];
    parseQuadKeys(text, { format, baseIRI: ctx.baseIRI }, (s, p, o, g) => {
      if (g !== '' && target !== undefined) throw new GraphServerError('BAD_REQUEST', 'the body has named graphs: a write to one graph takes triples (Turtle, N-Triples, JSON-LD)');
      if (g === LABELS_GRAPH || g === LABELS_GRAPH_2) throw new GraphServerError('BAD_REQUEST', 'labels graphs are read by POST /' + ds + '/upload only');
      quads.push({ s: s.slice(), p: p.slice(), o: o.slice(), g: target ?? g });
    });
    return quads;
  };
  const write = async (request: FastifyRequest, reply: FastifyReply) => {
    ctx.security.require(request.caller!, 'write');
    const label = requestLabel(request);
    const target = targetOf(request);
    const method = request.method as 'PUT' | 'POST' | 'DELETE';
    if (target === undefined && method !== 'POST') throw new GraphServerError('BAD_REQUEST', `${method} /${ds}/data needs ?default or ?graph=<iri>`);
    const quads = method === 'DELETE' ? [] : await bodyQuads(request, target);
    let result: { value: boolean; added: number; deleted: number };
    try {
      result = await withWriteScope(ctx, request.caller!, label, (scope) => {
        const ops: UpdateOp[] = [];
        if (method !== 'POST') {
          const g = target === '' ? 0 : scope.view.lookup(namedNode(target!.slice(1)));
          if (g !== undefined) {
            for (const q of scope.view.match({ g })) {
              ops.push({ type: 'delete', quad: { s: scope.view.key(q.s), p: scope.view.key(q.p), o: scope.view.key(q.o), g: target! } });
            }
          }
        }
        if (method === 'DELETE' && ops.length === 0 && target !== '') return false;
        for (const quad of quads) ops.push({ type: 'add', quad });
        scope.apply(ops);
        return true;
      });
    } catch (error) {
      audit(request, `gsp-${method.toLowerCase()}`, { outcome: 'failed', graph: target, code: (error as { code?: string }).code, label });
      throw error;
    }
    if (!result.value) throw new GraphServerError('NOT_FOUND', `no graph <${target!.slice(1)}> in /${ds}`);
    const txId = ctx.store.stats().txId;
    audit(request, `gsp-${method.toLowerCase()}`, { outcome: 'ok', graph: target, quads: quads.length, label, txId });
    if (method === 'DELETE') return reply.code(204).send();
    return reply.code(200).send({ quads: quads.length, txId });
  };
  for (const path of [`/${ds}/data`, `/${ds}/get`]) app.get(path, read);
  app.put(`/${ds}/data`, write);
  app.post(`/${ds}/data`, write);
  app.delete(`/${ds}/data`, write);
  for (const method of ['PUT', 'POST', 'DELETE'] as const) {
    app.route({ method, url: `/${ds}/get`, handler: async () => {
      throw new GraphServerError('METHOD_NOT_ALLOWED', `/${ds}/get is read-only: GET or HEAD`);
    } });
  }
}
