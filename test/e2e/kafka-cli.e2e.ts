/**
 * `ianode kafka send` and `ianode kafka status` as an operator runs them (packages/cli/bin/ianode.js)
 * against a real Apache Kafka broker (test/kafka/broker.mjs): what lands on the topic is the file's
 * bytes with Content-Type and Security-Label headers, stdin works with --content-type, status shows
 * the end offsets, and the failures say what went wrong.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Consumer, MessagesStreamModes, type Message } from '@platformatic/kafka';
import { startKafka, type KafkaCluster } from '../kafka/broker.mjs';
import { root } from './support.js';

const BIN = path.join(root, 'packages/cli/bin/ianode.js');

function ianode(args: string[], env: NodeJS.ProcessEnv = {}, input?: Buffer): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, KAFKA_BOOTSTRAP_SERVERS: '', IANODE_KAFKA_TOPIC: '', IANODE_SKIP_BUILD: '1', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

async function read(bootstrap: string, topic: string, count: number): Promise<Message[]> {
  const consumer = new Consumer({ clientId: 'kafka-cli-e2e', groupId: `kafka-cli-e2e-${Math.random().toString(36).slice(2)}`, bootstrapBrokers: bootstrap.split(','), maxWaitTime: 500 });
  const stream = await consumer.consume({ topics: [topic], autocommit: false, mode: MessagesStreamModes.MANUAL, offsets: [{ topic, partition: 0, offset: 0n }] });
  const got: Message[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read ${got.length} of ${count}`)), 30_000);
      stream.on('data', (m: Message) => {
        got.push(m);
        if (got.length >= count) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } finally {
    await stream.close();
    await consumer.close();
  }
  return got;
}

const headers = (m: Message) => Object.fromEntries([...m.headers].map(([k, v]) => [k.toString(), v.toString()]));

// Each step spawns the command (a node start each) beside a JVM, on 2 shared cores: generous bounds.
describe('ianode kafka against a real broker', { timeout: 150_000 }, () => {
  let kafka: KafkaCluster;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ianode-kafka-cli-'));
    kafka = await startKafka({ brokers: 1 });
    await kafka.createTopic('rdf');
    await kafka.createTopic('two', { partitions: 2 });
  }, 180_000);
  afterAll(async () => {
    await kafka?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('send: the file as it is, Content-Type from the extension or the flag, Security-Label with --label, stdin with -', async () => {
    const turtle = '@prefix ex: <http://example.org/> .\nex:s ex:p "ünïcode" .\n';
    const patch = 'TX .\nA <http://example.org/s> <http://example.org/p> "x" .\nTC .\n';
    writeFileSync(path.join(dir, 'data.ttl'), turtle);
    writeFileSync(path.join(dir, 'change.rdfp'), patch);
    const env = { KAFKA_BOOTSTRAP_SERVERS: kafka.bootstrap, IANODE_KAFKA_TOPIC: 'rdf' };

    const first = await ianode(['kafka', 'send', path.join(dir, 'data.ttl'), '--label', 'employee'], env);
    expect(first).toEqual({ code: 0, stdout: 'sent to rdf partition 0 offset 0\n', stderr: '' });
    const second = await ianode(['kafka', 'send', path.join(dir, 'change.rdfp')], env);
    expect(second.stdout).toBe('sent to rdf partition 0 offset 1\n');
    const update = 'PREFIX ex: <http://example.org/> INSERT DATA { ex:t ex:p 1 }';
    const third = await ianode(['kafka', 'send', '-', '--content-type', 'application/sparql-update', '--brokers', kafka.bootstrap, '--topic', 'rdf', '--label', 'manager'], {}, Buffer.from(update));
    expect(third).toEqual({ code: 0, stdout: 'sent to rdf partition 0 offset 2\n', stderr: '' });
    const fourth = await ianode(['kafka', 'send', path.join(dir, 'data.ttl'), '--content-type', 'text/n3'], env);
    expect(fourth.stdout).toBe('sent to rdf partition 0 offset 3\n');

    const got = await read(kafka.bootstrap, 'rdf', 4);
    expect(got.map((m) => m.offset)).toEqual([0n, 1n, 2n, 3n]);
    expect(got.map((m) => m.value.toString('utf8'))).toEqual([turtle, patch, update, turtle]);
    expect(got.map(headers)).toEqual([
      { 'Content-Type': 'text/turtle', 'Security-Label': 'employee' },
      { 'Content-Type': 'application/rdf-patch' },
      { 'Content-Type': 'application/sparql-update', 'Security-Label': 'manager' },
      { 'Content-Type': 'text/n3' },
    ]);
  });

  it('status: every partition with its first and end offsets', async () => {
    const env = { KAFKA_BOOTSTRAP_SERVERS: kafka.bootstrap };
    writeFileSync(path.join(dir, 'one.nt'), '<http://example.org/a> <http://example.org/b> <http://example.org/c> .\n');
    for (let i = 0; i < 3; i++) expect((await ianode(['kafka', 'send', path.join(dir, 'one.nt'), '--topic', 'two'], env)).code).toBe(0);
    const status = await ianode(['kafka', 'status', '--topic', 'two'], env);
    expect(status.code).toBe(0);
    const lines = status.stdout.trim().split('\n');
    expect(lines[0]).toBe(`topic two (${kafka.bootstrap}): 2 partitions`);
    const ends = lines.slice(1).map((l) => l.match(/^ {2}partition (\d) {2}start 0 {2}end (\d+)$/)!.slice(1).map(Number));
    expect(ends.map(([p]) => p)).toEqual([0, 1]);
    expect(ends.reduce((sum, [, end]) => sum + end!, 0)).toBe(3);

    const empty = await ianode(['kafka', 'status', '--topic', 'rdf', '--brokers', kafka.bootstrap]);
    expect(empty.stdout).toBe(`topic rdf (${kafka.bootstrap}): 1 partition\n  partition 0  start 0  end 4\n`);
  });

  it('failures: a topic that does not exist, no broker there: exit 1 with the reason, nothing printed as sent', async () => {
    writeFileSync(path.join(dir, 'x.ttl'), '<a:s> <a:p> <a:o> .\n');
    const missing = await ianode(['kafka', 'send', path.join(dir, 'x.ttl'), '--brokers', kafka.bootstrap, '--topic', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toBe(`ianode: Kafka ${kafka.bootstrap}: Unknown topic nope\n`);
    const missingStatus = await ianode(['kafka', 'status', '--brokers', kafka.bootstrap, '--topic', 'nope']);
    expect(missingStatus.code).toBe(1);
    expect(missingStatus.stderr).toBe(`ianode: Kafka ${kafka.bootstrap}: Unknown topic nope\n`);
    // A port no broker listens on (the broker's own controller port is not a client listener either).
    const { createServer } = await import('node:net');
    const closed = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => closed.once('listening', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = await ianode(['kafka', 'send', path.join(dir, 'x.ttl'), '--brokers', `127.0.0.1:${port}`, '--topic', 'rdf']);
    expect(down.code).toBe(1);
    expect(down.stdout).toBe('');
    expect(down.stderr).toContain(`ianode: Kafka 127.0.0.1:${port}: `);
    expect(down.stderr).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    const noFile = await ianode(['kafka', 'send', path.join(dir, 'absent.ttl'), '--brokers', kafka.bootstrap, '--topic', 'rdf']);
    expect(noFile.code).toBe(1);
    expect(noFile.stderr).toMatch(/ENOENT.*absent\.ttl/);
    // Nothing was added by the failures.
    const status = await ianode(['kafka', 'status', '--brokers', kafka.bootstrap, '--topic', 'rdf']);
    expect(status.stdout).toContain('partition 0  start 0  end 4');
  });
});
