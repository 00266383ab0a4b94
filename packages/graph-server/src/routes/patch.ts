/**
 * `POST /{ds}/patch`: an RDF Patch (text form, `application/rdf-patch` or `text/rdf-patch`) applied
 * as ONE atomic, durable store transaction in the caller's write scope (../patch.ts,
 * ../writes.ts), labelled by the `Security-Label` header (else the dataset default), as the
 * reference's `/ds/patch` and its Kafka connector do. docs/graph-server.md, "RDF Patch".
 *
 * The body is read whole first (../body-reader.ts: byte limit 413, idle and total timeouts 408),
 * decoded as strict UTF-8 and parsed (a syntax error is 400 with line and column), all before the
 * writer lock; nothing is stored unless the whole patch is.
 */
import type { FastifyInstance } from 'fastify';
import { charsetOf, isUtf8Charset, mediaTypeEssence, parsePatch, type ParsedPatch } from '@ianode/rdf';
import { strictUtf8, tooLarge } from '../body.js';
import type { SpooledBody } from '../body-reader.js';
import { GraphServerError } from '../errors.js';
import { applyPatch, checkPatch } from '../patch.js';
import { audit } from '../request-audit.js';
import { requestLabel } from '../request-label.js';
import { writeCounts } from '../writes.js';
import { logWriter, submitPatch } from '../kafka/submit.js';
import type { RouteContext } from './context.js';
import { closeAfterReply } from './respond.js';

const TEXT_TYPES = new Set(['application/rdf-patch', 'text/rdf-patch']);
const SUPPORTED = 'application/rdf-patch or text/rdf-patch (the text form of RDF Patch, UTF-8)';

/** 415 unless the Content-Type is the text form of RDF Patch (in UTF-8). */
function checkContentType(contentType: string | undefined): void {
  if (contentType === undefined || contentType.trim() === '') throw new GraphServerError('BAD_REQUEST', `a patch needs a Content-Type: ${SUPPORTED}`);
  const essence = mediaTypeEssence(contentType);
  if (essence === 'application/rdf-patch+thrift') {
    throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `binary RDF Patch (application/rdf-patch+thrift) is not supported: send the text form as ${SUPPORTED}`);
  }
  if (!TEXT_TYPES.has(essence)) throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `unsupported content type ${JSON.stringify(contentType)}: a patch is ${SUPPORTED}`);
  const charset = charsetOf(contentType);
  if (charset !== undefined && !isUtf8Charset(charset)) throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `RDF Patch is UTF-8, not ${charset}`);
}

async function patchText(body: SpooledBody): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of body.chunks()) parts.push(chunk);
  return strictUtf8(Buffer.concat(parts), 'the patch (nothing was stored)');
}

export function registerPatch(app: FastifyInstance, ctx: RouteContext): void {
  const { config, security } = ctx;
  const limit = config.limits.uploadBytes;
  app.post(`/${config.dataset.name}/patch`, async (request, reply) => {
    const caller = request.caller!;
    security.require(caller, 'write');
    const label = requestLabel(request, config.dataset.labels.legacy); // 400 before any byte is read
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
    checkContentType(request.headers['content-type']); // 415 before any byte is read
    const deadline = ctx.bodies.deadline('patch body');
    let body: SpooledBody | undefined;
    let bodyRead = false;
    let patch: ParsedPatch;
    let result;
    let offset: bigint | undefined;
    try {
      body = await ctx.bodies.spool(request.body as AsyncIterable<Uint8Array>, deadline, limit);
      bodyRead = true;
      deadline.stop();
      const text = await patchText(body);
      patch = parsePatch(text);
      checkPatch(patch);
      const log = logWriter(ctx);
      if (log) {
        // CQRS: checked here, applied from the topic (../kafka/submit.ts).
        const submitted = await submitPatch(log, caller, text, label);
        result = submitted.result;
        offset = submitted.offset;
      } else result = await ctx.writer.transaction(caller, (tx) => applyPatch(tx, patch, label));
    } catch (error) {
      audit(request, 'patch', { outcome: 'failed', code: (error as { code?: string }).code, label });
      if (!bodyRead) closeAfterReply(reply);
      throw error;
    } finally {
      deadline.stop();
      await body?.dispose();
    }
    const counts = writeCounts(result.outcome, result.txId);
    const { rows, transactions, aborted } = result.value;
    audit(request, 'patch', {
      outcome: 'ok', rows, transactions, aborted, patchId: patch.id, inserted: counts.inserted, relabelled: counts.relabelled, deleted: counts.deleted, unchanged: counts.unchanged, labels: counts.labels, label, txId: counts.txId,
    });
    // docs/graph-server.md, "Write replies" and "RDF Patch": what the patch held, then what the write did.
    if (offset !== undefined) reply.header('ianode-offset', String(offset));
    return reply.code(200).send({ rows, transactions, aborted, ...counts, ...(offset === undefined ? {} : { offset: String(offset) }) });
  });
}
