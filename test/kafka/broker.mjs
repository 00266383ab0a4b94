/**
 * A real Apache Kafka cluster (KRaft mode, 1 or 3 combined broker+controller nodes) for tests: the
 * jars that test/kafka/install.sh put in the cache, one JVM per node on free loopback ports, data in a
 * temp folder that stop() removes. Never a mock. README.md beside this file says how to run it.
 *
 * @platformatic/kafka 2.x (2.12; Node 22.22+/24.6+): the calls checked against this broker by
 * test/e2e/kafka-broker.e2e.ts and test/e2e/kafka-cli.e2e.ts. All from '@platformatic/kafka'.
 *
 * PRODUCER. Without serializers every key/value/header name/header value is a Buffer, and headers
 * must then be a Map<Buffer, Buffer> (a plain object's string keys fail with a TypeError, retried).
 * With serializers: { headerKey: stringSerializer, headerValue: stringSerializer } headers may be a
 * plain object of strings while the value stays a Buffer (what `ianode kafka send` does);
 * serializers: stringSerializers makes all four strings.
 *   const producer = new Producer({ clientId: 'x', bootstrapBrokers: ['127.0.0.1:9092', …],
 *     serializers: { headerKey: stringSerializer, headerValue: stringSerializer },
 *     acks: ProduceAcks.ALL,   // -1 (LEADER 1, NO_RESPONSE 0). DEFAULT IS LEADER (1) unless idempotent
 *     idempotent: true,        // optional: a re-sent batch is not written twice (needs acks ALL)
 *     retries: 3, retryDelay: 300 })  // defaults 3 and 1000 ms
 *   const result = await producer.send({ acks: ProduceAcks.ALL,   // acks also per send
 *     messages: [{ topic, value: Buffer, key?: Buffer, partition?: number,
 *                  headers: { 'Content-Type': 'text/turtle', 'Security-Label': 'employee' } }] })
 *   result.offsets → [{ topic, partition: number, offset: bigint }]: ONE entry per partition written,
 *     its offset that of the FIRST message of the batch (2 messages to a fresh topic → offset 0n).
 *   A dead leader: the client retries on the leader it knew and then rejects (AggregateError
 *   "produce failed N times."); call producer.clearMetadata() and send again — by then the
 *   controller has elected a new leader (metadataMaxAge, default 5000 ms, also refreshes it).
 *
 * CONSUMER FROM AN EXPLICIT OFFSET, nothing committed. The client always joins a consumer group when
 * consuming (the group decides which partitions this member fetches), so give each reader its OWN
 * groupId: replicas sharing one group would split the partitions between them.
 *   const consumer = new Consumer({ clientId: 'x', groupId: 'own-group', bootstrapBrokers,
 *     maxWaitTime: 500 })   // ms a fetch waits for data; also minBytes/maxBytes
 *   const stream = await consumer.consume({ topics: [topic], autocommit: false,
 *     mode: MessagesStreamModes.MANUAL,                   // 'manual' (also EARLIEST/LATEST/COMMITTED)
 *     offsets: [{ topic, partition: 0, offset: 2n }],     // bigint, the first offset to read
 *     fallbackMode: MessagesStreamFallbackModes.EARLIEST }) // partitions not in offsets ('latest' default)
 *   stream.on('data', (m: Message) => …)   // or for await (const m of stream); object-mode Readable
 *     m.topic: string, m.partition: number, m.offset: bigint, m.timestamp: bigint,
 *     m.key / m.value: Buffer, m.headers: Map<Buffer, Buffer> (no header deserializers) — find one with
 *     [...m.headers].find(([k]) => k.toString() === 'Content-Type')?.[1].toString();
 *     with deserializers: { headerKey: stringDeserializer, headerValue: stringDeserializer } (or
 *     stringDeserializers for all four) m.headers is a Map<string, string>: m.headers.get('Content-Type').
 *   await stream.close(); await consumer.close()
 *
 * END OFFSETS (the offset the next message gets; lag = end − next offset to apply):
 *   const admin = new Admin({ clientId: 'x', bootstrapBrokers })
 *   const [t] = await admin.listOffsets({ topics: [{ name: topic,
 *     partitions: [{ partitionIndex: 0, timestamp: ListOffsetTimestamps.LATEST }] }] })  // -1n; EARLIEST -2n
 *   t.partitions → [{ partitionIndex: number, offset: bigint, timestamp: bigint, leaderEpoch: number }]
 *   or: await consumer.listOffsets({ topics: [topic] }) → Map { topic => [end of p0, end of p1, …] }
 *     (bigint[]; timestamp: ListOffsetTimestamps.EARLIEST for the first offsets); no group join.
 *   Partition count: (await admin.metadata({ topics: [topic] })).topics.get(topic)!.partitionsCount;
 *   an unknown topic rejects with "Unknown topic NAME." (auto-creation is off here).
 *
 * TOPICS: await admin.createTopics({ topics: [name], partitions: 2, replicas: 3 }), then poll
 *   admin.metadata({ topics: [name], forceUpdate: true }) until every partition has leader >= 0.
 *
 * CLOSING: await producer.close(); await stream.close(); await consumer.close(); await admin.close().
 * ERRORS are nested AggregateErrors (.errors), the socket error as .cause at the bottom
 * (packages/cli/src/kafka.ts describeKafkaError flattens them to one line).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Admin } from '@platformatic/kafka';

export const KAFKA_VERSION = process.env.IANODE_KAFKA_VERSION ?? '4.1.1';
const here = path.dirname(fileURLToPath(import.meta.url));

/** Where install.sh puts the jars. */
/** @returns {string} */
export function kafkaHome() {
  return process.env.IANODE_KAFKA_HOME ?? path.join(homedir(), '.cache', 'ianode', `kafka-${KAFKA_VERSION}`);
}

/** Runs install.sh unless its marker says the jars are there. */
/** @returns {string} */
export function ensureKafkaInstalled() {
  const home = kafkaHome();
  if (existsSync(path.join(home, `.installed-${KAFKA_VERSION}`)) && existsSync(path.join(home, 'libs'))) return home;
  const result = spawnSync('bash', [path.join(here, 'install.sh')], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`test/kafka/install.sh failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  }
  return home;
}

/** @returns {Promise<number>} */
async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A Kafka Uuid as the tools print it: 16 random bytes, base64url without padding, not starting with '-'. */
function clusterId() {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @param {string} file */
function tail(file, lines = 40) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

const java = () => (process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java');

// Every node process of every cluster this test process started: killed when it exits normally...
/** @type {Set<import('node:child_process').ChildProcess>} */
const live = new Set();
/** @type {Set<string>} */
const folders = new Set();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/**
 * ...and when it does not: a test runner ends its workers without an 'exit' event (seen with
 * vitest's forks pool), which would leave the JVMs running. A small watchdog process per cluster
 * polls this process; once it is gone, it SIGKILLs every node whose pid file is in the cluster's
 * folder (checking the pid still runs kafka.Kafka from that folder) and removes the folder. It ends
 * by itself when stop() has removed the folder.
 */
const WATCHDOG = `
const fs = require('node:fs'), path = require('node:path');
const [parent, base] = [Number(process.argv[1]), process.argv[2]];
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
setInterval(() => {
  if (!fs.existsSync(base)) process.exit(0);
  if (alive(parent)) return;
  for (const entry of fs.readdirSync(base).filter((e) => e.startsWith('node-'))) {
    try {
      const pid = Number(fs.readFileSync(path.join(base, entry, 'pid'), 'utf8'));
      const cmd = fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8');
      if (pid > 0 && cmd.includes('kafka.Kafka') && cmd.includes(base)) process.kill(pid, 'SIGKILL');
    } catch {}
  }
  fs.rmSync(base, { recursive: true, force: true });
  process.exit(0);
}, 500);
`;

/** @param {string} base */
function startWatchdog(base) {
  const watchdog = spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), base], { stdio: 'ignore', detached: false });
  watchdog.unref();
}

/**
 * @typedef {object} Node
 * @property {number} id
 * @property {number} port
 * @property {number} controllerPort
 * @property {string} dir
 * @property {string} config
 * @property {string} log
 * @property {import('node:child_process').ChildProcess} [child]
 */

/** @param {Node} node @param {Node[]} nodes */
function serverProperties(node, nodes) {
  const n = nodes.length;
  const rf = n >= 3 ? 3 : 1;
  const minIsr = n >= 3 ? 2 : 1;
  return [
    'process.roles=broker,controller',
    `node.id=${node.id}`,
    `listeners=PLAINTEXT://127.0.0.1:${node.port},CONTROLLER://127.0.0.1:${node.controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${node.port}`,
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name=PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    `controller.quorum.voters=${nodes.map((v) => `${v.id}@127.0.0.1:${v.controllerPort}`).join(',')}`,
    `log.dirs=${path.join(node.dir, 'data')}`,
    'auto.create.topics.enable=false',
    'num.partitions=1',
    `default.replication.factor=${rf}`,
    `min.insync.replicas=${minIsr}`,
    `offsets.topic.replication.factor=${rf}`,
    'offsets.topic.num.partitions=3',
    `transaction.state.log.replication.factor=${rf}`,
    `transaction.state.log.min.isr=${minIsr}`,
    'transaction.state.log.num.partitions=3',
    `share.coordinator.state.topic.replication.factor=${rf}`,
    `share.coordinator.state.topic.min.isr=${minIsr}`,
    'group.initial.rebalance.delay.ms=0',
    // A killed node is noticed within a few seconds, not the default 9 s / 18 s.
    'broker.session.timeout.ms=6000',
    'broker.heartbeat.interval.ms=1000',
    'controller.quorum.election.timeout.ms=1000',
    'controller.quorum.fetch.timeout.ms=2000',
    'replica.lag.time.max.ms=5000',
    'unclean.leader.election.enable=false',
    'log.flush.interval.messages=1',
    '',
  ].join('\n');
}

const LOG4J2 = `status = warn
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.out.ref = out
logger.request.name = kafka.request.logger
logger.request.level = warn
`;

/** @param {string} home @param {string} base */
function jvmArgs(home, base) {
  return [
    '-Xms64m',
    '-Xmx256m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${path.join(base, 'log4j2.properties')}`,
    '-cp',
    `${path.join(home, 'libs')}/*`,
  ];
}

/** Runs a JVM to completion with stdin closed, output into `log`. */
/** @param {string[]} args @param {string} log @returns {Promise<void>} */
function runJava(args, log) {
  return new Promise((resolve, reject) => {
    const fd = openSync(log, 'a');
    const child = spawn(java(), args, { stdio: ['ignore', fd, fd], detached: false });
    closeSync(fd);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${args.slice(-6).join(' ')} exited with ${code ?? signal}:\n${tail(log)}`));
    });
  });
}

/** True once the node at `port` answers a metadata request that lists `expect` brokers (ids). */
/** @param {number} port @param {number[]} expect */
async function answers(port, expect) {
  const admin = new Admin({ clientId: 'ianode-test-probe', bootstrapBrokers: [`127.0.0.1:${port}`], retries: 0, timeout: 3000 });
  try {
    const metadata = await admin.metadata({ topics: [], forceUpdate: true });
    return expect.every((id) => metadata.brokers.has(id));
  } catch {
    return false;
  } finally {
    await admin.close().catch(() => undefined);
  }
}

/**
 * @param {import('./broker.mjs').StartKafkaOptions} [options]
 * @returns {Promise<import('./broker.mjs').KafkaCluster>}
 */
export async function startKafka(options = {}) {
  const count = options.brokers ?? 1;
  const timeoutMs = options.timeoutMs ?? 90_000;
  const home = ensureKafkaInstalled();
  const base = mkdtempSync(path.join(options.dir ?? tmpdir(), 'ianode-kafka-'));
  folders.add(base);
  startWatchdog(base);
  writeFileSync(path.join(base, 'log4j2.properties'), LOG4J2);

  /** @type {Node[]} */
  const nodes = [];
  for (let id = 1; id <= count; id++) {
    const dir = path.join(base, `node-${id}`);
    mkdirSync(dir, { recursive: true });
    nodes.push({ id, port: await freePort(), controllerPort: await freePort(), dir, config: path.join(dir, 'server.properties'), log: path.join(dir, 'server.log') });
  }
  const cid = clusterId();
  for (const node of nodes) writeFileSync(node.config, serverProperties(node, nodes));
  const jvm = jvmArgs(home, base);

  const launch = (/** @type {Node} */ node) => {
    const fd = openSync(node.log, 'a');
    const child = spawn(java(), [...jvm, 'kafka.Kafka', node.config], { stdio: ['ignore', fd, fd], detached: false });
    closeSync(fd);
    node.child = child;
    writeFileSync(path.join(node.dir, 'pid'), String(child.pid ?? ''));
    live.add(child);
    child.on('exit', () => live.delete(child));
  };

  const waitFor = async (/** @type {Node} */ node, /** @type {number[]} */ expect) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!node.child || node.child.exitCode !== null || node.child.signalCode !== null) {
        throw new Error(`kafka node ${node.id} exited (${node.child?.exitCode ?? node.child?.signalCode}) before it answered; ${node.log}:\n${tail(node.log)}`);
      }
      if (await answers(node.port, expect)) return;
      await sleep(250);
    }
    throw new Error(`kafka node ${node.id} did not answer on 127.0.0.1:${node.port} within ${timeoutMs} ms; ${node.log}:\n${tail(node.log)}`);
  };

  const killNode = async (/** @type {Node} */ node) => {
    const child = node.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  };

  const stop = async () => {
    await Promise.all(nodes.map(killNode));
    rmSync(base, { recursive: true, force: true });
    folders.delete(base);
  };

  try {
    await Promise.all(nodes.map((node) => runJava([...jvm, 'kafka.tools.StorageTool', 'format', '-t', cid, '-c', node.config], path.join(node.dir, 'format.log'))));
    nodes.forEach(launch);
    const ids = nodes.map((n) => n.id);
    await Promise.all(nodes.map((node) => waitFor(node, ids)));
  } catch (error) {
    await stop();
    throw error;
  }

  const bootstrap = nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
  const byId = (/** @type {number} */ id) => {
    const node = nodes.find((n) => n.id === id);
    if (!node) throw new Error(`no kafka node ${id} (nodes are ${nodes.map((n) => n.id).join(', ')})`);
    return node;
  };

  return {
    bootstrap,
    brokers: nodes.map((n) => ({ id: n.id, port: n.port })),
    kill: (id) => killNode(byId(id)),
    async start(id) {
      const node = byId(id);
      if (node.child && node.child.exitCode === null && node.child.signalCode === null) throw new Error(`kafka node ${id} is running`);
      launch(node);
      await waitFor(node, [id]);
    },
    async createTopic(name, opts = {}) {
      const partitions = opts.partitions ?? 1;
      const running = nodes.filter((n) => n.child && n.child.exitCode === null && n.child.signalCode === null);
      const admin = new Admin({ clientId: 'ianode-test-admin', bootstrapBrokers: running.map((n) => `127.0.0.1:${n.port}`) });
      try {
        await admin.createTopics({ topics: [name], partitions, replicas: opts.replicationFactor ?? Math.min(count, 3) });
        // Created is not yet usable: wait until every partition has a leader.
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const metadata = await admin.metadata({ topics: [name], forceUpdate: true }).catch(() => undefined);
          const topic = metadata?.topics.get(name);
          if (topic && topic.partitions.length === partitions && topic.partitions.every((p) => p.leader >= 0)) return;
          if (Date.now() > deadline) throw new Error(`topic ${name}: no leader for every partition within ${timeoutMs} ms`);
          await sleep(200);
        }
      } finally {
        await admin.close();
      }
    },
    stop,
  };
}
