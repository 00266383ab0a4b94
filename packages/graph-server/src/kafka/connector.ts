/**
 * The Kafka connector of a dataset (docs/kafka.md): the graph server as a replica of an ordered
 * log, as the reference's jena-fuseki-kafka connector makes Fuseki one.
 *
 * - Position: the last applied offset is commit metadata of the store (`kafka:<topic>:<partition>`),
 *   written in the same durable commit as the data the message produced. After a crash the store
 *   holds both or neither, so the connector resumes exactly after the last message applied: none
 *   twice, none skipped (exactly-once apply). No offset is committed to Kafka.
 * - Start: the server catches up to the end the topic had when it started before it serves HTTP.
 * - Order: one partition per topic (a topic with more is refused at start), applied in offset
 *   order, one message one transaction.
 * - A message that cannot be applied (malformed, or refused by the write boundary when no writer
 *   waits for it) is logged with its offset and reason and counted; by default the connector then
 *   stops there (nothing after it is applied, nothing is skipped); with `onError: dead-letter` the
 *   message is copied to the dead-letter topic and its offset committed, then the connector goes on.
 * - CQRS (`writes: log`): HTTP writes are checked, produced to the topic with the writer's grant,
 *   and answered once this replica has applied them (`submit`); reads may wait for an offset
 *   (`waitApplied`, the `Ianode-Offset` header).
 */
import type { QuadStore } from '@ianode/store';
import { GraphServerError } from '../errors.js';
import type { KafkaConfig } from './config.js';
import type { Writer } from '../writes.js';
import type { PreparedLoad } from '@ianode/store';
import { applyDecoded, decodeMessage, HEADER, isRefusal, LOG_CALLER, type ApplyContext, type Applied, type Decoded, type MalformedMessage } from './apply.js';
import { defaultReplicaId, KAFKA_ERRORS, kafkaErrorCodes, TopicLog, type FetchResult, type LogMessage } from './log.js';

export type ConnectorState = 'starting' | 'catching-up' | 'running' | 'stopped' | 'closed';

export interface ConnectorStatus {
  dataset: string;
  topic: string;
  group: string;
  replica: string;
  state: ConnectorState;
  writes: 'direct' | 'log';
  connected: boolean;
  partitions: { partition: number; applied: string | null; end: string | null; lag: number | null }[];
  messages: { applied: number; refused: number; malformed: number; deadLettered: number };
  /** Why the connector stopped, or the last connection error while it runs. */
  error?: { offset?: string; reason: string } | undefined;
}

export type MessageOutcome = 'applied' | 'refused' | 'malformed' | 'dead-lettered';

/** A message's audit record: its offset, outcome, writer (CQRS: id and name, never its grant). */
export interface MessageAudit {
  topic: string;
  offset: string;
  outcome: MessageOutcome;
  kind?: string | undefined;
  identity?: string | undefined;
  user?: string | undefined;
  txId?: number | undefined;
  inserted?: number | undefined;
  relabelled?: number | undefined;
  deleted?: number | undefined;
  labels?: { label: string; quads: number }[] | undefined;
  code?: string | undefined;
  reason?: string | undefined;
}

export interface ConnectorLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface ConnectorOptions {
  config: KafkaConfig;
  dataset: string;
  store: QuadStore;
  apply: ApplyContext;
  log: ConnectorLog;
  /** Called once per message with what became of it (metrics). */
  count?: ((outcome: MessageOutcome) => void) | undefined;
  /** Called once per message with what became of it, for the audit log (../audit.ts). */
  audit?: ((event: MessageAudit) => void) | undefined;
  /** The topic client (tests may pass one bound to another client id). */
  topicLog?: TopicLog | undefined;
}

const PARTITION = 0;
/** Outcomes of this replica's own CQRS writes kept for `submit` (the newest ones). */
const KEPT_RESULTS = 10_000;
/** Most quads of uploads committed together (`applyBatch`). */
const BATCH_QUADS = 200_000;

type Result = { applied: Applied } | { error: unknown };

/** The store's metadata key holding the last applied offset of a topic partition. */
export function offsetKey(topic: string, partition = PARTITION): string {
  return `kafka:${topic}:${partition}`;
}

export class KafkaConnector {
  private readonly config: KafkaConfig;
  private readonly log: ConnectorLog;
  private readonly topicLog: TopicLog;
  readonly replicaId: string;
  private state: ConnectorState = 'starting';
  /** The next offset to apply. */
  private position = 0n;
  private end: bigint | undefined;
  private connected = false;
  private error: ConnectorStatus['error'];
  private readonly counts = { applied: 0, refused: 0, malformed: 0, deadLettered: 0 };
  private readonly results = new Map<string, Result>();
  private readonly resultWaiters = new Map<string, ((result: Result) => void)[]>();
  private readonly positionWaiters = new Set<{ offset: bigint; resolve: (ok: boolean) => void }>();
  private loop: Promise<void> | undefined;
  /** The fetch that follows the messages being applied, asked for early. */
  private ahead: { offset: bigint; result: Promise<FetchResult> } | undefined;
  /** Why messages of the current fetch could not be parsed, by offset (`decode` → `handle`). */
  private readonly malformed = new Map<bigint, unknown>();
  private wake: (() => void) | undefined;

  constructor(private readonly options: ConnectorOptions) {
    this.config = options.config;
    this.log = options.log;
    this.replicaId = options.config.replicaId ?? defaultReplicaId();
    this.topicLog = options.topicLog ?? new TopicLog(options.config, `ianode-${options.dataset}-${this.replicaId}`.replace(/[^A-Za-z0-9._-]/g, '_'));
  }

  /** The last applied offset, or -1 when none. */
  get applied(): bigint {
    return this.position - 1n;
  }

  /** How long reads and CQRS writes wait for this replica to apply an offset (`readWaitMs`). */
  get waitMs(): number {
    return this.config.readWaitMs;
  }

  get running(): boolean {
    return this.state === 'running';
  }

  /**
   * Connect, position from the store, and apply the topic up to the end it has now. Throws when
   * the brokers stay unreachable for `startWaitMs`, the topic has more than one partition, or the
   * store's position cannot continue on this topic (records removed by retention, or a store ahead
   * of the topic). A malformed message met on the way stops the connector, not the start.
   */
  async start(): Promise<void> {
    const { topic, startWaitMs } = this.config;
    const partitions = await this.retryUntil(startWaitMs, 'reach the Kafka brokers', () => this.topicLog.partitions());
    if (partitions !== 1) {
      throw new Error(`Kafka topic ${topic} has ${partitions} partitions: ianode applies a dataset's log in one order, so its topic must have exactly one partition (docs/kafka.md, "Ordering")`);
    }
    const [first, end] = await this.retryUntil(startWaitMs, 'read the topic offsets', async () => [await this.topicLog.startOffset(PARTITION), await this.topicLog.endOffset(PARTITION)] as const);
    this.end = end;
    this.connected = true;
    const stored = this.options.store.meta(offsetKey(topic));
    if (stored !== undefined) {
      this.position = BigInt(stored) + 1n;
      if (this.position < first) {
        throw new Error(`the store has applied ${topic} up to offset ${stored}, but the topic now starts at offset ${first}: offsets ${this.position} to ${first - 1n} were removed (retention). Restore this replica from a checkpoint of another replica (docs/kafka.md, "New replicas")`);
      }
      if (this.position > end) {
        throw new Error(`the store has applied ${topic} up to offset ${stored}, but the topic ends at offset ${end - 1n}: this store does not belong to this topic (recreated topic, or another cluster)`);
      }
    } else {
      this.position = this.config.start === 'latest' ? end : first;
    }
    this.state = 'catching-up';
    this.log.info({ topic, from: String(this.position), to: String(end), replica: this.replicaId }, `kafka: catching up on ${topic} from offset ${this.position} to ${end}`);
    let lastProgress = Date.now();
    while (this.position < end && this.state === 'catching-up') {
      const before = this.position;
      const ok = await this.step();
      if (this.position > before) lastProgress = Date.now();
      else if (!ok && Date.now() - lastProgress > startWaitMs) {
        throw new Error(`kafka: no progress catching up on ${topic} for ${startWaitMs} ms: ${this.error?.reason ?? 'no records'}`);
      }
    }
    if (this.state === 'catching-up') {
      this.state = 'running';
      this.log.info({ topic, applied: String(this.applied) }, `kafka: caught up on ${topic} at offset ${this.applied}`);
    }
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.state === 'running') await this.step();
  }

  /** One fetch and the messages it brought; false when the fetch failed (retried later). */
  private async step(): Promise<boolean> {
    let fetched;
    const ahead = this.ahead;
    this.ahead = undefined;
    try {
      fetched = ahead !== undefined && ahead.offset === this.position
        ? await ahead.result
        : await this.topicLog.fetch(PARTITION, this.position, this.config.fetchWaitMs);
      this.connected = true;
      if (this.error !== undefined && this.state !== 'stopped') this.error = undefined;
    } catch (error) {
      if (this.state === 'closed') return false;
      this.connected = false;
      if (kafkaErrorCodes(error).includes(KAFKA_ERRORS.OFFSET_OUT_OF_RANGE)) {
        this.stop(this.position, `offset ${this.position} is no longer in ${this.config.topic} (removed by retention, or the topic was recreated)`);
        return false;
      }
      this.error = { reason: `cannot fetch from Kafka: ${(error as Error).message}` };
      this.log.warn({ topic: this.config.topic, offset: String(this.position), err: (error as Error).message }, 'kafka: fetch failed; retrying');
      await this.pause(500);
      return false;
    }
    this.end = fetched.end;
    const messages = fetched.messages.filter((m) => m.offset >= this.position).slice(0, this.config.fetchMessages);
    const active = () => this.state === 'running' || this.state === 'catching-up';
    if (messages.length > 0 && active()) {
      // Ask the broker for what follows while these are applied (used when the position gets there).
      const offset = messages.at(-1)!.offset + 1n;
      const result = this.topicLog.fetch(PARTITION, offset, this.config.fetchWaitMs);
      result.catch(() => undefined); // a failed read ahead is fetched again, and its error met, then
      this.ahead = { offset, result };
    }
    for (let i = 0; i < messages.length && active(); ) {
      const message = messages[i]!;
      const decoded = await this.decode(message);
      if (decoded === undefined || !this.batchable(message, decoded)) {
        await this.handle(message, decoded);
        i++;
        continue;
      }
      // Uploads from the topic's own producers, one after another: one commit for the run of them
      // (the same as applying them one by one; docs/kafka.md, "Throughput").
      const batch: { message: LogMessage; prepared: PreparedLoad }[] = [{ message, prepared: decoded.prepared }];
      let quads = decoded.prepared.quads;
      let j = i + 1;
      let stopper: { message: LogMessage; decoded: Decoded | undefined } | undefined;
      while (j < messages.length && quads < BATCH_QUADS) {
        const next = messages[j]!;
        const nextDecoded = await this.decode(next);
        j++;
        if (nextDecoded === undefined || !this.batchable(next, nextDecoded)) {
          stopper = { message: next, decoded: nextDecoded };
          break;
        }
        batch.push({ message: next, prepared: nextDecoded.prepared });
        quads += nextDecoded.prepared.quads;
      }
      await this.applyBatch(batch);
      if (stopper !== undefined && active()) await this.handle(stopper.message, stopper.decoded);
      i = j;
    }
    if (fetched.messages.length === 0 && fetched.next > this.position && (this.state === 'running' || this.state === 'catching-up')) {
      // Only control records (transaction markers): nothing to apply, but the position moves on.
      this.position = fetched.next;
    }
    this.settlePositionWaiters();
    return true;
  }

  private meta(offset: bigint): Record<string, string> {
    return { [offsetKey(this.config.topic)]: String(offset) };
  }

  /** Parse a message; a malformed one is remembered (its reason) for `handle` and gives undefined. */
  private async decode(message: LogMessage): Promise<Decoded | undefined> {
    try {
      return await decodeMessage(this.options.apply, message);
    } catch (error) {
      this.malformed.set(message.offset, error);
      return undefined;
    }
  }

  /** An upload nobody waits for, from the topic's own producers: may share a commit. */
  private batchable(message: LogMessage, decoded: Decoded): decoded is Extract<Decoded, { kind: 'load' }> {
    return decoded.kind === 'load' && decoded.caller === LOG_CALLER && !message.headers.has(HEADER.origin);
  }

  /** Several uploads in one commit holding the last one's offset. */
  private async applyBatch(batch: { message: LogMessage; prepared: PreparedLoad }[]): Promise<void> {
    if (batch.length === 1) {
      await this.handle(batch[0]!.message, { kind: 'load', caller: LOG_CALLER, prepared: batch[0]!.prepared });
      return;
    }
    const last = batch.at(-1)!.message.offset;
    let result: Awaited<ReturnType<Writer['loadAll']>>;
    try {
      result = await this.options.apply.writer.loadAll(LOG_CALLER, batch.map((b) => b.prepared), { meta: this.meta(last) });
    } catch {
      if (this.state === 'closed') return;
      // Loads with every right are refused by nothing but a fault: try them one by one, so that
      // the one at fault is the one reported.
      for (const b of batch) {
        if (this.state !== 'running' && this.state !== 'catching-up') return;
        await this.handle(b.message, { kind: 'load', caller: LOG_CALLER, prepared: b.prepared });
      }
      return;
    }
    this.position = last + 1n;
    this.counts.applied += batch.length;
    for (let k = 0; k < batch.length; k++) this.options.count?.('applied');
    // One commit: its txId and counts on every message's record (they are the batch's).
    for (const b of batch) {
      this.options.audit?.({ topic: this.config.topic, offset: String(b.message.offset), outcome: 'applied', kind: 'load', identity: LOG_CALLER.id, user: LOG_CALLER.user,
        txId: result.txId, inserted: result.outcome.inserted, relabelled: result.outcome.relabelled, deleted: result.outcome.deleted, labels: result.outcome.labels });
    }
  }

  /** Apply one message, or deal with it by the error policy; the position moves past it unless
   * the connector stopped on it. `decoded` undefined: the message is malformed (`decode`). */
  private async handle(message: LogMessage, decoded: Decoded | undefined): Promise<void> {
    const offset = message.offset;
    const own = message.headers.get(HEADER.origin) === this.replicaId;
    const cqrs = message.headers.has(HEADER.writer);
    if (decoded === undefined) {
      const error = this.malformed.get(offset);
      this.malformed.delete(offset);
      await this.reject(message, (error as MalformedMessage | undefined)?.reason ?? (error as Error | undefined)?.message ?? 'malformed', own, error);
      return;
    }
    let applied: Applied;
    try {
      applied = await applyDecoded(this.options.apply, decoded, this.meta(offset));
    } catch (error) {
      if (this.state === 'closed') return;
      if (isRefusal(error) && cqrs) {
        // The write boundary refused a CQRS write: the same on every replica, and its writer is
        // told (`submit`). The offset is committed so the refusal is not met again.
        await this.commitOffset(offset);
        this.position = offset + 1n;
        this.counts.refused++;
        this.options.count?.('refused');
        this.options.audit?.({ topic: this.config.topic, offset: String(offset), outcome: 'refused', kind: decoded.kind, identity: decoded.caller.id, user: decoded.caller.user, code: (error as { code?: string }).code });
        this.log.info({ topic: this.config.topic, offset: String(offset), code: (error as { code?: string }).code }, 'kafka: write refused by the write boundary');
        if (own) this.record(offset, { error });
        return;
      }
      if (isRefusal(error)) {
        await this.reject(message, `refused: ${(error as Error).message}`, own, error);
        return;
      }
      // A fault of this replica (the store failed or is closing): stop rather than skip.
      this.stop(offset, `could not apply the message: ${(error as Error).message}`);
      return;
    }
    this.position = offset + 1n;
    this.counts.applied++;
    this.options.count?.('applied');
    this.options.audit?.({ topic: this.config.topic, offset: String(offset), outcome: 'applied', kind: applied.kind, identity: decoded.caller.id, user: decoded.caller.user,
      txId: applied.txId, inserted: applied.outcome.inserted, relabelled: applied.outcome.relabelled, deleted: applied.outcome.deleted, labels: applied.outcome.labels });
    if (own) this.record(offset, { applied });
  }

  /** A message that cannot be applied: logged and counted, then the error policy. */
  private async reject(message: LogMessage, reason: string, own: boolean, error: unknown): Promise<void> {
    const offset = message.offset;
    this.counts.malformed++;
    this.options.count?.('malformed');
    this.options.audit?.({ topic: this.config.topic, offset: String(offset), outcome: 'malformed', code: (error as { code?: string } | undefined)?.code });
    this.log.error({ topic: this.config.topic, offset: String(offset), reason }, `kafka: message at offset ${offset} cannot be applied: ${reason}`);
    if (this.config.onError === 'dead-letter' && this.config.deadLetterTopic !== undefined) {
      const headers: Record<string, string> = {};
      for (const [name, value] of message.headers) headers[name] = value;
      headers['ianode-error'] = reason;
      headers['ianode-source'] = `${message.topic}:${message.partition}:${offset}`;
      while (this.state !== 'closed') {
        try {
          await this.topicLog.produce([{ value: message.value, headers }], this.config.deadLetterTopic);
          break;
        } catch (produceError) {
          this.log.warn({ topic: this.config.deadLetterTopic, err: (produceError as Error).message }, 'kafka: dead-letter produce failed; retrying');
          this.topicLog.forgetLeaders();
          await this.pause(500);
        }
      }
      if (this.state === 'closed') return;
      await this.commitOffset(offset);
      this.position = offset + 1n;
      this.counts.deadLettered++;
      this.options.count?.('dead-lettered');
      if (own) this.record(offset, { error: asBadRequest(error, reason) });
      return;
    }
    if (own) this.record(offset, { error: asBadRequest(error, reason) });
    this.stop(offset, reason);
  }

  /** A transaction changing nothing but the applied offset. */
  private async commitOffset(offset: bigint): Promise<void> {
    await this.options.apply.writer.transaction(LOG_CALLER, () => undefined, { meta: this.meta(offset) });
  }

  private stop(offset: bigint, reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'stopped';
    this.error = { offset: String(offset), reason };
    this.log.error({ topic: this.config.topic, offset: String(offset), reason }, `kafka: connector stopped at offset ${offset}: nothing after it is applied until this is resolved (docs/kafka.md, "Errors")`);
    for (const waiters of this.resultWaiters.values()) for (const w of waiters) w({ error: unavailable(`the Kafka connector stopped at offset ${offset}`) });
    this.resultWaiters.clear();
    this.settlePositionWaiters(true);
  }

  private record(offset: bigint, result: Result): void {
    const key = String(offset);
    this.results.set(key, result);
    if (this.results.size > KEPT_RESULTS) this.results.delete(this.results.keys().next().value!);
    const waiters = this.resultWaiters.get(key);
    if (waiters) {
      this.resultWaiters.delete(key);
      for (const w of waiters) w(result);
    }
  }

  private settlePositionWaiters(fail = false): void {
    for (const waiter of this.positionWaiters) {
      if (this.position > waiter.offset) {
        this.positionWaiters.delete(waiter);
        waiter.resolve(true);
      } else if (fail) {
        this.positionWaiters.delete(waiter);
        waiter.resolve(false);
      }
    }
  }

  /** Resolves true once `offset` is applied here, false after `timeoutMs` or when the connector stops. */
  waitApplied(offset: bigint, timeoutMs: number): Promise<boolean> {
    if (this.position > offset) return Promise.resolve(true);
    if (this.state !== 'running' && this.state !== 'catching-up') return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        offset,
        resolve: (ok: boolean) => {
          clearTimeout(timer);
          resolve(ok);
        },
      };
      const timer = setTimeout(() => {
        this.positionWaiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      timer.unref?.();
      this.positionWaiters.add(waiter);
    });
  }

  /**
   * CQRS: produce a write (already checked by the route) and wait until this replica has applied
   * it. Resolves with the offset and what the write did; rejects with the write's refusal, 503
   * when the connector cannot take writes, or WRITE_PENDING (202) when it is in the log but not
   * applied here within `readWaitMs`.
   */
  async submit(record: { value: Buffer; headers: Record<string, string> }): Promise<{ offset: bigint; applied: Applied }> {
    if (this.state !== 'running') throw unavailable(`the Kafka connector is ${this.state}${this.error ? `: ${this.error.reason}` : ''}; writes go through the log in this dataset`);
    let offset: bigint;
    try {
      const [written] = await this.topicLog.produce([{ value: record.value, headers: { ...record.headers, [HEADER.origin]: this.replicaId } }]);
      offset = written!.offset;
    } catch (error) {
      const codes = kafkaErrorCodes(error);
      if (codes.includes(10)) {
        throw new GraphServerError('MESSAGE_TOO_LARGE', `the write is larger than the Kafka topic ${this.config.topic} accepts in one message (max.message.bytes); nothing was stored. Split it, or raise the topic's limit`);
      }
      throw unavailable(`could not write to the Kafka topic ${this.config.topic}: ${(error as Error).message}; nothing was stored`);
    }
    const result = await this.resultOf(offset, this.config.readWaitMs);
    if (result === undefined) {
      throw new GraphServerError('WRITE_PENDING', `the write is in the log at offset ${offset} but not yet applied by this replica within ${this.config.readWaitMs} ms; read with the header Ianode-Offset: ${offset} to see it once applied`, { headers: { 'ianode-offset': String(offset) } });
    }
    if ('error' in result) throw result.error;
    return { offset, applied: result.applied };
  }

  private resultOf(offset: bigint, timeoutMs: number): Promise<Result | undefined> {
    const key = String(offset);
    const known = this.results.get(key);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const list = this.resultWaiters.get(key);
        if (list) {
          const i = list.indexOf(done);
          if (i >= 0) list.splice(i, 1);
          if (list.length === 0) this.resultWaiters.delete(key);
        }
        resolve(undefined);
      }, timeoutMs);
      timer.unref?.();
      const done = (result: Result) => {
        clearTimeout(timer);
        resolve(result);
      };
      const list = this.resultWaiters.get(key) ?? [];
      list.push(done);
      this.resultWaiters.set(key, list);
    });
  }

  status(): ConnectorStatus {
    const applied = this.position > 0n ? String(this.position - 1n) : null;
    const end = this.end === undefined ? null : String(this.end);
    const lag = this.end === undefined ? null : Number(this.end > this.position ? this.end - this.position : 0n);
    return {
      dataset: this.options.dataset,
      topic: this.config.topic,
      group: this.config.group,
      replica: this.replicaId,
      state: this.state,
      writes: this.config.writes,
      connected: this.connected,
      partitions: [{ partition: PARTITION, applied, end, lag }],
      messages: { ...this.counts },
      ...(this.error ? { error: this.error } : {}),
    };
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.wake?.();
    for (const waiters of this.resultWaiters.values()) for (const w of waiters) w({ error: unavailable('the server is stopping') });
    this.resultWaiters.clear();
    this.settlePositionWaiters(true);
    await this.topicLog.close();
    await this.loop?.catch(() => undefined);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      timer.unref?.();
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  private async retryUntil<T>(waitMs: number, what: string, attempt: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        return await attempt();
      } catch (error) {
        if (this.state === 'closed') throw error;
        if (Date.now() >= deadline) throw new Error(`kafka: could not ${what} (${this.config.brokers.join(',')}) within ${waitMs} ms: ${(error as Error).message}`, { cause: error });
        this.error = { reason: (error as Error).message };
        await this.pause(500);
      }
    }
  }
}

function unavailable(message: string): GraphServerError {
  return new GraphServerError('KAFKA_UNAVAILABLE', message, { headers: { 'retry-after': '5' } });
}

/** The refusal a CQRS writer gets for its own malformed message (it was checked before it was
 * produced, so this is rare: another replica's configuration, say). */
function asBadRequest(error: unknown, reason: string): unknown {
  if (error instanceof GraphServerError) return error;
  return new GraphServerError('BAD_REQUEST', `the write could not be applied from the log: ${reason}`, { cause: error });
}
