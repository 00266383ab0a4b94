/**
 * `ianode kafka send` and `ianode kafka status`: the operator's side of Kafka ingestion (issue 16),
 * as the reference's `fk send`. The messages are what the graph server's connector reads: the body
 * as it is in the file, a `Content-Type` header always, a `Security-Label` header when a label is
 * given. The Kafka protocol is @platformatic/kafka's (loaded only by these commands).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { SECURITY_LABEL_HEADER } from '@ianode/store';

/** The content type of a message by the file's extension (as `/ds/upload` tells formats, plus patches and updates). */
export const KAFKA_EXTENSION_TYPES: Readonly<Record<string, string>> = {
  ttl: 'text/turtle',
  nt: 'application/n-triples',
  nq: 'application/n-quads',
  trig: 'application/trig',
  jsonld: 'application/ld+json',
  rdf: 'application/rdf+xml',
  owl: 'application/rdf+xml',
  rp: 'application/rdf-patch',
  rdfp: 'application/rdf-patch',
  ru: 'application/sparql-update',
  rq: 'application/sparql-update',
};

/** The content type for FILE, or undefined when its extension says nothing (stdin has none). */
export function contentTypeFor(file: string): string | undefined {
  if (file === '-') return undefined;
  return KAFKA_EXTENSION_TYPES[path.extname(file).slice(1).toLowerCase()];
}

/** "h1:9092, h2:9092" → ["h1:9092", "h2:9092"]; an entry that is not host:port is an error. */
export function parseBrokers(text: string): string[] {
  const brokers = text
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '');
  if (brokers.length === 0) throw new Error('no Kafka brokers given');
  for (const broker of brokers) {
    if (!/^(?:\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/.test(broker)) throw new Error(`not a Kafka broker address (host:port): ${JSON.stringify(broker)}`);
  }
  return brokers;
}

export interface KafkaSendOptions {
  brokers: string[];
  topic: string;
  contentType: string;
  label: string | undefined;
}

export interface KafkaStatusOptions {
  brokers: string[] | undefined;
  topic: string | undefined;
  /** The graph server (its root or a dataset URL's origin): GET SERVER/$/kafka. */
  server: string | undefined;
  /** Sent as the bearer token to the server when set. */
  token: string | undefined;
}

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processOutput: Output = { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) };

/**
 * The Kafka client reports a failure as nested AggregateErrors ("metadata failed 4 times." over
 * "Cannot connect to any broker." over "connect ECONNREFUSED …"): one line with every distinct
 * message, outermost first, so the operator sees the cause.
 */
export function describeKafkaError(error: unknown): string {
  const seen: string[] = [];
  const walk = (e: unknown, depth: number) => {
    if (depth > 6 || !(e instanceof Error)) return;
    const message = e.message.replace(/\.$/, '');
    if (message !== '' && !seen.includes(message)) seen.push(message);
    for (const inner of (e as { errors?: unknown[] }).errors ?? []) walk(inner, depth + 1);
    walk((e as { cause?: unknown }).cause, depth + 1);
  };
  walk(error, 0);
  return seen.length > 0 ? seen.join(': ') : String(error);
}

/** Runs a Kafka step; its failure becomes one Error naming the brokers and the cause. */
async function onKafka<T>(brokers: string[], step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new Error(`Kafka ${brokers.join(',')}: ${describeKafkaError(error)}`, { cause: error });
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

/** `ianode kafka send FILE`: one message with FILE's bytes (stdin for `-`), acknowledged by every in-sync replica. */
export async function kafkaSend(file: string, opts: KafkaSendOptions, out: Output = processOutput, stdin: Readable = process.stdin): Promise<number> {
  const body = file === '-' ? await readAll(stdin) : await readFile(file);
  const { Producer, ProduceAcks, stringSerializer } = await import('@platformatic/kafka');
  const headers: Record<string, string> = { 'Content-Type': opts.contentType };
  if (opts.label !== undefined) headers[SECURITY_LABEL_HEADER] = opts.label;
  const producer = new Producer({
    clientId: 'ianode-kafka-send',
    bootstrapBrokers: opts.brokers,
    // Header names and values are strings; the body stays the file's bytes.
    serializers: { headerKey: stringSerializer, headerValue: stringSerializer },
    retries: 3,
    retryDelay: 300,
  });
  try {
    const result = await onKafka(opts.brokers, () => producer.send({ acks: ProduceAcks.ALL, messages: [{ topic: opts.topic, value: body, headers }] }));
    const sent = result.offsets?.[0];
    if (sent === undefined) throw new Error(`Kafka did not say where the message to ${opts.topic} went`);
    out.stdout(`sent to ${sent.topic} partition ${sent.partition} offset ${sent.offset}\n`);
    return 0;
  } finally {
    await producer.close();
  }
}

/** The topic's partitions with their first and end offsets (end: the offset the next message gets). */
export async function topicOffsets(brokers: string[], topic: string): Promise<{ partition: number; start: bigint; end: bigint }[]> {
  const { Admin, ListOffsetTimestamps } = await import('@platformatic/kafka');
  const admin = new Admin({ clientId: 'ianode-kafka-status', bootstrapBrokers: brokers, retries: 3, retryDelay: 300 });
  try {
    const metadata = await onKafka(brokers, () => admin.metadata({ topics: [topic] }));
    const count = metadata.topics.get(topic)?.partitionsCount ?? 0;
    const partitions = Array.from({ length: count }, (_, i) => i);
    const list = async (timestamp: bigint) => {
      const [listed] = await admin.listOffsets({ topics: [{ name: topic, partitions: partitions.map((partitionIndex) => ({ partitionIndex, timestamp })) }] });
      return new Map((listed?.partitions ?? []).map((p) => [p.partitionIndex, p.offset]));
    };
    const starts = await onKafka(brokers, () => list(ListOffsetTimestamps.EARLIEST));
    const ends = await onKafka(brokers, () => list(ListOffsetTimestamps.LATEST));
    return partitions.map((partition) => ({ partition, start: starts.get(partition) ?? 0n, end: ends.get(partition) ?? 0n }));
  } finally {
    await admin.close();
  }
}

/** `ianode kafka status`: the topic's end offsets, and with a server its connectors' positions (`GET /$/kafka`). */
export async function kafkaStatus(opts: KafkaStatusOptions, out: Output = processOutput): Promise<number> {
  let code = 0;
  if (opts.brokers !== undefined && opts.topic !== undefined) {
    const partitions = await topicOffsets(opts.brokers, opts.topic);
    out.stdout(`topic ${opts.topic} (${opts.brokers.join(',')}): ${partitions.length} partition${partitions.length === 1 ? '' : 's'}\n`);
    for (const p of partitions) out.stdout(`  partition ${p.partition}  start ${p.start}  end ${p.end}\n`);
  }
  if (opts.server !== undefined) {
    const url = `${new URL(opts.server).origin}/$/kafka`;
    let response: Response;
    try {
      response = await fetch(url, { headers: { accept: 'application/json', ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) } });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      out.stderr(`ianode kafka status: the graph server at ${url} did not answer: ${cause ?? (error as Error).message}\n`);
      return 1;
    }
    const text = await response.text();
    if (response.status === 404) {
      out.stdout(`graph server ${url}: no Kafka status there (404): this server has no Kafka ingestion\n`);
    } else if (!response.ok) {
      out.stderr(`ianode kafka status: ${url} answered ${response.status}: ${text.slice(0, 500)}\n`);
      code = 1;
    } else {
      let shown = text;
      try {
        shown = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        // Not JSON: shown as it came.
      }
      out.stdout(`graph server ${url}:\n${shown}\n`);
    }
  }
  return code;
}
