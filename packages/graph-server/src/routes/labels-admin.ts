/**
 * Label administration (docs/graph-server.md, "Label administration"), for callers that satisfy
 * the dataset's `admin` permission, each answered over the caller's own view (nothing returned
 * depends on data the caller cannot see; an administrator whose attributes satisfy every label
 * sees all of it), each with an audit record:
 *
 * - `GET /{ds}/labels/stats`: the labels in use with their quad counts (JSON), on a query worker.
 * - `GET /{ds}/labels/quads?label=L[&limit=N]`: the quads carrying label L (N-Quads; JSON with
 *   `Accept: application/json`), at most N (default 1000, at most 1,000,000), on a query worker.
 * - `POST /{ds}/labels/relabel` `{ "pattern": { "s"?, "p"?, "o"?, "g"? }, "from"?, "to" }`: every
 *   quad of the caller's view matching the pattern (N-Triples terms; absent = any), and carrying
 *   label `from` when given, gets label `to`, in ONE transaction through the write boundary
 *   (../writes.ts): a quad the caller cannot see is untouched, and a `to` the caller could not
 *   read is refused as for any write.
 */
import type { FastifyInstance } from 'fastify';
import { readLabel } from '@ianode/abac';
import { mediaTypeEssence, parseQuads, termToKey, type Term } from '@ianode/rdf';
import type { KeyQuad, SnapshotDataset } from '@ianode/store';
import { GraphServerError } from '../errors.js';
import { logWriter } from '../kafka/submit.js';
import { auditRequest } from '../request-audit.js';
import { writeCounts } from '../writes.js';
import type { RouteContext } from './context.js';
import { closeAfterReply, sendStream } from './respond.js';

const MAX_LIMIT = 1_000_000;
const POSITIONS = ['s', 'p', 'o', 'g'] as const;
type Position = (typeof POSITIONS)[number];

/** One N-Triples term of a pattern position, parsed by the project's N-Quads parser (a statement
 * with placeholders in the other positions). Blank nodes are refused: their labels in the store
 * are not the ones a client wrote. */
export function patternTerm(text: unknown, position: Position): Term {
  const where = `pattern.${position}`;
  if (typeof text !== 'string' || text.trim() === '') throw new GraphServerError('BAD_REQUEST', `${where} must be an N-Triples term (e.g. <http://example.org/x> or "text"), got ${JSON.stringify(text)}`);
  const term = text.trim();
  if (term.startsWith('_:')) throw new GraphServerError('BAD_REQUEST', `${where}: blank nodes cannot be named in a pattern; leave the position out to match any`);
  const parts: Record<Position, string> = { s: '<urn:ianode:s>', p: '<urn:ianode:p>', o: '<urn:ianode:o>', g: '' };
  parts[position] = term;
  let quads;
  try {
    quads = parseQuads(`${parts.s} ${parts.p} ${parts.o}${parts.g === '' ? '' : ` ${parts.g}`} .\n`, { format: 'application/n-quads' }).quads;
  } catch (error) {
    throw new GraphServerError('BAD_REQUEST', `${where} is not an N-Triples term allowed there: ${(error as Error).message}`);
  }
  if (quads.length !== 1) throw new GraphServerError('BAD_REQUEST', `${where} must be one N-Triples term`);
  const quad = quads[0]!;
  return { s: quad.subject, p: quad.predicate, o: quad.object, g: quad.graph }[position] as Term;
}

function labelParam(text: unknown, where: string, legacy: boolean): string {
  if (typeof text !== 'string' || text.trim() === '') throw new GraphServerError('BAD_REQUEST', `${where} must be a label expression`);
  return readLabel(text, { legacy });
}

export function registerLabelAdmin(app: FastifyInstance, ctx: RouteContext): void {
  const ds = ctx.config.dataset.name;
  const { defaultLabel, labels } = ctx.config.dataset;

  app.get(`/${ds}/labels/stats`, async (request, reply) => {
    const caller = request.caller!;
    ctx.security.require(caller, 'admin');
    auditRequest(request, 'admin', 'label-stats', { outcome: 'ok' });
    const answer = await ctx.queries.labels(caller, { type: 'labels', mode: 'stats', accept: 'application/json', defaultLabel });
    return sendStream(request, reply, answer.mediaType, answer);
  });

  app.get(`/${ds}/labels/quads`, async (request, reply) => {
    const caller = request.caller!;
    ctx.security.require(caller, 'admin');
    const query = (request.query ?? {}) as Record<string, unknown>;
    const label = labelParam(query.label, 'label=', labels.legacy);
    let limit = 1000;
    if (query.limit !== undefined) {
      if (typeof query.limit !== 'string' || !/^\d{1,7}$/.test(query.limit) || Number(query.limit) < 1 || Number(query.limit) > MAX_LIMIT) {
        throw new GraphServerError('BAD_REQUEST', `limit= must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(query.limit)}`);
      }
      limit = Number(query.limit);
    }
    auditRequest(request, 'admin', 'label-quads', { outcome: 'ok', label, limit });
    const accept = request.headers.accept;
    const answer = await ctx.queries.labels(caller, { type: 'labels', mode: 'quads', accept, defaultLabel, label, limit });
    reply.header('vary', 'Accept');
    return sendStream(request, reply, answer.mediaType, answer);
  });

  app.post(`/${ds}/labels/relabel`, async (request, reply) => {
    const caller = request.caller!;
    ctx.security.require(caller, 'admin');
    const where = `POST /${ds}/labels/relabel`;
    let from: string | undefined;
    let to: string | undefined;
    try {
      const type = mediaTypeEssence(request.headers['content-type']);
      if (type !== 'application/json') {
        closeAfterReply(reply);
        throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `${where} takes application/json, not ${JSON.stringify(type)}`);
      }
      const body = request.body as Record<string, unknown> | undefined;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new GraphServerError('BAD_REQUEST', `${where} takes a JSON object { "pattern": { "s"?, "p"?, "o"?, "g"? }, "from"?, "to" } (Content-Type: application/json)`);
      }
      const extra = Object.keys(body).filter((key) => !['pattern', 'from', 'to'].includes(key));
      if (extra.length > 0) throw new GraphServerError('BAD_REQUEST', `${where}: unknown field ${JSON.stringify(extra[0])} (allowed: pattern, from, to)`);
      const rawPattern = body.pattern ?? {};
      if (rawPattern === null || typeof rawPattern !== 'object' || Array.isArray(rawPattern)) throw new GraphServerError('BAD_REQUEST', `${where}: pattern must be an object { "s"?, "p"?, "o"?, "g"? }`);
      const unknown = Object.keys(rawPattern).filter((key) => !(POSITIONS as readonly string[]).includes(key));
      if (unknown.length > 0) throw new GraphServerError('BAD_REQUEST', `${where}: unknown pattern position ${JSON.stringify(unknown[0])} (allowed: s, p, o, g)`);
      const pattern: Partial<Record<Position, Term>> = {};
      for (const position of POSITIONS) {
        const text = (rawPattern as Record<string, unknown>)[position];
        if (text !== undefined) pattern[position] = patternTerm(text, position);
      }
      to = labelParam(body.to, 'to', labels.legacy);
      from = body.from === undefined ? undefined : labelParam(body.from, 'from', labels.legacy);
      if (logWriter(ctx) !== undefined) {
        throw new GraphServerError('NOT_IMPLEMENTED', `${where}: this dataset's writes go through its Kafka topic (dataset.kafka.writes: log); relabel by a write through the topic (an upload with a labels graph)`);
      }
      const target = to;
      const result = await ctx.writer.transaction(caller, (tx, view) => {
        const snapshot = view as SnapshotDataset;
        const ids: Partial<Record<Position, number>> = {};
        for (const position of POSITIONS) {
          const term = pattern[position];
          if (term === undefined) continue;
          const id = snapshot.lookup(term);
          if (id === undefined) return { matched: 0 };
          ids[position] = id;
        }
        // The labels of the view's quads that have one of their own; the rest carry the default.
        const own = new Map<string, string>();
        if (from !== undefined) for (const q of snapshot.labelled()) own.set(`${q.g} ${q.s} ${q.p} ${q.o}`, q.label);
        let matched = 0;
        for (const q of snapshot.match(ids)) {
          if (from !== undefined && (own.get(`${q.g} ${q.s} ${q.p} ${q.o}`) ?? defaultLabel) !== from) continue;
          const quad: KeyQuad = { s: snapshot.key(q.s), p: snapshot.key(q.p), o: snapshot.key(q.o), g: q.g === 0 ? '' : snapshot.key(q.g) };
          tx.add(quad, target);
          matched++;
        }
        return { matched };
      });
      const counts = writeCounts(result.outcome, result.txId);
      const pat = Object.fromEntries(POSITIONS.filter((p) => pattern[p] !== undefined).map((p) => [p, termToKey(pattern[p]!)]));
      auditRequest(request, 'admin', 'relabel', {
        outcome: 'ok', pattern: pat, from, to, matched: result.value.matched, relabelled: counts.relabelled, unchanged: counts.unchanged, labels: counts.labels, txId: counts.txId,
      });
      return reply.code(200).send({ matched: result.value.matched, relabelled: counts.relabelled, unchanged: counts.unchanged, labels: counts.labels, txId: counts.txId });
    } catch (error) {
      auditRequest(request, 'admin', 'relabel', { outcome: 'failed', code: (error as { code?: string }).code ?? 'BAD_REQUEST', from, to });
      throw error;
    }
  });
}
