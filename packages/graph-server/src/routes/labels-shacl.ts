/**
 * Two endpoints of the reference IA node (RDF-ABAC on Fuseki), both answered by a query worker over
 * the caller's view (../pool/labels-read.ts, ../pool/shacl-run.ts):
 *
 * - `GET /{ds}/labels` (and POST, as the reference): the labels of the dataset as RDF, in
 *   RDF-ABAC's labels-graph shape (`[ authz:pattern "…" ; authz:label "…" ]`), for callers that
 *   satisfy the `admin` permission. Turtle by default; any graph format by Accept or `format=`.
 *   The dump covers the caller's view: an administrator sees the labels of the data they may read
 *   (the reference dumps every label to whoever may call the endpoint; docs/graph-server.md).
 * - `POST /{ds}/shacl[?graph=default|union|<iri>]` (`read` permission): the body is a shapes graph
 *   (Turtle, N-Triples, TriG, N-Quads, JSON-LD, RDF/XML); the answer a SHACL validation report of
 *   the named graph of the caller's view (Fuseki's /shacl: `?graph=`, default graph when absent;
 *   `?default` as the reference's tests write it). Turtle by default.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatFromContentType, mediaTypeEssence, type RdfFormat } from '@ianode/rdf';
import { GraphServerError } from '../errors.js';
import { acceptOf } from '../format-param.js';
import { isJsonLd, jsonLdToNQuads } from '../jsonld.js';
import { isRdfXml, rdfXmlToNQuads } from '../rdfxml.js';
import { parameterIri, requestOrigin } from '../request-iri.js';
import type { ShaclTarget } from '../pool/shacl-run.js';
import type { RouteContext } from './context.js';
import { auditRequest } from '../request-audit.js';
import { closeAfterReply, sendStream, varyNegotiated } from './respond.js';

const SHAPES_TYPES = 'text/turtle, application/n-triples, application/trig, application/n-quads, application/ld+json or application/rdf+xml';

/** `?graph=default|union|<iri>` or `?default`; neither = the default graph. */
export function shaclTarget(query: Record<string, unknown>, baseIRI: string | undefined): ShaclTarget {
  const graph = query.graph;
  const isDefault = Object.prototype.hasOwnProperty.call(query, 'default');
  if (Array.isArray(graph)) throw new GraphServerError('BAD_REQUEST', 'give one graph= parameter');
  if (graph !== undefined && typeof graph !== 'string') throw new GraphServerError('BAD_REQUEST', 'graph= must be default, union or a graph IRI');
  if (isDefault && graph !== undefined) throw new GraphServerError('BAD_REQUEST', 'give ?default or ?graph=, not both');
  if (graph === undefined || graph === 'default') return { kind: 'default' };
  if (graph === 'union') return { kind: 'union' };
  return { kind: 'graph', iri: parameterIri(graph, baseIRI, 'graph=') };
}

export function registerLabelsAndShacl(app: FastifyInstance, ctx: RouteContext): void {
  const ds = ctx.config.dataset.name;

  const labels = async (request: FastifyRequest, reply: FastifyReply) => {
    varyNegotiated(reply);
    ctx.security.require(request.caller!, 'admin');
    auditRequest(request, 'admin', 'labels-dump', { outcome: 'ok' });
    const { accept, format } = acceptOf(request);
    const answer = await ctx.queries.labels(request.caller!, { type: 'labels', accept, format });
    return sendStream(request, reply, answer.mediaType, answer);
  };
  app.get(`/${ds}/labels`, labels);
  app.post(`/${ds}/labels`, labels);

  app.post(`/${ds}/shacl`, async (request, reply) => {
    varyNegotiated(reply);
    ctx.security.require(request.caller!, 'read');
    const target = shaclTarget((request.query ?? {}) as Record<string, unknown>, ctx.baseIRI);
    const contentType = request.headers['content-type'];
    const essence = mediaTypeEssence(contentType);
    const jsonLd = isJsonLd(contentType);
    const rdfXml = isRdfXml(contentType);
    const format: RdfFormat | undefined = formatFromContentType(contentType) ?? (essence === 'text/trig' ? 'application/trig' : undefined);
    if (!jsonLd && !rdfXml && format === undefined) {
      closeAfterReply(reply);
      throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `POST /${ds}/shacl takes a shapes graph: Content-Type ${SHAPES_TYPES}, not ${JSON.stringify(contentType ?? '')}`);
    }
    const limit = ctx.config.limits.requestBytes;
    const deadline = ctx.bodies.deadline('shapes graph');
    let text: string;
    try {
      const body = request.body as AsyncIterable<Uint8Array> | string | undefined;
      const source: AsyncIterable<Uint8Array | string> = typeof body === 'string' || body === undefined ? ([body ?? ''] as unknown as AsyncIterable<string>) : body;
      const spooled = await ctx.bodies.spool(source, deadline, limit);
      try {
        text = await spooled.text();
      } finally {
        await spooled.dispose();
      }
    } catch (error) {
      closeAfterReply(reply);
      throw error;
    } finally {
      deadline.stop();
    }
    if (text.trim() === '') throw new GraphServerError('BAD_REQUEST', `POST /${ds}/shacl needs a shapes graph in the body (${SHAPES_TYPES})`);
    let baseIRI = ctx.baseIRI;
    if (baseIRI === undefined) {
      try {
        baseIRI = `${requestOrigin(request)}/${ds}/shacl`;
      } catch {
        baseIRI = undefined;
      }
    }
    let shapes = text;
    let shapesFormat: RdfFormat = format ?? 'application/n-quads';
    if (jsonLd) shapes = await jsonLdToNQuads(text, baseIRI);
    else if (rdfXml) {
      shapes = await rdfXmlToNQuads(text, baseIRI);
      shapesFormat = 'application/n-triples';
    }
    const { accept, format: formatParam } = acceptOf(request);
    const queryTimeout = ctx.config.limits.queryTimeoutMs;
    const answer = await ctx.queries.shacl(request.caller!, {
      type: 'shacl', shapes, format: shapesFormat, baseIRI, target, accept, formatParam, datasetName: ds,
      deadline: queryTimeout > 0 ? Date.now() + queryTimeout : undefined,
    });
    return sendStream(request, reply, answer.mediaType, answer);
  });
}
