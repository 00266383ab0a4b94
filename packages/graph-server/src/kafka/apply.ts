/**
 * One Kafka message → one store transaction (docs/kafka.md, "Messages"). The kinds are the
 * reference's (jena-fuseki-kafka): an RDF document (a labelled load, exactly as `POST /ds/upload`:
 * the `Security-Label` header and a TriG labels graph), `application/rdf-patch`, and
 * `application/sparql-update`; plus ianode's own Graph Store writes produced in CQRS mode.
 *
 * Every kind commits through the graph server's one write boundary (../writes.ts), with the log
 * position in the same durable commit (`meta`), so a message is applied exactly once.
 *
 * Who writes: a message produced by an ianode replica in CQRS mode carries the writer's grant
 * (`Ianode-Writer`), and every replica applies it in that writer's write scope (the same
 * visibility rule and label check as the HTTP write would have had, so the outcome is the same
 * everywhere). A message without it comes from the topic's own producers, trusted like the
 * reference trusts its topic: written with every right (docs/kafka.md, "Security").
 */
import { readLabel } from '@ianode/abac';
import { visibilityOf } from '../grant.js';
import { mediaTypeEssence, parsePatch, type ParsedPatch } from '@ianode/rdf';
import { parseUpdate, type ParsedUpdate } from '@ianode/sparql';
import { SECURITY_LABEL_HEADER, type KeyQuad, type PreparedLoad, type WriteOutcome } from '@ianode/store';
import { errorReply } from '../errors.js';
import type { GraphTarget } from '../pool/graph-read.js';
import type { Grant } from '../pool/protocol.js';
import { formatOf, prepare } from '../rdf-body.js';
import { strictUtf8 } from '../body.js';
import { applyPatch, checkPatch } from '../patch.js';
import type { Caller } from '../security.js';
import { applyGraphStoreWrite, applySparqlUpdate, withProtocolDataset, type GraphStoreWrite, type UpdateDataset, type WriteContext } from '../writes.js';
import type { LogMessage } from './log.js';

/** Message headers (names compared in lower case). */
export const HEADER = {
  contentType: 'content-type',
  label: SECURITY_LABEL_HEADER.toLowerCase(),
  /** CQRS: the writer's id, name and grant (JSON), set by the replica that took the request. */
  writer: 'ianode-writer',
  /** CQRS: the replica that produced the message (it waits for the outcome). */
  origin: 'ianode-origin',
  /** SPARQL Update: the protocol's dataset (JSON `{default, named}`). */
  using: 'ianode-using',
  /** Base IRI of the body or update. */
  base: 'ianode-base',
} as const;

export const GSP_CONTENT_TYPE = 'application/vnd.ianode.gsp+json';
export const UPDATE_CONTENT_TYPE = 'application/sparql-update';
export const PATCH_CONTENT_TYPES = ['application/rdf-patch', 'text/rdf-patch'];

/** A message that cannot be applied as it is (bad syntax, bad label, unknown content type): the
 * connector's error policy decides (stop, or the dead-letter topic). */
export class MalformedMessage extends Error {
  constructor(readonly reason: string, options?: { cause?: unknown }) {
    super(reason, options);
  }
}

export interface ApplyContext extends WriteContext {
  baseIRI: string | undefined;
  secure: boolean;
}

/** A message, checked and parsed, ready for its transaction. */
export type Decoded =
  | { kind: 'load'; caller: Caller; prepared: PreparedLoad }
  | { kind: 'update'; caller: Caller; parsed: ParsedUpdate; label: string | undefined }
  | { kind: 'gsp'; caller: Caller; write: GraphStoreWrite }
  | { kind: 'patch'; caller: Caller; patch: ParsedPatch; label: string | undefined };

/** What a message did; `result` is what the same HTTP write's handler gets from the writer. */
export type Applied =
  | { kind: 'load'; txId: number; outcome: WriteOutcome; quads: number; triples: number; labels: number }
  | { kind: 'update'; txId: number; outcome: WriteOutcome; operations: number }
  | { kind: 'gsp'; txId: number; outcome: WriteOutcome; created: boolean }
  | { kind: 'patch'; txId: number; outcome: WriteOutcome; rows: number; transactions: number; aborted: number };

/** The caller of messages from the topic's own producers: every right (docs/kafka.md, "Security"). */
export const LOG_CALLER: Caller = {
  id: 'kafka',
  user: 'kafka',
  attributes: [],
  may: () => true,
  visible: undefined,
  grant: undefined,
};

/** The writer of a CQRS message, as `Ianode-Writer` carries it. */
export interface WriterHeader {
  id: string;
  user: string;
  /** null: an open-mode replica took the write. */
  grant: Grant | null;
}

export function writerHeader(caller: Caller): string {
  const value: WriterHeader = { id: caller.id, user: caller.user, grant: caller.grant ?? null };
  return JSON.stringify(value);
}

/** The caller a `Ianode-Writer` header names: its visibility rebuilt from the grant, exactly as the
 * query workers rebuild it (pool/worker.ts). */
export function callerOfWriter(text: string, secure: boolean): Caller {
  let value: WriterHeader;
  try {
    value = JSON.parse(text) as WriterHeader;
  } catch {
    throw new MalformedMessage('the Ianode-Writer header is not JSON');
  }
  if (typeof value !== 'object' || value === null || typeof value.id !== 'string' || typeof value.user !== 'string') {
    throw new MalformedMessage('the Ianode-Writer header lacks id and user');
  }
  const grant = value.grant;
  if (grant === null || grant === undefined) {
    // Fail closed: a secure replica never applies a write without its writer's grant.
    if (secure) throw new MalformedMessage('the Ianode-Writer header has no grant, and this dataset is in secure mode');
    return { ...LOG_CALLER, id: value.id, user: value.user };
  }
  const okGrant = Array.isArray(grant.attributes) && grant.attributes.every((a) => typeof a === 'string') && Array.isArray(grant.hierarchies) &&
    grant.hierarchies.every((h) => Array.isArray(h) && typeof h[0] === 'string' && Array.isArray(h[1]) && h[1].every((t) => typeof t === 'string'));
  if (!okGrant) throw new MalformedMessage('the Ianode-Writer grant is not { attributes: string[], hierarchies: [name, tiers][] }');
  const { visible } = visibilityOf(grant.attributes, grant.hierarchies);
  return {
    id: value.id,
    user: value.user,
    attributes: grant.attributes,
    may: () => true,
    visible,
    grant,
  };
}


/** Parse and check a message (no store access). Throws MalformedMessage with the reason. */
export async function decodeMessage(ctx: ApplyContext, message: LogMessage): Promise<Decoded> {
  try {
    return await decode(ctx, message);
  } catch (error) {
    if (error instanceof MalformedMessage) throw error;
    throw new MalformedMessage((error as Error).message, { cause: error });
  }
}

async function decode(ctx: ApplyContext, message: LogMessage): Promise<Decoded> {
  const headers = message.headers;
  const contentType = headers.get(HEADER.contentType);
  if (contentType === undefined || contentType.trim() === '') throw new MalformedMessage('no Content-Type header (required)');
  const legacy = ctx.config.dataset.labels.legacy;
  const labelText = headers.get(HEADER.label);
  const label = labelText === undefined ? undefined : readLabel(labelText, { legacy });
  const writer = headers.get(HEADER.writer);
  const caller = writer === undefined ? LOG_CALLER : callerOfWriter(writer, ctx.secure);
  const baseIRI = headers.get(HEADER.base) ?? ctx.baseIRI;
  const type = mediaTypeEssence(contentType);
  if (type === UPDATE_CONTENT_TYPE) {
    const using = headers.get(HEADER.using);
    const parsed = withProtocolDataset(parseUpdate(utf8(message.value), { baseIRI }), using === undefined ? undefined : usingOf(using));
    return { kind: 'update', caller, parsed, label };
  }
  if (type === GSP_CONTENT_TYPE) return { kind: 'gsp', caller, write: gspOf(message.value, label) };
  if (PATCH_CONTENT_TYPES.includes(type)) {
    const patch = parsePatch(utf8(message.value));
    checkPatch(patch);
    return { kind: 'patch', caller, patch, label };
  }
  const format = formatOf(contentType, undefined); // UNSUPPORTED_MEDIA_TYPE names what is read
  const body = message.value;
  const prepared = await prepare(
    {
      text: async () => body.toString('utf8'),
      chunks: async function* () {
        yield body;
      },
    },
    format,
    label,
    baseIRI,
    legacy,
  );
  return { kind: 'load', caller, prepared };
}

/** A text body: bytes that are not UTF-8 make the message malformed (never guessed around). */
function utf8(body: Buffer): string {
  return strictUtf8(body, 'the body');
}

function usingOf(text: string): UpdateDataset {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MalformedMessage('the Ianode-Using header is not JSON');
  }
  const v = value as Partial<UpdateDataset>;
  const strings = (a: unknown): a is string[] => Array.isArray(a) && a.every((x) => typeof x === 'string');
  if (!strings(v.default) || !strings(v.named)) throw new MalformedMessage('the Ianode-Using header is not { default: string[], named: string[] }');
  return { default: v.default, named: v.named };
}

/** The body of a Graph Store message: `{ method, target, quads }` (produced by ianode only). */
export function gspBody(write: Omit<GraphStoreWrite, 'label'>): Buffer {
  return Buffer.from(JSON.stringify({ method: write.method, target: write.target, quads: write.quads }), 'utf8');
}

function gspOf(body: Buffer, label: string | undefined): GraphStoreWrite {
  let value: { method?: unknown; target?: unknown; quads?: unknown };
  try {
    value = JSON.parse(body.toString('utf8')) as typeof value;
  } catch {
    throw new MalformedMessage(`the ${GSP_CONTENT_TYPE} body is not JSON`);
  }
  const method = value.method;
  if (method !== 'PUT' && method !== 'POST' && method !== 'DELETE') throw new MalformedMessage('the Graph Store message names no method (PUT, POST, DELETE)');
  const t = value.target as Partial<{ kind: string; iri: string }> | undefined;
  let target: GraphTarget;
  if (t?.kind === 'default' || t?.kind === 'dataset') target = { kind: t.kind };
  else if (t?.kind === 'graph' && typeof t.iri === 'string') target = { kind: 'graph', iri: t.iri };
  else throw new MalformedMessage('the Graph Store message names no target');
  const quads = value.quads;
  const isKey = (q: unknown): q is KeyQuad => {
    const k = q as Partial<KeyQuad>;
    return typeof k === 'object' && k !== null && typeof k.s === 'string' && typeof k.p === 'string' && typeof k.o === 'string' && typeof k.g === 'string';
  };
  if (!Array.isArray(quads) || !quads.every(isKey)) throw new MalformedMessage('the Graph Store message quads are not [{ s, p, o, g }]');
  return { method, target, quads, label };
}

/** Apply a decoded message as one transaction with `meta` in its commit. A refusal (a
 * GraphServerError: the write boundary, a missing graph) rolls back and is thrown. */
export async function applyDecoded(ctx: ApplyContext, decoded: Decoded, meta: Record<string, string>): Promise<Applied> {
  switch (decoded.kind) {
    case 'load': {
      const result = await ctx.writer.load(decoded.caller, decoded.prepared, { meta });
      return { kind: 'load', txId: result.txId, outcome: result.outcome, quads: result.quads, triples: result.triples, labels: result.labels };
    }
    case 'update': {
      const result = await applySparqlUpdate(ctx, decoded.caller, decoded.parsed, decoded.label, { meta }, true);
      return { kind: 'update', txId: result.txId, outcome: result.outcome, operations: result.value.operations };
    }
    case 'gsp': {
      const result = await applyGraphStoreWrite(ctx, decoded.caller, decoded.write, { meta });
      return { kind: 'gsp', txId: result.txId, outcome: result.outcome, created: result.value.created };
    }
    case 'patch': {
      const { patch, label } = decoded;
      const result = await ctx.writer.transaction(decoded.caller, (tx) => applyPatch(tx, patch, label), { meta });
      return { kind: 'patch', txId: result.txId, outcome: result.outcome, ...result.value };
    }
  }
}

/** Whether an error thrown by a write is the write's own deterministic refusal (every replica
 * refuses the same message the same way), as opposed to a fault of this replica (I/O, closing). */
export function isRefusal(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const status = errorReply(error).status;
  return status >= 400 && status < 500;
}
