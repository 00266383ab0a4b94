/**
 * The Kafka connector of a dataset (docs/kafka.md): `dataset.kafka` in the configuration file.
 *
 *   dataset:
 *     kafka:
 *       topic: knowledge              # required; one partition (see docs/kafka.md, "Ordering")
 *       brokers: [kafka1:9092]        # or "kafka1:9092,kafka2:9092"; env KAFKA_BOOTSTRAP_SERVERS (main.ts)
 *       group: JenaFusekiKafka        # the reference's consumer group name (reported only)
 *       start: earliest               # an empty store reads the topic from its start (or: latest)
 *       fetchMessages: 500            # most messages applied per fetch
 *       onError: stop                 # a malformed message stops the connector (or: dead-letter)
 *       deadLetterTopic: knowledge.dlq
 *       writes: log                   # CQRS: HTTP writes go through the topic (or: direct, this replica only)
 *       readWaitMs: 10000             # longest wait for the Ianode-Offset a read asks for
 *       startWaitMs: 60000            # longest wait for the brokers at start
 *       tls: false                    # true, or { ca, cert, key, rejectUnauthorized } (PEM file paths)
 *       sasl: { mechanism: PLAIN, username: u, password: ${KAFKA_PASSWORD} }
 */
import { readFileSync } from 'node:fs';
import { checkSection, plainCopy, type Schema } from '../config-schema.js';

export interface KafkaTls {
  /** PEM file paths. */
  ca?: string | undefined;
  cert?: string | undefined;
  key?: string | undefined;
  rejectUnauthorized?: boolean | undefined;
}

export interface KafkaSasl {
  mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
  username: string;
  password: string;
}

export interface KafkaConfig {
  topic: string;
  brokers: string[];
  group: string;
  start: 'earliest' | 'latest';
  fetchMessages: number;
  onError: 'stop' | 'dead-letter';
  deadLetterTopic: string | undefined;
  writes: 'direct' | 'log';
  readWaitMs: number;
  startWaitMs: number;
  /** How long one fetch waits on the broker for new messages (ms). */
  fetchWaitMs: number;
  tls: KafkaTls | undefined;
  sasl: KafkaSasl | undefined;
  /** Name of this replica in logs, metrics and the messages it produces (default host:pid). */
  replicaId: string | undefined;
}

export const KAFKA_DEFAULTS = {
  group: 'JenaFusekiKafka',
  start: 'earliest',
  fetchMessages: 500,
  onError: 'stop',
  writes: 'log',
  readWaitMs: 10_000,
  startWaitMs: 60_000,
  fetchWaitMs: 500,
} as const;

const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;

const brokersSchema: Schema = { type: ['string', 'array'], items: { type: 'string' }, message: 'must name the bootstrap brokers (host:port, ...)' };
const count = (min: number, fallback: number): Schema => ({ type: 'integer', minimum: min, default: fallback, message: `must be a whole number of at least ${min}` });
const oneOf = (allowed: readonly string[], fallback?: string): Schema => ({ enum: [...allowed], ...(fallback === undefined ? {} : { default: fallback }), message: `must be one of ${allowed.join(', ')}` });

/** `dataset.kafka` of the configuration (config-schema.ts): its keys, kinds and defaults. */
export const KAFKA_SCHEMA: Schema = {
  type: 'object', additionalProperties: false, message: 'must be a mapping (topic, brokers, ...)',
  properties: {
    topic: { type: 'string', pattern: TOPIC.source, message: 'must be a Kafka topic name (letters, digits, . _ -)' },
    brokers: brokersSchema,
    bootstrapServers: brokersSchema,
    group: { type: 'string', minLength: 1, default: KAFKA_DEFAULTS.group, message: 'must be a name' },
    start: oneOf(['earliest', 'latest'], KAFKA_DEFAULTS.start),
    fetchMessages: count(1, KAFKA_DEFAULTS.fetchMessages),
    onError: oneOf(['stop', 'dead-letter'], KAFKA_DEFAULTS.onError),
    deadLetterTopic: { type: 'string', pattern: TOPIC.source, message: 'must be a Kafka topic name' },
    writes: oneOf(['direct', 'log'], KAFKA_DEFAULTS.writes),
    readWaitMs: count(0, KAFKA_DEFAULTS.readWaitMs),
    startWaitMs: count(0, KAFKA_DEFAULTS.startWaitMs),
    fetchWaitMs: count(1, KAFKA_DEFAULTS.fetchWaitMs),
    tls: {
      type: ['boolean', 'object'], message: 'must be true, false or { ca, cert, key, rejectUnauthorized }',
      additionalProperties: false,
      properties: {
        ca: { type: 'string', message: 'must be a PEM file path' },
        cert: { type: 'string', message: 'must be a PEM file path' },
        key: { type: 'string', message: 'must be a PEM file path' },
        rejectUnauthorized: { type: 'boolean', message: 'must be true or false' },
      },
    },
    sasl: {
      type: 'object', additionalProperties: false, message: 'must be { mechanism, username, password }',
      properties: { mechanism: { type: 'string', message: 'must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512' }, username: { type: 'string' }, password: { type: 'string' } },
    },
    replicaId: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$', message: 'must be a short name (letters, digits, . _ : -)' },
  },
};

/**
 * Checks and completes `dataset.kafka` (undefined, null or false = no connector); throws TypeError
 * naming the key under `where`. The brokers come from the file (`KAFKA_BOOTSTRAP_SERVERS` is put
 * there by configFromEnv, in main.ts).
 */
export function resolveKafkaConfig(input: unknown, where = 'dataset.kafka'): KafkaConfig | undefined {
  if (input === undefined || input === null || input === false) return undefined;
  const raw = plainCopy(input) as Record<string, unknown>;
  checkSection(KAFKA_SCHEMA, raw, where);
  const topic = raw.topic;
  if (typeof topic !== 'string') throw new TypeError(`${where}.topic must be a Kafka topic name (letters, digits, . _ -)`);
  const brokers = brokerList(raw.brokers ?? raw.bootstrapServers, `${where}.brokers`);
  const onError = raw.onError as KafkaConfig['onError'];
  const deadLetterTopic = raw.deadLetterTopic as string | undefined;
  if (onError === 'dead-letter' && deadLetterTopic === undefined) throw new TypeError(`${where}.onError: dead-letter needs ${where}.deadLetterTopic`);
  if (deadLetterTopic === topic) throw new TypeError(`${where}.deadLetterTopic must not be the topic itself`);
  return {
    topic,
    brokers,
    group: raw.group as string,
    start: raw.start as KafkaConfig['start'],
    fetchMessages: raw.fetchMessages as number,
    onError,
    deadLetterTopic,
    writes: raw.writes as KafkaConfig['writes'],
    readWaitMs: raw.readWaitMs as number,
    startWaitMs: raw.startWaitMs as number,
    fetchWaitMs: raw.fetchWaitMs as number,
    tls: tlsOf(raw.tls),
    sasl: saslOf(raw.sasl, `${where}.sasl`),
    replicaId: raw.replicaId as string | undefined,
  };
}

function brokerList(value: unknown, field: string): string[] {
  const list = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (list === undefined) throw new TypeError(`${field} must name the bootstrap brokers (host:port, ...) or KAFKA_BOOTSTRAP_SERVERS be set`);
  const brokers = list.map((b) => (typeof b === 'string' ? b.trim() : '')).filter((b) => b !== '');
  if (brokers.length === 0) throw new TypeError(`${field} names no broker`);
  for (const b of brokers) if (!/^[^\s:/]+:\d{1,5}$/.test(b) && !/^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(b)) throw new TypeError(`${field}: ${JSON.stringify(b)} is not host:port`);
  return brokers;
}

/** `tls` as the schema let it through: true = TLS with the system's CAs, false/absent = none. */
function tlsOf(value: unknown): KafkaTls | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return {};
  const t = value as KafkaTls;
  return { ca: t.ca, cert: t.cert, key: t.key, rejectUnauthorized: t.rejectUnauthorized };
}

function saslOf(value: unknown, where: string): KafkaSasl | undefined {
  if (value === undefined) return undefined;
  const s = value as Record<string, unknown>;
  const mechanism = typeof s.mechanism === 'string' ? s.mechanism.toUpperCase() : undefined;
  if (mechanism !== 'PLAIN' && mechanism !== 'SCRAM-SHA-256' && mechanism !== 'SCRAM-SHA-512') throw new TypeError(`${where}.mechanism must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512`);
  if (typeof s.username !== 'string' || typeof s.password !== 'string') throw new TypeError(`${where} needs username and password`);
  return { mechanism, username: s.username, password: s.password };
}

/** Connection options of @platformatic/kafka clients for this configuration (TLS files read now). */
export function connectionOptions(config: KafkaConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (config.tls !== undefined) {
    const { ca, cert, key, rejectUnauthorized } = config.tls;
    out.tls = {
      ...(ca ? { ca: readFileSync(ca) } : {}),
      ...(cert ? { cert: readFileSync(cert) } : {}),
      ...(key ? { key: readFileSync(key) } : {}),
      ...(rejectUnauthorized === undefined ? {} : { rejectUnauthorized }),
    };
  }
  if (config.sasl !== undefined) out.sasl = { ...config.sasl };
  return out;
}
