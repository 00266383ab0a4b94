/**
 * Kafka ingestion and replicas (issue 16, docs/kafka.md) against a real Apache Kafka broker in
 * KRaft mode (test/kafka/broker.mjs starts it; never a mock):
 *
 * - every reference message kind (RDF with a Security-Label header and a TriG labels graph, SPARQL
 *   Update) gives the ABAC views of two users exactly as the same HTTP writes do;
 * - SIGKILL of a replica during a stream: after the restart every message is applied exactly once
 *   (a counter every message increments, and one marker triple per message);
 * - a malformed message stops the connector at its offset (log, metrics, /$/kafka, /$/ready), and
 *   nothing after it is applied; with a dead-letter topic it goes there and the rest is applied;
 * - two replicas behind one topic answer identically; read-your-writes across replicas with the
 *   Ianode-Offset header; CQRS refusals reach the writer; a new replica catches up from the topic
 *   or from another replica's store folder;
 * - three brokers, one killed: ingestion goes on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Consumer, Producer } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphServer, type GraphServer } from '../../packages/graph-server/src/index.js';
import { accessStub, CLIENT, ISSUER, jwksServer, makeKey, sign, type Key } from '../../packages/graph-server/test/helpers.js';
import { startKafka, type KafkaCluster } from '../kafka/broker.mjs';
import { root } from './support.js';

const DIRECTORY: Record<string, string[]> = {
  'admin@test': ['ianode_admin', 'ianode_read', 'clearance=TS', 'nationality=GBR'],
  'low@test': ['ianode_read', 'ianode_admin', 'clearance=O', 'nationality=GBR'],
  'other@test': ['ianode_read', 'clearance=S', 'nationality=USA'],
};

let cluster: KafkaCluster;
let key: Key;
let jwks: Awaited<ReturnType<typeof jwksServer>>;
let access: Awaited<ReturnType<typeof accessStub>>;
const tokens: Record<string, string> = {};
const dirs: string[] = [];
const servers: GraphServer[] = [];
const children = new Set<ChildProcess>();
let topicNumber = 0;

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ianode-kafka-e2e-'));
  dirs.push(dir);
  return dir;
}

async function newTopic(partitions = 1, replicationFactor = 1): Promise<string> {
  const name = `ianode-test-${process.pid}-${++topicNumber}`;
  await cluster.createTopic(name, { partitions, replicationFactor });
  return name;
}

beforeAll(async () => {
  cluster = await startKafka({ brokers: 1 });
  key = await makeKey('k1');
  jwks = await jwksServer([key]);
  access = await accessStub(DIRECTORY);
  for (const user of Object.keys(DIRECTORY)) tokens[user] = await sign(key, { email: user });
}, 240_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.allSettled(servers.map((s) => s.close()));
  await cluster?.stop();
  await jwks?.close();
  await access?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface KafkaSettings {
  topic: string;
  bootstrap?: string;
  writes?: 'direct' | 'log';
  onError?: 'stop' | 'dead-letter';
  deadLetterTopic?: string;
  replicaId?: string;
  readWaitMs?: number;
}

async function graphServer(options: { kafka?: KafkaSettings; storage?: string; secure?: boolean; logLines?: string[] } = {}): Promise<{ server: GraphServer; base: string }> {
  const secure = options.secure !== false;
  const security = secure ? { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] } : {};
  const kafka = options.kafka === undefined
    ? undefined
    : {
      topic: options.kafka.topic,
      brokers: options.kafka.bootstrap ?? cluster.bootstrap,
      writes: options.kafka.writes ?? 'log',
      onError: options.kafka.onError ?? 'stop',
      ...(options.kafka.deadLetterTopic ? { deadLetterTopic: options.kafka.deadLetterTopic } : {}),
      fetchWaitMs: 100,
      readWaitMs: options.kafka.readWaitMs ?? 20_000,
      startWaitMs: 60_000,
      replicaId: options.kafka.replicaId ?? `r${servers.length + 1}`,
    };
  const server = await createGraphServer(
    { security, dataset: { name: 'ds', defaultLabel: '!', ...(options.storage ? { storage: options.storage } : {}), ...(kafka ? { kafka } : {}) }, limits: { queryWorkers: 1 } },
    {
      logger: options.logLines ? { level: 'warn', stream: { write: (line: string) => void options.logLines!.push(line) } } : false,
      jwksCooldownMs: 0,
    },
  );
  servers.push(server);
  return { server, base: await server.listen({ port: 0 }) };
}

function producer(bootstrap = cluster.bootstrap): Producer<Buffer, Buffer, Buffer, Buffer> {
  return new Producer({ clientId: 'ianode-test', bootstrapBrokers: bootstrap.split(','), acks: -1, retries: 10, retryDelay: 300 });
}

/** Send one message; when a broker died the client gives up on the old leader: forget the metadata
 * and send again (test/kafka/broker.mjs, "A dead leader"). */
async function send(p: Producer<Buffer, Buffer, Buffer, Buffer>, topic: string, body: string, headers: Record<string, string>): Promise<bigint> {
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await p.send({
        messages: [{ topic, partition: 0, value: Buffer.from(body), headers: new Map(Object.entries(headers).map(([k, v]) => [Buffer.from(k), Buffer.from(v)])) }],
      });
      return result.offsets![0]!.offset;
    } catch (error) {
      if (attempt >= 10) throw error;
      p.clearMetadata();
    }
  }
}

async function http(base: string, method: string, url: string, options: { user?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: Headers; text: string; json: () => unknown }> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.user) headers.authorization = `Bearer ${tokens[options.user]}`;
  const response = await fetch(base + url, { method, headers, ...(options.body === undefined ? {} : { body: options.body }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
}

/** The graph server as operators run it (`dist/main.js --config`), open mode; resolves with its URL. */
async function spawnGraph(config: string): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [path.join(root, 'packages/graph-server/dist/main.js'), '--config', config, '--port', '0'], {
    env: { ...process.env, JWKS_URL: 'disabled', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`graph server exited ${code}: ${out.slice(-2000)}`)));
  });
  return { child, base };
}

async function killHard(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
  children.delete(child);
}

const ALL_QUADS = 'SELECT ?g ?s ?p ?o WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }';

/** A user's whole view as sorted lines (the answer compared between servers). */
async function view(base: string, user: string | undefined, extra: Record<string, string> = {}): Promise<string[]> {
  const r = await http(base, 'POST', '/ds/query', {
    ...(user ? { user } : {}),
    headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json', ...extra },
    body: ALL_QUADS,
  });
  expect(r.status, r.text).toBe(200);
  const rows = (r.json() as { results: { bindings: Record<string, { type: string; value: string }>[] } }).results.bindings;
  return rows.map((b) => ['g', 's', 'p', 'o'].map((v) => (b[v] ? `${b[v]!.type}:${b[v]!.value}` : '-')).join(' ')).sort();
}

async function kafkaStatus(base: string): Promise<{ state: string; partitions: { applied: string | null; end: string | null }[]; error?: { offset?: string; reason: string }; messages: Record<string, number> }> {
  const r = await http(base, 'GET', '/$/kafka');
  return (r.json() as { connectors: never[] }).connectors[0]!;
}

/** Polls /$/kafka until `done` (bounded by the test timeout; no wall-clock assertion). */
async function until(base: string, done: (s: Awaited<ReturnType<typeof kafkaStatus>>) => boolean): Promise<Awaited<ReturnType<typeof kafkaStatus>>> {
  for (;;) {
    const s = await kafkaStatus(base);
    if (done(s)) return s;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const appliedAtLeast = (offset: bigint) => (s: Awaited<ReturnType<typeof kafkaStatus>>) => s.partitions[0]!.applied !== null && BigInt(s.partitions[0]!.applied) >= offset;

const TURTLE = `@prefix ex: <http://example/> .
ex:doc1 ex:title "secret plan" ; ex:owner ex:alice .
ex:doc2 ex:title "public note" .`;
const TRIG = `@prefix ex: <http://example/> .
@prefix authz: <http://telicent.io/security#> .
ex:g1 { ex:p1 ex:name "Alice" ; ex:phone "0400 111 333" ; ex:nationality "GBR" . }
<http://ndtp.co.uk/security#labels> {
  [ authz:pattern 'ex:g1 ex:p1 ex:phone "0400 111 333"' ; authz:label "clearance=TS" ] .
  [ authz:pattern 'ex:g1 ex:p1 ex:nationality "GBR"' ; authz:label "nationality=GBR" ] .
}`;
const NTRIPLES = '<http://example/x> <http://example/p> "unlabelled: the default label" .\n';
const PATCH = `TX .
A <http://example/doc4> <http://example/title> "patched" .
A <http://example/doc4> <http://example/title> "patched in g3" <http://example/g3> .
D <http://example/doc2> <http://example/title> "public note" .
TC .
`;
const UPDATE = 'PREFIX ex: <http://example/> INSERT DATA { ex:doc3 ex:title "from an update" . GRAPH ex:g2 { ex:doc3 ex:size 3 } }';

describe('messages of every reference kind', () => {
  it('give the same ABAC views as the same writes over HTTP', async () => {
    const topic = await newTopic();
    const viaKafka = await graphServer({ kafka: { topic, writes: 'direct' } });
    const viaHttp = await graphServer();
    const p = producer();
    try {
      await send(p, topic, TURTLE, { 'Content-Type': 'text/turtle', 'Security-Label': 'clearance=S' });
      await send(p, topic, TRIG, { 'Content-Type': 'application/trig', 'Security-Label': 'ianode_read' });
      await send(p, topic, NTRIPLES, { 'Content-Type': 'application/n-triples' });
      await send(p, topic, UPDATE, { 'Content-Type': 'application/sparql-update', 'Security-Label': 'nationality=GBR' });
      const last = await send(p, topic, PATCH, { 'Content-Type': 'application/rdf-patch', 'Security-Label': 'clearance=S' });
      await until(viaKafka.base, appliedAtLeast(last));
    } finally {
      await p.close();
    }
    const admin = { user: 'admin@test' };
    expect((await http(viaHttp.base, 'POST', '/ds/upload', { ...admin, headers: { 'content-type': 'text/turtle', 'security-label': 'clearance=S' }, body: TURTLE })).status).toBe(200);
    expect((await http(viaHttp.base, 'POST', '/ds/upload', { ...admin, headers: { 'content-type': 'application/trig', 'security-label': 'ianode_read' }, body: TRIG })).status).toBe(200);
    // Unlabelled data gets the default label `!`, readable by no one: an HTTP writer is refused it
    // (LABEL_NOT_VISIBLE_TO_WRITER), the topic's own producers are trusted (docs/kafka.md): either
    // way no user sees it.
    const http3 = await http(viaHttp.base, 'POST', '/ds/upload', { ...admin, headers: { 'content-type': 'application/n-triples' }, body: NTRIPLES });
    expect(http3.status).toBe(400);
    expect((await http(viaHttp.base, 'POST', '/ds/update', { ...admin, headers: { 'content-type': 'application/sparql-update', 'security-label': 'nationality=GBR' }, body: UPDATE })).status).toBe(200);
    expect((await http(viaHttp.base, 'POST', '/ds/patch', { ...admin, headers: { 'content-type': 'application/rdf-patch', 'security-label': 'clearance=S' }, body: PATCH })).status).toBe(200);

    for (const user of ['admin@test', 'low@test', 'other@test']) {
      expect(await view(viaKafka.base, user), user).toEqual(await view(viaHttp.base, user));
    }
    // The views differ by user: the labels were applied, not dropped.
    const adminView = await view(viaKafka.base, 'admin@test');
    const otherView = await view(viaKafka.base, 'other@test');
    expect(adminView.some((l) => l.includes('0400 111 333'))).toBe(true);
    expect(otherView.some((l) => l.includes('0400 111 333'))).toBe(false);
    expect(otherView.some((l) => l.includes('from an update'))).toBe(false);
    expect(adminView.some((l) => l.includes('from an update'))).toBe(true);
    expect(adminView.some((l) => l.includes('unlabelled'))).toBe(false); // `!`: visible to no one
    const status = await kafkaStatus(viaKafka.base);
    expect(adminView.some((l) => l.includes('patched in g3'))).toBe(true);
    expect(adminView.some((l) => l.includes('public note'))).toBe(false); // the patch's D
    expect(status.messages.applied).toBe(5);
  }, 240_000);
});

describe('a malformed message', () => {
  const good = (i: number) => `<http://example/m${i}> <http://example/p> "${i}" .`;

  it('stops the connector at its offset; nothing after it is applied', async () => {
    const topic = await newTopic();
    const p = producer();
    await send(p, topic, good(1), { 'Content-Type': 'text/turtle', 'Security-Label': 'ianode_read' });
    const bad = await send(p, topic, '<http://example/broken> <http://example/p> "no end', { 'Content-Type': 'text/turtle' });
    await send(p, topic, good(3), { 'Content-Type': 'text/turtle', 'Security-Label': 'ianode_read' });
    await send(p, topic, good(4), { 'Content-Type': 'application/x-unknown' });
    await p.close();
    const logLines: string[] = [];
    const { base } = await graphServer({ kafka: { topic }, logLines });
    const status = await until(base, (s) => s.state === 'stopped');
    // The log names the offset and the reason, and says the connector stopped there.
    const logged = logLines.map((l) => JSON.parse(l) as { offset?: string; reason?: string; msg: string });
    expect(logged.some((l) => l.offset === String(bad) && /line 1/i.test(l.reason ?? '') && /cannot be applied/.test(l.msg))).toBe(true);
    expect(logged.some((l) => l.offset === String(bad) && /connector stopped at offset/.test(l.msg))).toBe(true);
    expect(status.error?.offset).toBe(String(bad));
    expect(status.error?.reason).toMatch(/line 1/i);
    expect(status.partitions[0]!.applied).toBe(String(bad - 1n));
    const lines = await view(base, 'admin@test');
    expect(lines.some((l) => l.includes('example/m1'))).toBe(true);
    expect(lines.some((l) => l.includes('example/m3'))).toBe(false);
    const metrics = (await http(base, 'GET', '/$/metrics')).text;
    expect(metrics).toMatch(/ianode_kafka_messages_total\{outcome="malformed"\} 1/);
    expect(metrics).toMatch(/ianode_kafka_running\{dataset="ds"\} 0/);
    const ready = await http(base, 'GET', '/$/ready');
    expect(ready.status).toBe(503);
    expect((ready.json() as { checks: { kafka: string } }).checks.kafka).toBe('stopped');
    // CQRS writes are refused while the connector is stopped (nothing is produced behind a gap).
    const write = await http(base, 'POST', '/ds/upload', { user: 'admin@test', headers: { 'content-type': 'text/turtle', 'security-label': 'ianode_read' }, body: good(9) });
    expect(write.status).toBe(503);
  }, 240_000);

  it('goes to the dead-letter topic when configured, and the rest is applied', async () => {
    const topic = await newTopic();
    const dlq = await newTopic();
    const p = producer();
    await send(p, topic, good(1), { 'Content-Type': 'text/turtle', 'Security-Label': 'ianode_read' });
    const bad = await send(p, topic, 'ex:x ex:y', { 'Content-Type': 'text/turtle', 'Security-Label': 'ianode_read' });
    const badLabel = await send(p, topic, good(3), { 'Content-Type': 'text/turtle', 'Security-Label': 'a = = b' });
    const last = await send(p, topic, good(4), { 'Content-Type': 'text/turtle', 'Security-Label': 'ianode_read' });
    await p.close();
    const { base } = await graphServer({ kafka: { topic, onError: 'dead-letter', deadLetterTopic: dlq } });
    const status = await until(base, appliedAtLeast(last));
    expect(status.state).toBe('running');
    expect(status.messages).toMatchObject({ applied: 2, malformed: 2, deadLettered: 2 });
    const lines = await view(base, 'admin@test');
    expect(lines.some((l) => l.includes('example/m4'))).toBe(true);
    expect(lines.some((l) => l.includes('example/m3'))).toBe(false);

    const consumer = new Consumer({ clientId: 'ianode-test-dlq', groupId: `dlq-${process.pid}`, bootstrapBrokers: cluster.bootstrap.split(',') });
    try {
      const stream = await consumer.consume({ topics: [dlq], mode: 'earliest' });
      const got: { source: string; error: string }[] = [];
      for await (const message of stream) {
        const headers = new Map([...message.headers].map(([k, v]) => [k.toString(), v.toString()]));
        got.push({ source: headers.get('ianode-source')!, error: headers.get('ianode-error')! });
        if (got.length === 2) break;
      }
      expect(got.map((g) => g.source)).toEqual([`${topic}:0:${bad}`, `${topic}:0:${badLabel}`]);
      expect(got[1]!.error).toMatch(/label/i);
    } finally {
      await consumer.close(true);
    }
  }, 240_000);
});

describe('replicas', () => {
  it('answer identically, read their writes with Ianode-Offset, and tell a refused writer', async () => {
    const topic = await newTopic();
    const r1 = await graphServer({ kafka: { topic, replicaId: 'replica-1' } });
    const r2 = await graphServer({ kafka: { topic, replicaId: 'replica-2' } });
    const admin = 'admin@test';
    const up = await http(r1.base, 'POST', '/ds/upload', { user: admin, headers: { 'content-type': 'application/trig', 'security-label': 'ianode_read' }, body: TRIG });
    expect(up.status, up.text).toBe(200);
    const offset = up.headers.get('ianode-offset');
    expect(offset).toMatch(/^\d+$/);
    expect((up.json() as { offset: string; inserted: number }).inserted).toBe(3);
    // Read your writes on the OTHER replica: the header makes it wait for the offset.
    const seen = await view(r2.base, admin, { 'ianode-offset': offset! });
    expect(seen.some((l) => l.includes('Alice'))).toBe(true);

    const upd = await http(r2.base, 'POST', '/ds/update', { user: admin, headers: { 'content-type': 'application/sparql-update', 'security-label': 'clearance=S' }, body: UPDATE });
    expect(upd.status, upd.text).toBe(200);
    const patched = await http(r1.base, 'POST', '/ds/patch', { user: admin, headers: { 'content-type': 'application/rdf-patch', 'security-label': 'ianode_read' }, body: PATCH });
    expect(patched.status, patched.text).toBe(200);
    expect((patched.json() as { inserted: number; offset: string }).inserted).toBe(2);
    const put = await http(r1.base, 'PUT', '/ds/data?graph=http://example/g9', { user: admin, headers: { 'content-type': 'text/turtle', 'security-label': 'ianode_read' }, body: '<http://example/a> <http://example/b> "gsp" .' });
    expect(put.status, put.text).toBe(201);
    const del = await http(r2.base, 'DELETE', '/ds/data?graph=http://example/nothing', { user: admin });
    expect(del.status).toBe(404); // refused by the write boundary, told to its writer, on every replica alike
    // A writer may not label data it could not read (LABEL_NOT_VISIBLE_TO_WRITER), through the log too.
    const refused = await http(r1.base, 'POST', '/ds/upload', { user: 'low@test', headers: { 'content-type': 'text/turtle', 'security-label': 'clearance=TS' }, body: TURTLE });
    expect(refused.status, refused.text).toBe(400);
    expect((refused.json() as { code: string }).code).toBe('LABEL_NOT_VISIBLE_TO_WRITER');
    const lastOffset = BigInt(put.headers.get('ianode-offset')!) + 2n; // the put, the 404 and the refusal
    await until(r1.base, appliedAtLeast(lastOffset));
    await until(r2.base, appliedAtLeast(lastOffset));
    for (const user of ['admin@test', 'low@test', 'other@test']) {
      expect(await view(r1.base, user), user).toEqual(await view(r2.base, user));
    }
    expect((await view(r1.base, 'admin@test')).some((l) => l.includes('secret plan'))).toBe(false);

    // A new replica from an empty folder catches up from the topic before it serves.
    const r3Folder = path.join(tempDir(), 'store');
    const r3 = await graphServer({ kafka: { topic, replicaId: 'replica-3' }, storage: r3Folder });
    expect(await view(r3.base, 'admin@test')).toEqual(await view(r1.base, 'admin@test'));
    // ...and one started from a copy of that replica's folder resumes after its last offset.
    const folder = path.join(tempDir(), 'copy');
    await r3.server.store.checkpoint();
    await r3.server.close();
    cpSync(r3Folder, folder, { recursive: true });
    const more = await http(r1.base, 'POST', '/ds/upload', { user: admin, headers: { 'content-type': 'text/turtle', 'security-label': 'ianode_read' }, body: '<http://example/late> <http://example/p> "after the copy" .' });
    expect(more.status).toBe(200);
    const r4 = await graphServer({ kafka: { topic, replicaId: 'replica-4' }, storage: folder });
    const s4 = await kafkaStatus(r4.base);
    expect(s4.messages.applied).toBe(1); // only the message after the copy
    expect(await view(r4.base, 'admin@test')).toEqual(await view(r1.base, 'admin@test', { 'ianode-offset': more.headers.get('ianode-offset')! }));
  }, 240_000);

  it('a read asking for an offset this replica has not applied is 503 with Retry-After after readWaitMs', async () => {
    const topic = await newTopic();
    // (The resolved configuration is frozen: the short wait is set in the configuration itself.)
    const { server, base } = await graphServer({ kafka: { topic, writes: 'direct', readWaitMs: 50 } });
    expect(server.config.dataset.kafka!.readWaitMs).toBe(50);
    const r = await http(base, 'POST', '/ds/query', { user: 'admin@test', headers: { 'content-type': 'application/sparql-query', 'ianode-offset': '1000' }, body: 'ASK {}' });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
    expect((r.json() as { code: string }).code).toBe('KAFKA_BEHIND');
    const bad = await http(base, 'POST', '/ds/query', { user: 'admin@test', headers: { 'content-type': 'application/sparql-query', 'ianode-offset': 'soon' }, body: 'ASK {}' });
    expect(bad.status).toBe(400);
  });
});

describe('a replica killed during a stream', () => {
  it('applies every message exactly once after the restart', async () => {
    const topic = await newTopic();
    const storage = path.join(tempDir(), 'store');
    const config = path.join(tempDir(), 'graph.json');
    writeFileSync(config, JSON.stringify({ dataset: { name: 'ds', storage, kafka: { topic, brokers: cluster.bootstrap, writes: 'direct', fetchWaitMs: 100, fetchMessages: 5 } }, limits: { queryWorkers: 1 } }));
    const start = () => spawnGraph(config);
    const N = 400;
    const counter = (i: number) =>
      `PREFIX ex: <http://example/> DELETE { ex:counter ex:n ?n } INSERT { ex:counter ex:n ?m . ex:marker${i} ex:seen ${i} } WHERE { OPTIONAL { ex:counter ex:n ?c } BIND(COALESCE(?c, 0) AS ?n) BIND(?n + 1 AS ?m) }`;
    const p = producer();
    let first = await start();
    // A stream: the first 100 messages while it runs, killed while it applies them, then the rest.
    for (let i = 0; i < 100; i++) await send(p, topic, counter(i), { 'Content-Type': 'application/sparql-update' });
    await until(first.base, (s) => s.partitions[0]!.applied !== null && BigInt(s.partitions[0]!.applied) >= 40n);
    await killHard(first.child);
    for (let i = 100; i < N; i++) await send(p, topic, counter(i), { 'Content-Type': 'application/sparql-update' });
    await p.close();
    first = await start();
    const status = await until(first.base, appliedAtLeast(BigInt(N - 1)));
    expect(status.error).toBeUndefined();
    expect(status.messages.applied).toBeGreaterThanOrEqual(N - 100); // the restart did the rest
    const ask = await http(first.base, 'POST', '/ds/query', {
      headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' },
      body: 'PREFIX ex: <http://example/> SELECT ?n (COUNT(?m) AS ?markers) WHERE { ex:counter ex:n ?n . ?m ex:seen ?i } GROUP BY ?n',
    });
    const row = (ask.json() as { results: { bindings: { n: { value: string }; markers: { value: string } }[] } }).results.bindings;
    expect(row).toHaveLength(1);
    expect(row[0]!.n.value).toBe(String(N)); // every message incremented once: none twice, none skipped
    expect(row[0]!.markers.value).toBe(String(N));
    first.child.kill('SIGTERM');
  }, 240_000);
});

describe('three brokers', () => {
  let three: KafkaCluster;
  beforeAll(async () => {
    three = await startKafka({ brokers: 3 });
  }, 300_000);
  afterAll(async () => {
    await three?.stop();
  });

  it('one broker and one replica killed: ingestion goes on, the restarted replica converges', async () => {
    const topic = `ianode-three-${process.pid}`;
    await three.createTopic(topic, { partitions: 1, replicationFactor: 3 });
    const { base } = await graphServer({ kafka: { topic, bootstrap: three.bootstrap, writes: 'direct' }, secure: false });
    const config = path.join(tempDir(), 'replica.json');
    writeFileSync(config, JSON.stringify({ dataset: { name: 'ds', storage: path.join(tempDir(), 'store'), kafka: { topic, brokers: three.bootstrap, writes: 'direct', fetchWaitMs: 100 } }, limits: { queryWorkers: 1 } }));
    let replica = await spawnGraph(config);
    const p = producer(three.bootstrap);
    const line = (i: number) => `<http://example/b${i}> <http://example/p> "${i}" .`;
    for (let i = 0; i < 20; i++) await send(p, topic, line(i), { 'Content-Type': 'application/n-triples', 'Security-Label': 'ianode_read' });
    await until(base, appliedAtLeast(19n));
    await three.kill(three.brokers[0]!.id);
    await killHard(replica.child);
    let last = 0n;
    for (let i = 20; i < 40; i++) last = await send(p, topic, line(i), { 'Content-Type': 'application/n-triples', 'Security-Label': 'ianode_read' });
    await p.close();
    await until(base, appliedAtLeast(last));
    replica = await spawnGraph(config); // two brokers of three, and the store it had
    await until(replica.base, appliedAtLeast(last));
    const lines = await view(base, undefined);
    expect(lines.filter((l) => l.includes('example/b'))).toHaveLength(40);
    expect(await view(replica.base, undefined)).toEqual(lines);
    replica.child.kill('SIGTERM');
  }, 240_000);
});
