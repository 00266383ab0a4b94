/**
 * SPARQL 1.1 Graph Store HTTP Protocol on `/{ds}/data` (and read-only `/{ds}/get`).
 *
 * Graphs are named indirectly (`?default`, `?graph=<iri>`: the IRI as given, decoded once) or
 * directly: a request to `/{ds}/data/<path>` names the graph whose IRI is the request URL
 * (`http://<Host header><path>`, ../request-iri.ts). Either way the same handlers below run: the
 * dataset `onRequest` hook has authenticated the caller, reads need the `read` permission and go
 * through the caller's view (a graph whose quads the caller cannot see answers 404 as if it did not
 * exist), writes need `write` and run in the caller's write scope (../writes.ts), audited.
 *
 * - GET / HEAD: the graph (Turtle by default), the default graph, or with neither parameter the
 *   whole dataset (TriG, N-Quads, JSON-LD). 404 when the graph has no visible quad.
 * - PUT: replaces the caller's visible quads of the graph with the body; 201 when the graph had no
 *   visible quad (created), else 200. DELETE: removes them; 204, or 404 when there were none.
 * - POST to a graph: adds the body; 201 when that created the graph, else 200.
 * - POST to `/{ds}/data` without `?default` / `?graph=`: a TriG or N-Quads body is added to the
 *   dataset as it is (200); triples (Turtle, N-Triples, JSON-LD, RDF/XML, multipart) make a NEW graph named
 *   `http://<Host>/{ds}/data/<uuid>` (201, `Location:` that IRI, which is also its direct URL).
 * - Bodies: one RDF document by Content-Type, or multipart/form-data with any number of RDF parts
 *   (format from each part's type, else its file name). Inserted quads take the `Security-Label`
 *   header or the default label. Relative IRIs in a body resolve against the configured base IRI,
 *   else the graph's IRI (when http/https), else the endpoint URL.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatFromContentType, formatFromExtension, mediaTypeEssence, namedNode, parseQuadKeys, termToKey, type RdfFormat } from '@ianode/rdf';
import type { UpdateOp } from '@ianode/sparql';
import { isLabelsGraph } from '@ianode/store';
import { tooLarge } from '../body.js';
import { guarded, type BodyDeadline } from '../body-reader.js';
import { isJsonLd, jsonLdToNQuads } from '../jsonld.js';
import { isRdfXml, rdfXmlToNQuads } from '../rdfxml.js';
import { directGraphIri, parameterIri, requestOrigin } from '../request-iri.js';
import { audit } from '../request-audit.js';
import { requestLabel } from '../request-label.js';
import { applyGraphStoreWrite, writeCounts } from '../writes.js';
import { logWriter, submitGraphStoreWrite } from '../kafka/submit.js';
import type { GraphTarget } from '../pool/graph-read.js';
import { GraphServerError } from '../errors.js';
import type { RouteContext } from './context.js';
import { closeAfterReply, sendStream, varyNegotiated } from './respond.js';
import { acceptOf } from '../format-param.js';

const SUPPORTED = 'text/turtle, application/n-triples, application/ld+json, application/rdf+xml, application/n-quads, application/trig, or multipart/form-data of those';
/** Most parts of one multipart body. */
const MAX_PARTS = 64;

type Target = GraphTarget;

/** One RDF document of a request body. */
interface BodyPart {
  text: string;
  format: RdfFormat | 'jsonld' | 'rdfxml';
}

/** The RDF format of a media type (and file name, for multipart parts), or undefined. */
function formatOf(contentType: string | undefined, fileName?: string): BodyPart['format'] | undefined {
  if (isJsonLd(contentType, fileName)) return 'jsonld';
  if (isRdfXml(contentType, fileName)) return 'rdfxml';
  const essence = mediaTypeEssence(contentType);
  const format = formatFromContentType(contentType) ?? (essence === 'text/trig' ? 'application/trig' : undefined);
  if (format !== undefined) return format;
  return fileName === undefined ? undefined : formatFromExtension(fileName);
}

const isQuadFormat = (format: BodyPart['format']) => format === 'application/trig' || format === 'application/n-quads';

export function registerGraphStore(app: FastifyInstance, ctx: RouteContext): void {
  const ds = ctx.config.dataset.name;
  const dataPath = `/${ds}/data`;

  /** `?default` / `?graph=` / neither. */
  const indirectTarget = (request: FastifyRequest): Target => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    const graphParam = query.graph;
    const isDefault = Object.prototype.hasOwnProperty.call(query, 'default');
    if (Array.isArray(graphParam)) throw new GraphServerError('BAD_REQUEST', 'give one graph= parameter');
    if (isDefault && graphParam !== undefined) throw new GraphServerError('BAD_REQUEST', 'give ?default or ?graph=, not both');
    if (isDefault) return { kind: 'default' };
    if (typeof graphParam !== 'string') return { kind: 'dataset' };
    return { kind: 'graph', iri: parameterIri(graphParam, ctx.baseIRI, 'graph=') };
  };
  /** `/{ds}/data/<path>`: the graph named by the request URL. */
  const directTarget = (request: FastifyRequest): Target => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    if (query.graph !== undefined || Object.prototype.hasOwnProperty.call(query, 'default')) {
      throw new GraphServerError('BAD_REQUEST', `a graph URL under ${dataPath}/ names its graph itself: no ?graph= or ?default`);
    }
    return { kind: 'graph', iri: directGraphIri(request, dataPath) };
  };

  const read = (targetOf: (request: FastifyRequest) => Target) => async (request: FastifyRequest, reply: FastifyReply) => {
    varyNegotiated(reply);
    ctx.security.require(request.caller!, 'read');
    const target = targetOf(request);
    const { accept, format } = acceptOf(request);
    // Looked up, negotiated and serialised on a query worker, over the caller's view there.
    const answer = await ctx.queries.graph(request.caller!, { type: 'graph', target, accept, format, datasetName: ds });
    return sendStream(request, reply, answer.mediaType, answer);
  };

  /** The body's RDF documents, read whole (before the transaction starts) under the body
   * deadline (408) and the upload limit (413). */
  const bodyParts = async (request: FastifyRequest, deadline: BodyDeadline): Promise<BodyPart[]> => {
    const limit = ctx.config.limits.uploadBytes;
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
    const contentType = request.headers['content-type'];
    if (contentType === undefined || contentType.trim() === '') throw new GraphServerError('BAD_REQUEST', `a graph store write needs a Content-Type: ${SUPPORTED}`);
    const readWhole = async (source: AsyncIterable<Uint8Array | string>, remaining: number): Promise<string> => {
      const body = await ctx.bodies.spool(source, deadline, remaining);
      try {
        return await body.text();
      } finally {
        await body.dispose();
      }
    };
    if (request.isMultipart()) {
      const parts: BodyPart[] = [];
      let remaining = limit;
      for await (const part of guarded(request.parts({ limits: { fileSize: limit, files: MAX_PARTS, parts: MAX_PARTS } }), deadline)) {
        const fileName = part.type === 'file' ? part.filename : undefined;
        // A plain form field is text/plain by default, which is also N-Triples' old media type:
        // only a field that declares an RDF type is RDF.
        const plainField = part.type === 'field' && /^text\/plain\b/i.test(part.mimetype);
        const format = plainField ? undefined : formatOf(part.mimetype, fileName);
        if (format === undefined) {
          if (part.type === 'file') part.file.resume();
          throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `multipart part ${JSON.stringify(part.fieldname)} is not RDF (${part.mimetype}): use ${SUPPORTED}`);
        }
        const text = part.type === 'file' ? await readWhole(part.file, remaining) : String(part.value);
        remaining -= Buffer.byteLength(text);
        if (remaining < 0) throw tooLarge(limit);
        parts.push({ text, format });
      }
      if (parts.length === 0) throw new GraphServerError('BAD_REQUEST', 'a multipart graph store write without an RDF part');
      return parts;
    }
    const format = formatOf(contentType);
    if (format === undefined) throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `unsupported content type ${JSON.stringify(contentType)} for a graph store write: use ${SUPPORTED}`);
    const body = request.body as AsyncIterable<Uint8Array> | string | undefined;
    const source: AsyncIterable<Uint8Array | string> = typeof body === 'string' || body === undefined ? ([body ?? ''] as unknown as AsyncIterable<string>) : body;
    return [{ text: await readWhole(source, limit), format }];
  };

  /** The parts' quads as keys; triples go to `graphKey` (undefined = a dataset body keeps its graphs). */
  const bodyQuads = async (request: FastifyRequest, parts: BodyPart[], graphKey: string | undefined, baseIRI: string | undefined): Promise<UpdateOp['quad'][]> => {
    const quads: UpdateOp['quad'][] = [];
    for (const part of parts) {
      let text = part.text;
      let format: RdfFormat;
      if (part.format === 'jsonld') {
        text = await jsonLdToNQuads(text, baseIRI);
        format = 'application/n-quads';
      } else if (part.format === 'rdfxml') {
        text = await rdfXmlToNQuads(text, baseIRI);
        format = 'application/n-triples'; // RDF/XML has no graphs
      } else format = part.format;
      parseQuadKeys(text, { format, baseIRI }, (s, p, o, g) => {
        if (g !== '' && graphKey !== undefined) throw new GraphServerError('BAD_REQUEST', 'the body has named graphs: a write to one graph takes triples (Turtle, N-Triples, JSON-LD, RDF/XML)');
        if (isLabelsGraph(g)) throw new GraphServerError('BAD_REQUEST', `labels graphs are read by POST /${ds}/upload only`);
        quads.push({ s: s.slice(), p: p.slice(), o: o.slice(), g: graphKey ?? g });
      });
    }
    return quads;
  };

  /** Base IRI of a body: configured, else the graph's IRI (http/https), else the endpoint URL. */
  const bodyBase = (request: FastifyRequest, target: Target): string | undefined => {
    if (ctx.baseIRI !== undefined) return ctx.baseIRI;
    if (target.kind === 'graph' && /^https?:\/\//i.test(target.iri)) return target.iri;
    try {
      return requestOrigin(request) + dataPath;
    } catch {
      return undefined;
    }
  };

  const write = (targetOf: (request: FastifyRequest) => Target) => async (request: FastifyRequest, reply: FastifyReply) => {
    ctx.security.require(request.caller!, 'write');
    const label = requestLabel(request, ctx.config.dataset.labels.legacy);
    let target = targetOf(request);
    const method = request.method as 'PUT' | 'POST' | 'DELETE';
    if (target.kind === 'dataset' && method !== 'POST') throw new GraphServerError('BAD_REQUEST', `${method} ${dataPath} needs ?default or ?graph=<iri> (or a graph URL under ${dataPath}/)`);
    let newGraph: string | undefined;
    let quads: UpdateOp['quad'][] = [];
    if (method !== 'DELETE') {
      const deadline = ctx.bodies.deadline('graph store body');
      let parts: BodyPart[];
      try {
        parts = await bodyParts(request, deadline);
      } catch (error) {
        closeAfterReply(reply); // the rest of the body is not read
        throw error;
      } finally {
        deadline.stop();
      }
      if (target.kind === 'dataset' && !(parts.length === 1 && isQuadFormat(parts[0]!.format) && !request.isMultipart())) {
        // POST of a graph to the graph store: the server names a new graph (GSP §5.5).
        newGraph = `${requestOrigin(request)}${dataPath}/${randomUUID()}`;
        target = { kind: 'graph', iri: newGraph };
      }
      const graphKey = target.kind === 'default' ? '' : target.kind === 'graph' ? termToKey(namedNode(target.iri)) : undefined;
      quads = await bodyQuads(request, parts, graphKey, bodyBase(request, target));
    }
    const graphName = target.kind === 'graph' ? target.iri : target.kind === 'default' ? 'default' : undefined;
    let result: Awaited<ReturnType<typeof applyGraphStoreWrite>>;
    let offset: bigint | undefined;
    try {
      const log = logWriter(ctx);
      if (log) {
        // CQRS: checked here, applied from the topic (../kafka/submit.ts).
        const submitted = await submitGraphStoreWrite(log, request.caller!, { method, target, quads, label });
        result = submitted.result;
        offset = submitted.offset;
        reply.header('ianode-offset', String(offset));
      } else result = await applyGraphStoreWrite(ctx, request.caller!, { method, target, quads, label });
    } catch (error) {
      audit(request, `gsp-${method.toLowerCase()}`, { outcome: 'failed', graph: graphName, code: (error as { code?: string }).code, label });
      throw error;
    }
    const txId = result.txId;
    const counts = writeCounts(result.outcome, txId);
    audit(request, `gsp-${method.toLowerCase()}`, {
      outcome: 'ok', graph: graphName, created: result.value.created, quads: quads.length, inserted: counts.inserted, relabelled: counts.relabelled, deleted: counts.deleted, unchanged: counts.unchanged, labels: counts.labels, label, txId,
    });
    if (method === 'DELETE') return reply.code(204).send();
    // `quads`: the quads in the body; the rest says what they did (docs/graph-server.md, "Write replies").
    const logged = offset === undefined ? {} : { offset: String(offset) };
    if (newGraph !== undefined) return reply.code(201).header('location', newGraph).send({ quads: quads.length, ...counts, graph: newGraph, ...logged });
    return reply.code(result.value.created ? 201 : 200).send({ quads: quads.length, ...counts, ...logged });
  };

  const readOnly = async () => {
    throw new GraphServerError('METHOD_NOT_ALLOWED', `/${ds}/get is read-only: GET or HEAD`, { headers: { allow: 'GET, HEAD' } });
  };
  const noPatch = async () => {
    throw new GraphServerError('METHOD_NOT_ALLOWED', 'PATCH is not supported: PUT replaces a graph, POST adds to it', { headers: { allow: 'GET, HEAD, PUT, POST, DELETE' } });
  };
  // GET routes answer HEAD too (Fastify's exposeHeadRoutes): same handler, no body.
  app.get(dataPath, read(indirectTarget));
  app.get(`/${ds}/get`, read(indirectTarget));
  app.get(`${dataPath}/*`, read(directTarget));
  for (const method of ['PUT', 'POST', 'DELETE'] as const) {
    app.route({ method, url: dataPath, handler: write(indirectTarget) });
    app.route({ method, url: `${dataPath}/*`, handler: write(directTarget) });
    app.route({ method, url: `/${ds}/get`, config: { notAllowed: true }, handler: readOnly });
  }
  // 405-only routes are left out of OPTIONS' Allow (`notAllowed`, @ianode/service cors.ts).
  app.route({ method: 'PATCH', url: dataPath, config: { notAllowed: true }, handler: noPatch });
  app.route({ method: 'PATCH', url: `${dataPath}/*`, config: { notAllowed: true }, handler: noPatch });
}
