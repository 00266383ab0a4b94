/**
 * The audit log and the Kafka connector (issue 18) against a real Apache Kafka broker
 * (test/kafka/broker.mjs; never a mock): one record per message applied, refused or malformed,
 * with its offset, in the dataset's `audit.file`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Producer } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphServer, type GraphServer } from '../../packages/graph-server/src/index.js';
import { startKafka, type KafkaCluster } from '../kafka/broker.mjs';

let cluster: KafkaCluster;
let dir: string;
let server: GraphServer | undefined;

beforeAll(async () => {
  cluster = await startKafka({ brokers: 1 });
  dir = mkdtempSync(path.join(tmpdir(), 'ianode-kafka-audit-'));
}, 240_000);

afterAll(async () => {
  await server?.close();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function send(p: Producer<Buffer, Buffer, Buffer, Buffer>, topic: string, body: string, headers: Record<string, string>): Promise<bigint> {
  const result = await p.send({
    messages: [{ topic, partition: 0, value: Buffer.from(body), headers: new Map(Object.entries(headers).map(([k, v]) => [Buffer.from(k), Buffer.from(v)])) }],
  });
  return result.offsets![0]!.offset;
}

describe('kafka messages in the audit log', () => {
  it('one record per applied and malformed message, with its offset and txId', async () => {
    const topic = `ianode-audit-${process.pid}`;
    const dlq = `${topic}-dlq`;
    await cluster.createTopic(topic, { partitions: 1, replicationFactor: 1 });
    await cluster.createTopic(dlq, { partitions: 1, replicationFactor: 1 });
    const p = new Producer({ clientId: 'ianode-test', bootstrapBrokers: cluster.bootstrap.split(','), acks: -1, retries: 10, retryDelay: 300 });
    const first = await send(p, topic, '<http://example/m1> <http://example/p> "1" .', { 'Content-Type': 'text/turtle', 'Security-Label': 'manager' });
    const bad = await send(p, topic, '<http://example/broken> <http://example/p> "no end', { 'Content-Type': 'text/turtle' });
    const update = await send(p, topic, 'INSERT DATA { <http://example/m3> <http://example/p> "3" }', { 'Content-Type': 'application/sparql-update' });
    await p.close();
    const file = path.join(dir, 'audit.log');
    server = await createGraphServer({
      dataset: { name: 'ds', kafka: { topic, brokers: cluster.bootstrap, writes: 'direct', onError: 'dead-letter', deadLetterTopic: dlq, fetchWaitMs: 100, startWaitMs: 60_000 } },
      audit: { file },
      limits: { queryWorkers: 1 },
    }, { logger: false });
    // The server catches up to the topic's end before it is returned.
    const records = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const kafka = records.filter((r) => r.kind === 'kafka');
    expect(kafka.map((r) => [r.offset, r.outcome, r.operation])).toEqual([
      [String(first), 'applied', 'load'],
      [String(bad), 'malformed', 'message'],
      [String(update), 'applied', 'update'],
    ]);
    expect(kafka[0]).toMatchObject({ dataset: 'ds', topic, inserted: 1, labels: [{ label: 'manager', quads: 1 }] });
    expect(kafka[2]).toMatchObject({ inserted: 1 });
    expect(typeof kafka[0]!.txId).toBe('number');
    expect(kafka[2]!.txId as number).toBeGreaterThan(kafka[0]!.txId as number);
    expect(kafka[1]!.txId).toBeUndefined();
    expect(typeof kafka[1]!.time).toBe('string');
  });
});
