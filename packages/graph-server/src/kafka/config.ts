/**
 * The Kafka connector of a dataset (docs/kafka.md): `dataset.kafka` in the configuration file.
 *
 *   dataset:
 *     kafka:
 *       topic: knowledge              # required; one partition (see docs/kafka.md, "Ordering")
 *       brokers: [kafka1:9092]        # or "kafka1:9092,kafka2:9092"; env KAFKA_BOOTSTRAP_SERVERS
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

/** Checks and completes `dataset.kafka` (undefined = no connector); throws TypeError naming the field. */
export function resolveKafkaConfig(input: unknown, env: NodeJS.ProcessEnv = process.env): KafkaConfig | undefined {
  if (input === undefined || input === null || input === false) return undefined;
  if (typeof input !== 'object' || Array.isArray(input)) throw new TypeError('dataset.kafka must be a mapping (topic, brokers, ...)');
  const raw = input as Record<string, unknown>;
  const known = new Set(['topic', 'brokers', 'bootstrapServers', 'group', 'start', 'fetchMessages', 'onError', 'deadLetterTopic', 'writes', 'readWaitMs', 'startWaitMs', 'fetchWaitMs', 'tls', 'sasl', 'replicaId']);
  for (const key of Object.keys(raw)) if (!known.has(key)) throw new TypeError(`dataset.kafka.${key} is not a setting (known: ${[...known].join(', ')})`);

  const topic = raw.topic;
  if (typeof topic !== 'string' || !TOPIC.test(topic)) throw new TypeError('dataset.kafka.topic must be a Kafka topic name (letters, digits, . _ -)');
  const brokers = brokerList(raw.brokers ?? raw.bootstrapServers ?? env.KAFKA_BOOTSTRAP_SERVERS, 'dataset.kafka.brokers');
  const oneOf = <T extends string>(field: string, value: unknown, allowed: readonly T[], fallback: T): T => {
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !allowed.includes(value as T)) throw new TypeError(`dataset.kafka.${field} must be one of ${allowed.join(', ')}`);
    return value as T;
  };
  const count = (field: string, value: unknown, fallback: number, min = 0): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) throw new TypeError(`dataset.kafka.${field} must be a whole number of at least ${min}`);
    return value;
  };
  const onError = oneOf('onError', raw.onError, ['stop', 'dead-letter'] as const, KAFKA_DEFAULTS.onError);
  const deadLetterTopic = raw.deadLetterTopic;
  if (deadLetterTopic !== undefined && (typeof deadLetterTopic !== 'string' || !TOPIC.test(deadLetterTopic))) throw new TypeError('dataset.kafka.deadLetterTopic must be a Kafka topic name');
  if (onError === 'dead-letter' && deadLetterTopic === undefined) throw new TypeError('dataset.kafka.onError: dead-letter needs dataset.kafka.deadLetterTopic');
  if (deadLetterTopic === topic) throw new TypeError('dataset.kafka.deadLetterTopic must not be the topic itself');
  const group = raw.group ?? KAFKA_DEFAULTS.group;
  if (typeof group !== 'string' || group === '') throw new TypeError('dataset.kafka.group must be a name');
  const replicaId = raw.replicaId;
  if (replicaId !== undefined && (typeof replicaId !== 'string' || !/^[A-Za-z0-9._:-]{1,100}$/.test(replicaId))) throw new TypeError('dataset.kafka.replicaId must be a short name (letters, digits, . _ : -)');
  return {
    topic,
    brokers,
    group,
    start: oneOf('start', raw.start, ['earliest', 'latest'] as const, KAFKA_DEFAULTS.start),
    fetchMessages: count('fetchMessages', raw.fetchMessages, KAFKA_DEFAULTS.fetchMessages, 1),
    onError,
    deadLetterTopic: deadLetterTopic as string | undefined,
    writes: oneOf('writes', raw.writes, ['direct', 'log'] as const, KAFKA_DEFAULTS.writes),
    readWaitMs: count('readWaitMs', raw.readWaitMs, KAFKA_DEFAULTS.readWaitMs),
    startWaitMs: count('startWaitMs', raw.startWaitMs, KAFKA_DEFAULTS.startWaitMs),
    fetchWaitMs: count('fetchWaitMs', raw.fetchWaitMs, KAFKA_DEFAULTS.fetchWaitMs, 1),
    tls: tlsOf(raw.tls),
    sasl: saslOf(raw.sasl),
    replicaId: replicaId as string | undefined,
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

function tlsOf(value: unknown): KafkaTls | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError('dataset.kafka.tls must be true, false or { ca, cert, key, rejectUnauthorized }');
  const t = value as Record<string, unknown>;
  for (const f of ['ca', 'cert', 'key'] as const) if (t[f] !== undefined && typeof t[f] !== 'string') throw new TypeError(`dataset.kafka.tls.${f} must be a PEM file path`);
  if (t.rejectUnauthorized !== undefined && typeof t.rejectUnauthorized !== 'boolean') throw new TypeError('dataset.kafka.tls.rejectUnauthorized must be true or false');
  return { ca: t.ca as string | undefined, cert: t.cert as string | undefined, key: t.key as string | undefined, rejectUnauthorized: t.rejectUnauthorized as boolean | undefined };
}

function saslOf(value: unknown): KafkaSasl | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError('dataset.kafka.sasl must be { mechanism, username, password }');
  const s = value as Record<string, unknown>;
  const mechanism = typeof s.mechanism === 'string' ? s.mechanism.toUpperCase() : undefined;
  if (mechanism !== 'PLAIN' && mechanism !== 'SCRAM-SHA-256' && mechanism !== 'SCRAM-SHA-512') throw new TypeError('dataset.kafka.sasl.mechanism must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512');
  if (typeof s.username !== 'string' || typeof s.password !== 'string') throw new TypeError('dataset.kafka.sasl needs username and password');
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
