/**
 * Reading and writing a dataset's topic with @platformatic/kafka (the Kafka protocol, connections,
 * retries, record batches and compression are the library's).
 *
 * Why the connector drives fetches itself instead of the library's consumer stream: that stream
 * joins a consumer group, and a group shares a topic's partitions among its members — replicas
 * behind one group would each see part of the log. Every replica must read every message, from
 * the position its own store holds (exactly-once apply: the offset is committed with the data,
 * docs/kafka.md), so the connector asks the partition leader for records from an explicit offset
 * (`Consumer.fetch`) and keeps the position itself. No offsets are committed to Kafka.
 */
import { hostname } from 'node:os';
import { Consumer, Producer } from '@platformatic/kafka';
import type { KafkaConfig } from './config.js';
import { connectionOptions } from './config.js';

/** One record of the topic, as the connector reads it. */
export interface LogMessage {
  topic: string;
  partition: number;
  offset: bigint;
  /** Header names in lower case; values as UTF-8 text (the first of a repeated name wins). */
  headers: Map<string, string>;
  value: Buffer;
  timestamp: bigint;
}

/** What one fetch brought. */
export interface FetchResult {
  /** Records at or after the offset asked for, in offset order (control records left out). */
  messages: LogMessage[];
  /** The partition's end: the offset the next record written will get. */
  end: bigint;
  /** The next offset to ask for: past the last record returned, or past skipped control records. */
  next: bigint;
}

/** Kafka error codes the connector tells apart (the protocol's numbers). */
export const KAFKA_ERRORS = { OFFSET_OUT_OF_RANGE: 1 } as const;

const IS_CONTROL = 0x20;

export function defaultReplicaId(): string {
  return `${hostname()}:${process.pid}`;
}

/** Whether an error from the client carries a Kafka error code (ResponseError: `errors` by path). */
export function kafkaErrorCodes(error: unknown): number[] {
  const codes: number[] = [];
  const seen = new Set<unknown>();
  const walk = (e: unknown): void => {
    if (e === null || typeof e !== 'object' || seen.has(e)) return;
    seen.add(e);
    const record = e as { errors?: unknown; code?: unknown; errorCode?: unknown; response?: unknown; cause?: unknown };
    if (typeof record.errorCode === 'number') codes.push(record.errorCode);
    if (Array.isArray(record.errors)) record.errors.forEach(walk);
    else if (record.errors && typeof record.errors === 'object') {
      for (const value of Object.values(record.errors as Record<string, unknown>)) {
        if (Array.isArray(value) && typeof value[0] === 'number') codes.push(value[0]);
        else walk(value);
      }
    }
    walk(record.cause);
  };
  walk(error);
  return codes;
}

/** The topic of one dataset: fetch from an offset, end offsets, and produce. */
export class TopicLog {
  private readonly consumer: Consumer<Buffer, Buffer, Buffer, Buffer>;
  private producer: Producer<Buffer, Buffer, Buffer, Buffer> | undefined;
  private closed = false;

  constructor(private readonly config: KafkaConfig, private readonly clientId: string) {
    this.consumer = new Consumer({
      clientId,
      // Never used to join: the connector fetches by itself (see the head of this file).
      groupId: config.group,
      bootstrapBrokers: config.brokers,
      retries: 3,
      retryDelay: 250,
      timeout: 10_000,
      ...connectionOptions(config),
    });
  }

  /** How many partitions the topic has (metadata); throws when the topic does not exist. */
  async partitions(): Promise<number> {
    const metadata = await this.consumer.metadata({ topics: [this.config.topic], forceUpdate: true });
    const topic = metadata.topics.get(this.config.topic);
    if (topic === undefined) throw new Error(`topic ${this.config.topic} does not exist`);
    return topic.partitionsCount;
  }

  /** The offset the next record of `partition` will get (the high watermark). */
  async endOffset(partition: number): Promise<bigint> {
    return this.offsetAt(partition, -1n);
  }

  /** The first offset `partition` still holds (records before it were removed by retention). */
  async startOffset(partition: number): Promise<bigint> {
    return this.offsetAt(partition, -2n);
  }

  private async offsetAt(partition: number, timestamp: bigint): Promise<bigint> {
    const offsets = await this.consumer.listOffsets({ topics: [this.config.topic], partitions: { [this.config.topic]: [partition] }, timestamp });
    const value = offsets.get(this.config.topic)?.[partition];
    if (value === undefined) throw new Error(`no offset for ${this.config.topic} partition ${partition}`);
    return value;
  }

  /** Records of `partition` from `offset`, waiting up to `maxWaitMs` when there is none yet. */
  async fetch(partition: number, offset: bigint, maxWaitMs: number, maxBytes = 8 * 1024 * 1024): Promise<FetchResult> {
    const metadata = await this.consumer.metadata({ topics: [this.config.topic] });
    const topic = metadata.topics.get(this.config.topic);
    if (topic === undefined) throw new Error(`topic ${this.config.topic} does not exist`);
    const leader = topic.partitions[partition]?.leader;
    if (leader === undefined || leader < 0) {
      this.consumer.clearMetadata();
      throw new Error(`partition ${partition} of ${this.config.topic} has no leader now`);
    }
    let response;
    try {
      response = await this.consumer.fetch({
        node: leader,
        maxWaitTime: maxWaitMs,
        minBytes: 1,
        maxBytes,
        topics: [{ topicId: topic.id, partitions: [{ partition, fetchOffset: offset, partitionMaxBytes: maxBytes, currentLeaderEpoch: -1, lastFetchedEpoch: -1 }] }],
      });
    } catch (error) {
      // A moved leader or a lost connection: ask for fresh metadata next time.
      this.consumer.clearMetadata();
      throw error;
    }
    const messages: LogMessage[] = [];
    let end = offset;
    let next = offset;
    for (const topicResponse of response.responses) {
      for (const p of topicResponse.partitions) {
        if (p.partitionIndex !== partition) continue;
        end = p.highWatermark;
        for (const batch of p.records ?? []) {
          const last = batch.firstOffset + BigInt(batch.lastOffsetDelta);
          if (last >= next) next = last + 1n;
          if ((batch.attributes & IS_CONTROL) !== 0) continue; // transaction markers hold no data
          for (const record of batch.records) {
            const at = batch.firstOffset + BigInt(record.offsetDelta);
            if (at < offset) continue; // a batch can start before the offset asked for
            const headers = new Map<string, string>();
            for (const [k, v] of record.headers) {
              if (k === null) continue;
              const name = k.toString('utf8').toLowerCase();
              if (!headers.has(name)) headers.set(name, v === null ? '' : v.toString('utf8'));
            }
            messages.push({
              topic: this.config.topic,
              partition,
              offset: at,
              headers,
              value: record.value ?? Buffer.alloc(0),
              timestamp: batch.firstTimestamp + record.timestampDelta,
            });
          }
        }
      }
    }
    return { messages, end, next };
  }

  /** Append records to `topic` (default the dataset's) with acks from every in-sync replica; the
   * offsets they got, in order. */
  async produce(records: { value: Buffer; headers: Record<string, string>; partition?: number }[], topic = this.config.topic): Promise<{ partition: number; offset: bigint }[]> {
    if (this.closed) throw new Error('the Kafka connection is closed');
    this.producer ??= new Producer({
      clientId: `${this.clientId}-producer`,
      bootstrapBrokers: this.config.brokers,
      acks: -1,
      idempotent: true,
      retries: 5,
      retryDelay: 250,
      timeout: 10_000,
      ...connectionOptions(this.config),
    });
    const result = await this.producer.send({
      messages: records.map((r) => ({
        topic,
        partition: r.partition ?? 0,
        value: r.value,
        headers: new Map(Object.entries(r.headers).map(([k, v]) => [Buffer.from(k), Buffer.from(v, 'utf8')] as [Buffer, Buffer])),
      })),
    });
    const offsets = (result.offsets ?? []).filter((o) => o.topic === topic);
    // One send to one partition: the broker gives the first offset; the rest follow it.
    const first = offsets[0];
    if (first === undefined) throw new Error(`the broker did not say where ${topic} stored the records`);
    return records.map((r, i) => ({ partition: r.partition ?? 0, offset: first.offset + BigInt(i) }));
  }

  /** After a failed produce: ask for fresh metadata (a dead leader is not retried for ever). */
  forgetLeaders(): void {
    this.producer?.clearMetadata();
    this.consumer.clearMetadata();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([this.consumer.close(true), this.producer?.close(true)]);
  }
}
