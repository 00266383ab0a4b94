/**
 * SPARQL 1.1 Graph Store HTTP Protocol reads on `/{ds}/data` and `/{ds}/get` (GET and HEAD):
 * `?default`, `?graph=<iri>`, or neither (the whole dataset). Reads go through the caller's view,
 * so a graph whose quads the caller cannot see answers 404 as if it did not exist. Writes are a
 * later issue (501).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { defaultGraph, factory, namedNode, type Dataset, type Quad } from '@ianode/rdf';
import { negotiateResultType, serialiseResult, N_TRIPLES, TRIG, TURTLE } from '../sparql-results.js';
import { GraphServerError } from '../errors.js';
import type { RouteContext } from './context.js';
import { sendChunks } from './respond.js';

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
  const writeLater = async (request: FastifyRequest) => {
    ctx.security.require(request.caller!, 'write');
    throw new GraphServerError('NOT_IMPLEMENTED', `graph store writes (${request.method} /${ds}/data) are not available yet (a later release); load data with POST /${ds}/upload`);
  };
  for (const path of [`/${ds}/data`, `/${ds}/get`]) app.get(path, read);
  app.put(`/${ds}/data`, writeLater);
  app.post(`/${ds}/data`, writeLater);
  app.delete(`/${ds}/data`, writeLater);
  for (const method of ['PUT', 'POST', 'DELETE'] as const) {
    app.route({ method, url: `/${ds}/get`, handler: async () => {
      throw new GraphServerError('METHOD_NOT_ALLOWED', `/${ds}/get is read-only: GET or HEAD`);
    } });
  }
}
