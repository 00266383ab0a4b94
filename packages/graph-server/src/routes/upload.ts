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
import type { LoadResult } from '@ianode/store';
import { tooLarge } from '../body.js';
import type { SpooledBody } from '../body-reader.js';
import { GraphServerError } from '../errors.js';
import { formatOf, prepare, UPLOAD_TYPES } from '../rdf-body.js';
import { audit } from '../request-audit.js';
import { requestLabel } from '../request-label.js';
import { writeCounts } from '../writes.js';
import { logWriter, submitLoad } from '../kafka/submit.js';
import type { RouteContext } from './context.js';
import { closeAfterReply } from './respond.js';

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
      throw new GraphServerError('BAD_REQUEST', `upload needs a Content-Type: ${UPLOAD_TYPES}`);
    }
    const deadline = ctx.bodies.deadline('upload body');
    let body: SpooledBody | undefined;
    let result: LoadResult;
    let bodyRead = false;
    let offset: bigint | undefined;
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
      const log = logWriter(ctx);
      if (log) {
        // CQRS: checked here, applied from the topic (../kafka/submit.ts).
        const submitted = await submitLoad(log, caller, body, format, label, ctx.baseIRI);
        result = submitted.result;
        offset = submitted.offset;
      } else result = await ctx.writer.load(caller, prepared);
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
      outcome: 'ok', quads: result.quads, labelEntries: result.labels, inserted: counts.inserted, relabelled: counts.relabelled, deleted: counts.deleted, unchanged: counts.unchanged, labels: counts.labels, label, txId: result.txId,
    });
    if (offset !== undefined) reply.header('ianode-offset', String(offset));
    // docs/graph-server.md, "Write replies": what the body held, then what the write did.
    return reply.code(200).send({
      quads: result.quads,
      triples: result.triples,
      namedGraphQuads: result.quads - result.triples,
      labelEntries: result.labels,
      ...counts,
      ...(offset === undefined ? {} : { offset: String(offset) }),
    });
  });
}
