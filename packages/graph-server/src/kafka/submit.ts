/**
 * CQRS (`dataset.kafka.writes: log`, docs/kafka.md): a write route checks the request exactly as
 * it would for a direct write (permission, syntax, labels), then hands it here instead of to the
 * store: it becomes one message of the dataset's topic, carrying the writer's grant, and the reply
 * waits until this replica has applied it — so the answer (counts, labels, txId, refusals) is the
 * one the write boundary gave, the same on every replica, and the client reads its own write.
 */
import type { RdfFormat } from '@ianode/rdf';
import type { LoadResult, WriteOutcome } from '@ianode/store';
import type { RouteContext } from '../routes/context.js';
import type { Caller } from '../security.js';
import type { GraphStoreWrite, UpdateDataset } from '../writes.js';
import { GSP_CONTENT_TYPE, gspBody, HEADER, PATCH_CONTENT_TYPES, UPDATE_CONTENT_TYPE, writerHeader } from './apply.js';
import type { KafkaConnector } from './connector.js';

/** The connector when the dataset's writes go through the log, else undefined (direct writes). */
export function logWriter(ctx: Pick<RouteContext, 'kafka' | 'config'>): KafkaConnector | undefined {
  return ctx.kafka !== undefined && ctx.config.dataset.kafka?.writes === 'log' ? ctx.kafka : undefined;
}

function headers(caller: Caller, contentType: string, label: string | undefined, baseIRI: string | undefined): Record<string, string> {
  const out: Record<string, string> = { [HEADER.contentType]: contentType, [HEADER.writer]: writerHeader(caller) };
  if (label !== undefined) out[HEADER.label] = label;
  if (baseIRI !== undefined) out[HEADER.base] = baseIRI;
  return out;
}

/** The media type a checked upload is sent with (its format, whatever the request called it). */
function mediaTypeOf(format: RdfFormat | 'jsonld' | 'rdfxml'): string {
  return format === 'jsonld' ? 'application/ld+json' : format === 'rdfxml' ? 'application/rdf+xml' : format;
}

async function bytesOf(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/** An upload through the log: what `writer.load` would have answered, and the offset. */
export async function submitLoad(
  kafka: KafkaConnector,
  caller: Caller,
  body: { chunks(): AsyncIterable<Uint8Array> },
  format: RdfFormat | 'jsonld' | 'rdfxml',
  label: string | undefined,
  baseIRI: string | undefined,
): Promise<{ offset: bigint; result: LoadResult }> {
  const { offset, applied } = await kafka.submit({ value: await bytesOf(body.chunks()), headers: headers(caller, mediaTypeOf(format), label, baseIRI) });
  if (applied.kind !== 'load') throw new Error(`offset ${offset} applied as ${applied.kind}, not as the upload sent`);
  return { offset, result: { quads: applied.quads, triples: applied.triples, labels: applied.labels, txId: applied.txId, outcome: applied.outcome } };
}

/** A SPARQL Update through the log. */
export async function submitUpdate(
  kafka: KafkaConnector,
  caller: Caller,
  text: string,
  label: string | undefined,
  baseIRI: string | undefined,
  using: UpdateDataset | undefined,
): Promise<{ offset: bigint; result: { value: { operations: number }; txId: number; outcome: WriteOutcome } }> {
  const h = headers(caller, UPDATE_CONTENT_TYPE, label, baseIRI);
  if (using !== undefined && (using.default.length > 0 || using.named.length > 0)) h[HEADER.using] = JSON.stringify(using);
  const { offset, applied } = await kafka.submit({ value: Buffer.from(text, 'utf8'), headers: h });
  if (applied.kind !== 'update') throw new Error(`offset ${offset} applied as ${applied.kind}, not as the update sent`);
  return { offset, result: { value: { operations: applied.operations }, txId: applied.txId, outcome: applied.outcome } };
}

/** A Graph Store write through the log. */
export async function submitGraphStoreWrite(
  kafka: KafkaConnector,
  caller: Caller,
  write: GraphStoreWrite,
): Promise<{ offset: bigint; result: { value: { created: boolean }; txId: number; outcome: WriteOutcome } }> {
  const { offset, applied } = await kafka.submit({ value: gspBody(write), headers: headers(caller, GSP_CONTENT_TYPE, write.label, undefined) });
  if (applied.kind !== 'gsp') throw new Error(`offset ${offset} applied as ${applied.kind}, not as the graph store write sent`);
  return { offset, result: { value: { created: applied.created }, txId: applied.txId, outcome: applied.outcome } };
}

/** An RDF Patch through the log. */
export async function submitPatch(
  kafka: KafkaConnector,
  caller: Caller,
  text: string,
  label: string | undefined,
): Promise<{ offset: bigint; result: { value: { rows: number; transactions: number; aborted: number }; txId: number; outcome: WriteOutcome } }> {
  const { offset, applied } = await kafka.submit({ value: Buffer.from(text, 'utf8'), headers: headers(caller, PATCH_CONTENT_TYPES[0]!, label, undefined) });
  if (applied.kind !== 'patch') throw new Error(`offset ${offset} applied as ${applied.kind}, not as the patch sent`);
  const { rows, transactions, aborted, txId, outcome } = applied;
  return { offset, result: { value: { rows, transactions, aborted }, txId, outcome } };
}
