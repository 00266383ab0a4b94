/**
 * The Kafka test harness (test/kafka/broker.mjs) and the client the graph server uses
 * (@platformatic/kafka) against real Apache Kafka brokers: headers and bodies survive a round trip,
 * a reader can start at an explicit offset without a group position, and a 3-node cluster loses
 * nothing acknowledged with acks=all when one node is SIGKILLed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Admin,
  Consumer,
  ListOffsetTimestamps,
  MessagesStreamFallbackModes,
  MessagesStreamModes,
  ProduceAcks,
  Producer,
  stringSerializer,
  type Message,
} from '@platformatic/kafka';
import { startKafka, type KafkaCluster } from '../kafka/broker.mjs';

/** Reads `count` messages from `topic` starting at `offset` of each listed partition, in a group of its own. */
async function readFrom(bootstrap: string, topic: string, starts: { partition: number; offset: bigint }[], count: number): Promise<Message[]> {
  const consumer = new Consumer({
    clientId: 'kafka-broker-e2e',
    groupId: `kafka-broker-e2e-${topic}-${Math.random().toString(36).slice(2)}`,
    bootstrapBrokers: bootstrap.split(','),
    maxWaitTime: 500,
    retries: 10,
    retryDelay: 500,
  });
  const stream = await consumer.consume({
    topics: [topic],
    autocommit: false,
    mode: MessagesStreamModes.MANUAL,
    offsets: starts.map((s) => ({ topic, ...s })),
    fallbackMode: MessagesStreamFallbackModes.EARLIEST,
  });
  const got: Message[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read ${got.length} of ${count} messages from ${topic}`)), 45_000);
      stream.on('data', (message: Message) => {
        got.push(message);
        if (got.length >= count) {
          clearTimeout(timer);
          resolve();
        }
      });
      stream.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  } finally {
    await stream.close();
    await consumer.close();
  }
  return got;
}

const header = (message: Message, name: string) => {
  for (const [key, value] of message.headers) if (key.toString() === name) return value.toString();
  return undefined;
};

describe('one Kafka broker', { timeout: 120_000 }, () => {
  let kafka: KafkaCluster;
  beforeAll(async () => {
    const started = Date.now();
    kafka = await startKafka({ brokers: 1 });
    console.info(`kafka: 1 node(s) answered after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 180_000);
  afterAll(async () => {
    await kafka?.stop();
  });

  it('carries Content-Type and Security-Label headers and string/Buffer bodies; a reader starts at offset 2', async () => {
    expect(kafka.bootstrap).toMatch(/^127\.0\.0\.1:\d+$/);
    await kafka.createTopic('rdf', { partitions: 1 });
    // Header names and values as strings, bodies as Buffers (the value serialiser stays the no-op one).
    const producer = new Producer({
      clientId: 'kafka-broker-e2e',
      bootstrapBrokers: kafka.bootstrap.split(','),
      serializers: { headerKey: stringSerializer, headerValue: stringSerializer },
    });
    // All Buffers (no serialisers): headers must then be a Map<Buffer, Buffer>.
    const raw = new Producer({ clientId: 'kafka-broker-e2e', bootstrapBrokers: kafka.bootstrap.split(',') });
    const bodies = [
      '<http://example.org/s0> <http://example.org/p> "zero" .',
      '<http://example.org/s1> <http://example.org/p> "one" .',
      'PREFIX ex: <http://example.org/> INSERT DATA { ex:s2 ex:p "two" }',
      'A <_:b1> <http://example.org/p> "three" .',
      '<http://example.org/s4> <http://example.org/p> "vier – ünïcode" .',
    ];
    const types = ['application/n-triples', 'text/turtle', 'application/sparql-update', 'application/rdf-patch', 'text/turtle'];
    try {
      const first = await producer.send({
        acks: ProduceAcks.ALL,
        messages: bodies.slice(0, 2).map((body, i) => ({
          topic: 'rdf',
          value: Buffer.from(body),
          headers: { 'Content-Type': types[i]!, 'Security-Label': `level-${i}` },
        })),
      });
      expect(first.offsets).toEqual([{ topic: 'rdf', partition: 0, offset: 0n }]);
      // One at a time, with a Map of headers; the last without a label.
      for (let i = 2; i < bodies.length; i++) {
        const headers = new Map<Buffer, Buffer>([[Buffer.from('Content-Type'), Buffer.from(types[i]!)]]);
        if (i < 4) headers.set(Buffer.from('Security-Label'), Buffer.from(`level-${i}`));
        const result = await raw.send({ acks: ProduceAcks.ALL, messages: [{ topic: 'rdf', key: Buffer.from(`k${i}`), value: Buffer.from(bodies[i]!), headers }] });
        expect(result.offsets).toEqual([{ topic: 'rdf', partition: 0, offset: BigInt(i) }]);
      }
    } finally {
      await producer.close();
      await raw.close();
    }

    const admin = new Admin({ clientId: 'kafka-broker-e2e', bootstrapBrokers: kafka.bootstrap.split(',') });
    try {
      const [end] = await admin.listOffsets({ topics: [{ name: 'rdf', partitions: [{ partitionIndex: 0, timestamp: ListOffsetTimestamps.LATEST }] }] });
      expect(end!.partitions.map((p) => [p.partitionIndex, p.offset])).toEqual([[0, 5n]]);
      const [start] = await admin.listOffsets({ topics: [{ name: 'rdf', partitions: [{ partitionIndex: 0, timestamp: ListOffsetTimestamps.EARLIEST }] }] });
      expect(start!.partitions[0]!.offset).toBe(0n);
    } finally {
      await admin.close();
    }
    // The same from a consumer (no group joined for it): a Map of topic → end offset per partition.
    const offsets = new Consumer({ clientId: 'kafka-broker-e2e', groupId: 'offsets-only', bootstrapBrokers: kafka.bootstrap.split(',') });
    try {
      expect(await offsets.listOffsets({ topics: ['rdf'] })).toEqual(new Map([['rdf', [5n]]]));
      expect(await offsets.listOffsets({ topics: ['rdf'], timestamp: ListOffsetTimestamps.EARLIEST })).toEqual(new Map([['rdf', [0n]]]));
    } finally {
      await offsets.close();
    }

    const got = await readFrom(kafka.bootstrap, 'rdf', [{ partition: 0, offset: 2n }], 3);
    expect(got.map((m) => m.offset)).toEqual([2n, 3n, 4n]);
    expect(got.map((m) => m.partition)).toEqual([0, 0, 0]);
    expect(got.map((m) => m.value.toString('utf8'))).toEqual(bodies.slice(2));
    expect(got.map((m) => header(m, 'Content-Type'))).toEqual(types.slice(2));
    expect(got.map((m) => header(m, 'Security-Label'))).toEqual(['level-2', 'level-3', undefined]);
    expect(got.map((m) => m.key.toString())).toEqual(['k2', 'k3', 'k4']);

    // Reading from the start gets the first two too, with their headers.
    const all = await readFrom(kafka.bootstrap, 'rdf', [{ partition: 0, offset: 0n }], 5);
    expect(all.map((m) => m.offset)).toEqual([0n, 1n, 2n, 3n, 4n]);
    expect(header(all[0]!, 'Security-Label')).toBe('level-0');
    expect(header(all[1]!, 'Content-Type')).toBe('text/turtle');
  });

  it('string serialisers: string bodies and headers in, strings out', async () => {
    const { stringSerializers, stringDeserializers } = await import('@platformatic/kafka');
    await kafka.createTopic('strings');
    const producer = new Producer({ clientId: 'kafka-broker-e2e', bootstrapBrokers: kafka.bootstrap.split(','), serializers: stringSerializers });
    try {
      const result = await producer.send({
        acks: ProduceAcks.ALL,
        messages: [{ topic: 'strings', value: '<a:s> <a:p> "x" .', headers: { 'Content-Type': 'text/turtle', 'Security-Label': 'secret' } }],
      });
      expect(result.offsets![0]!.offset).toBe(0n);
    } finally {
      await producer.close();
    }
    const consumer = new Consumer({ clientId: 'kafka-broker-e2e', groupId: 'strings-reader', bootstrapBrokers: kafka.bootstrap.split(','), deserializers: stringDeserializers, maxWaitTime: 500 });
    try {
      const stream = await consumer.consume({ topics: ['strings'], autocommit: false, mode: MessagesStreamModes.EARLIEST });
      const [message] = await new Promise<Message<string, string, string, string>[]>((resolve) => stream.once('data', (m) => resolve([m])));
      expect(message!.value).toBe('<a:s> <a:p> "x" .');
      expect(message!.headers.get('Content-Type')).toBe('text/turtle');
      expect(message!.headers.get('Security-Label')).toBe('secret');
      expect(message!.offset).toBe(0n);
      await stream.close();
    } finally {
      await consumer.close();
    }
  });
});

describe('three Kafka brokers', () => {
  let kafka: KafkaCluster;
  beforeAll(async () => {
    const started = Date.now();
    kafka = await startKafka({ brokers: 3 });
    console.info(`kafka: 3 node(s) answered after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 180_000);
  afterAll(async () => {
    await kafka?.stop();
  });

  it('replication factor 3: one broker SIGKILLed, acks=all writes go on and nothing is lost', async () => {
    expect(kafka.brokers.map((b) => b.id)).toEqual([1, 2, 3]);
    expect(kafka.bootstrap.split(',')).toHaveLength(3);
    await kafka.createTopic('replicated', { partitions: 2, replicationFactor: 3 });
    const admin = new Admin({ clientId: 'kafka-broker-e2e', bootstrapBrokers: kafka.bootstrap.split(',') });
    const metadata = await admin.metadata({ topics: ['replicated'] });
    expect(metadata.topics.get('replicated')!.partitions.map((p) => [...p.replicas].sort())).toEqual([
      [1, 2, 3],
      [1, 2, 3],
    ]);
    const leader0 = metadata.topics.get('replicated')!.partitions[0]!.leader;

    const producer = new Producer({
      clientId: 'kafka-broker-e2e',
      bootstrapBrokers: kafka.bootstrap.split(','),
      acks: ProduceAcks.ALL,
      idempotent: true, // a send retried after an unclear failure is not written twice
      retries: 3,
      retryDelay: 300,
    });
    // The client retries a send on the leader it knew; when that leader is dead the send fails, and
    // the caller drops the cached metadata and sends again once the cluster has elected a new one.
    let resends = 0;
    const send = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const deadline = Date.now() + 60_000;
        for (;;) {
          try {
            await producer.send({
              messages: [{ topic: 'replicated', partition: i % 2, value: Buffer.from(`message ${i}`), headers: new Map([[Buffer.from('Content-Type'), Buffer.from('text/plain')]]) }],
            });
            break;
          } catch (error) {
            if (Date.now() > deadline) throw error;
            resends++;
            producer.clearMetadata();
            await new Promise((resolve) => setTimeout(resolve, 500));
          }
        }
      }
    };
    try {
      await send(0, 20);
      // Kill the leader of partition 0: its followers must take over with every acknowledged message.
      await kafka.kill(leader0);
      await send(20, 40);
      expect(resends).toBeGreaterThan(0); // the kill did hit a send
    } finally {
      await producer.close();
    }

    const survivors = kafka.brokers.filter((b) => b.id !== leader0).map((b) => `127.0.0.1:${b.port}`).join(',');
    const all = await readFrom(survivors, 'replicated', [{ partition: 0, offset: 0n }, { partition: 1, offset: 0n }], 40);
    const values = all.map((m) => m.value.toString()).sort((a, b) => Number(a.split(' ')[1]) - Number(b.split(' ')[1]));
    expect(values).toEqual(Array.from({ length: 40 }, (_, i) => `message ${i}`));
    for (const partition of [0, 1]) {
      expect(all.filter((m) => m.partition === partition).map((m) => m.offset)).toEqual(Array.from({ length: 20 }, (_, i) => BigInt(i)));
    }

    // The killed node comes back with its data and rejoins.
    await kafka.start(leader0);
    const after = await admin.metadata({ topics: ['replicated'], forceUpdate: true });
    expect([...after.brokers.keys()].sort()).toEqual([1, 2, 3]);
    await admin.close();
  }, 180_000);
});
