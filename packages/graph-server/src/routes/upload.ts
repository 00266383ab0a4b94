/**
 * `POST /{ds}/upload` (SPEC §4): raw RDF by Content-Type or one multipart file, labels by the
 * `Security-Label` header and the labels graph (SPEC §3), one atomic, durable transaction in the
 * caller's write scope (../writes.ts: labels and data of quads the caller cannot see are never
 * changed, and the reply does not tell whether there were any).
 *
 * The body is read whole first (../body-reader.ts: byte limit 413, idle and total timeouts 408,
 * spooled to a temporary file past `limits.spoolMemoryBytes`), then parsed and checked
 * (`prepareLoad`: syntax and label errors are 400), all without the store's writer lock; the lock
 * is held only for the commit.
 */
import type { FastifyInstance } from 'fastify';
import { formatFromContentType, formatFromExtension, type RdfFormat } from '@ianode/rdf';
import { prepareLoad, type LoadResult, type PreparedLoad } from '@ianode/store';
import { tooLarge } from '../body.js';
import type { SpooledBody } from '../body-reader.js';
import { GraphServerError } from '../errors.js';
import { isJsonLd, jsonLdToNQuads } from '../jsonld.js';
import { isRdfXml, rdfXmlToNQuads } from '../rdfxml.js';
import { audit, requestLabel, writeCounts } from '../writes.js';
import type { RouteContext } from './context.js';
import { closeAfterReply } from './respond.js';

const SUPPORTED = 'text/turtle, application/trig, application/n-triples, application/n-quads, application/ld+json, application/rdf+xml, or multipart/form-data with one file';

export function registerUpload(app: FastifyInstance, ctx: RouteContext): void {
  const { config, security } = ctx;
  const limit = config.limits.uploadBytes;
  app.post(`/${config.dataset.name}/upload`, async (request, reply) => {
    const caller = request.caller!;
    security.require(caller, 'write');
    const label = requestLabel(request, config.dataset.labels.legacy); // a malformed label is 400 before any byte is read
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
    const contentType = request.headers['content-type'];
    if (contentType === undefined || contentType.trim() === '') {
      throw new GraphServerError('BAD_REQUEST', `upload needs a Content-Type: ${SUPPORTED}`);
    }
    const deadline = ctx.bodies.deadline('upload body');
    let body: SpooledBody | undefined;
    let result: LoadResult;
    let bodyRead = false;
    try {
      let type = contentType;
      let fileName: string | undefined;
      let source: AsyncIterable<Uint8Array>;
      if (request.isMultipart()) {
        const file = await deadline.race(request.file({ limits: { fileSize: limit, files: 1 } }));
        if (file === undefined) throw new GraphServerError('BAD_REQUEST', 'multipart upload without a file part');
        type = file.mimetype;
        fileName = file.filename;
        source = file.file;
      } else {
        source = request.body as AsyncIterable<Uint8Array>;
      }
      const format = formatOf(type, fileName); // 415 before a byte of the body is read
      body = await ctx.bodies.spool(source, deadline, limit);
      bodyRead = true;
      deadline.stop();
      const prepared = await prepare(body, format, label, ctx.baseIRI, config.dataset.labels.legacy);
      result = await ctx.writer.load(caller, prepared);
    } catch (error) {
      audit(request, 'upload', { outcome: 'failed', code: (error as { code?: string }).code, label });
      // A body cut short (timeout, stop) leaves unread bytes: close the connection after the reply.
      if (!bodyRead) closeAfterReply(reply);
      throw error;
    } finally {
      deadline.stop();
      await body?.dispose();
    }
    ctx.metrics.uploadedQuads.inc(result.quads);
    const counts = writeCounts(result.outcome, result.txId);
    audit(request, 'upload', {
      outcome: 'ok', quads: result.quads, labelEntries: result.labels, inserted: counts.inserted, relabelled: counts.relabelled, label, txId: result.txId,
    });
    // docs/graph-server.md, "Write replies": what the body held, then what the write did.
    return reply.code(200).send({
      quads: result.quads,
      triples: result.triples,
      namedGraphQuads: result.quads - result.triples,
      labelEntries: result.labels,
      ...counts,
    });
  });
}

/** Media types SPEC §4 names that @ianode/rdf does not list. */
const EXTRA_TYPES: Readonly<Record<string, RdfFormat>> = { 'text/trig': 'application/trig' };

function essenceOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The body's format (JSON-LD and RDF/XML are converted to N-Quads first); 415 when it is none we read. */
function formatOf(contentType: string | undefined, fileName: string | undefined): RdfFormat | 'jsonld' | 'rdfxml' {
  if (isJsonLd(contentType, fileName)) return 'jsonld';
  if (isRdfXml(contentType, fileName)) return 'rdfxml';
  let format: RdfFormat | undefined = formatFromContentType(contentType) ?? EXTRA_TYPES[essenceOf(contentType)];
  if (format === undefined && fileName !== undefined) format = formatFromExtension(fileName);
  if (format === undefined) {
    throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `unsupported content type ${JSON.stringify(contentType)}${fileName ? ` for ${fileName}` : ''}: use ${SUPPORTED}`);
  }
  return format;
}

/** Parse and check the whole body, outside the writer lock. */
async function prepare(body: SpooledBody, format: RdfFormat | 'jsonld' | 'rdfxml', label: string | undefined, baseIRI: string | undefined, legacyLabels: boolean): Promise<PreparedLoad> {
  if (format === 'jsonld') {
    const nquads = await jsonLdToNQuads(await body.text(), baseIRI);
    return prepareLoad(nquads, { format: 'application/n-quads', label, baseIRI, legacyLabels });
  }
  if (format === 'rdfxml') {
    // Triples only (RDF/XML has no graphs): as N-Triples, so a labels graph cannot be named.
    const ntriples = await rdfXmlToNQuads(await body.text(), baseIRI);
    return prepareLoad(ntriples, { format: 'application/n-triples', label, baseIRI, legacyLabels });
  }
  return prepareLoad(body.chunks(), { format, label, baseIRI, legacyLabels });
}
