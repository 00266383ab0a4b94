/**
 * `POST /{ds}/upload` (SPEC §4): raw RDF by Content-Type or one multipart file, labels by the
 * `Security-Label` header and the labels graph (SPEC §3), one atomic, durable transaction.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validateLabel } from '@ianode/abac';
import { formatFromContentType, formatFromExtension, type RdfFormat } from '@ianode/rdf';
import type { LoadResult, QuadStore } from '@ianode/store';
import { limitBytes, readText, tooLarge } from '../body.js';
import { GraphServerError } from '../errors.js';
import { isJsonLd, jsonLdToNQuads } from '../jsonld.js';
import type { RouteContext } from './context.js';

const SUPPORTED = 'text/turtle, application/trig, application/n-triples, application/n-quads, application/ld+json, or multipart/form-data with one file';

export function registerUpload(app: FastifyInstance, ctx: RouteContext): void {
  const { store, config, security } = ctx;
  const limit = config.limits.uploadBytes;
  app.post(`/${config.dataset.name}/upload`, async (request, reply) => {
    security.require(request.caller!, 'write');
    const label = securityLabel(request);
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
    const contentType = request.headers['content-type'];
    if (contentType === undefined || contentType.trim() === '') {
      throw new GraphServerError('BAD_REQUEST', `upload needs a Content-Type: ${SUPPORTED}`);
    }
    let result: LoadResult;
    if (request.isMultipart()) {
      const file = await request.file({ limits: { fileSize: limit, files: 1 } });
      if (file === undefined) throw new GraphServerError('BAD_REQUEST', 'multipart upload without a file part');
      result = await loadBody(store, file.file, file.mimetype, file.filename, label, limit, ctx.baseIRI);
    } else {
      result = await loadBody(store, request.body as AsyncIterable<Uint8Array>, contentType, undefined, label, limit, ctx.baseIRI);
    }
    ctx.metrics.uploadedQuads.inc(result.quads);
    request.log.info({ user: request.caller!.user, quads: result.quads, labels: result.labels, txId: result.txId }, 'upload stored');
    return reply.code(200).send({
      quads: result.quads,
      triples: result.triples,
      labels: result.labels,
      txId: result.txId,
      // Fuseki's names, for its clients.
      count: result.quads,
      tripleCount: result.triples,
      quadCount: result.quads - result.triples,
    });
  });
}

/** Media types SPEC §4 names that @ianode/rdf does not list. */
const EXTRA_TYPES: Readonly<Record<string, RdfFormat>> = { 'text/trig': 'application/trig' };

function essenceOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function securityLabel(request: FastifyRequest): string | undefined {
  const header = request.headers['security-label'];
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw new GraphServerError('BAD_REQUEST', 'one Security-Label header per upload');
  validateLabel(header); // LabelSyntaxError -> 400 with the position, before any byte is read
  return header;
}

async function loadBody(
  store: QuadStore,
  body: AsyncIterable<Uint8Array>,
  contentType: string | undefined,
  fileName: string | undefined,
  label: string | undefined,
  limit: number,
  baseIRI: string | undefined,
): Promise<LoadResult> {
  const limited = limitBytes(body, limit);
  if (isJsonLd(contentType, fileName)) {
    const nquads = await jsonLdToNQuads(await readText(limited), baseIRI);
    return store.load(nquads, { format: 'application/n-quads', label, baseIRI });
  }
  let format: RdfFormat | undefined = formatFromContentType(contentType) ?? EXTRA_TYPES[essenceOf(contentType)];
  if (format === undefined && fileName !== undefined) format = formatFromExtension(fileName);
  if (format === undefined) {
    // Drain nothing: the request is refused before the store sees a byte.
    throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `unsupported content type ${JSON.stringify(contentType)}${fileName ? ` for ${fileName}` : ''}: use ${SUPPORTED}`);
  }
  return store.load(limited, { format, label, baseIRI });
}
