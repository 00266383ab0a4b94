/**
 * Kafka benchmark (issue 16): how fast a replica catches up from a topic, and how long a CQRS write
 * takes to become visible on the replica that took it and on another one. Peers measured in the same
 * run: ianode's own HTTP ingest of the same messages, Apache Jena Fuseki's HTTP ingest of them, and
 * the same small writes without Kafka (ianode direct) and on Fuseki. See README.md, "kafka.mjs".
 *
 *   npm run bench:kafka                                # builds (tsc -b), then 1M triples, 3 runs
 *   npm run bench:kafka -- --triples 200k --runs 5 --writes 1000 --json
 *
 * Everything runs on this machine: one Kafka broker (test/kafka/broker.mjs, KRaft, the jars that
 * test/kafka/install.sh caches), graph servers as their users run them (`node
 * packages/graph-server/dist/main.js --config FILE --port 0`, open mode), Fuseki from the jars
 * lib/http-servers.mjs fetches with Maven. Every folder is temporary and removed, every process
 * stopped, also on Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync, openSync, closeSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Producer } from '@platformatic/kafka';
import { parseArgs, parseCount } from './lib/args.mjs';
import { bsbmLines } from './lib/bsbm.mjs';
import { freePort, httpCall, loadAverage, percentile, waitFor } from './lib/http-client.mjs';
import { FUSEKI_VERSION } from './lib/http-servers.mjs';
import { machine, markdownTable, median } from './lib/report.mjs';
import { KAFKA_VERSION, startKafka } from '../test/kafka/broker.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const CACHE = path.join(HERE, '.cache');
const MAIN = path.join(ROOT, 'packages/graph-server/dist/main.js');

const opts = parseArgs(process.argv.slice(2), {
  triples: '1000000',
  seed: 42,
  runs: 3,
  'message-triples': 1000,
  writes: 500,
  'write-triples': 10,
  warmup: 20,
  label: 'bench',
  parts: 'catchup,cqrs',
  engines: 'ianode-kafka,ianode-http,fuseki-http',
  json: false,
  timeout: 3600,
  'cpu-prof': false,
});
const TRIPLES = parseCount(opts.triples);
const SEED = Number(opts.seed);
const RUNS = Number(opts.runs);
const PER_MESSAGE = parseCount(opts['message-triples']);
const WRITES = parseCount(opts.writes);
const WRITE_TRIPLES = parseCount(opts['write-triples']);
const WARMUP = parseCount(opts.warmup);
const LABEL = String(opts.label);
const PARTS = new Set(String(opts.parts).split(','));
const ENGINES = String(opts.engines).split(',');
const TIMEOUT_MS = Number(opts.timeout) * 1000;
const CPU_PROF = opts['cpu-prof'] === true;
for (const part of PARTS) if (part !== 'catchup' && part !== 'cqrs') throw new TypeError(`--parts: unknown part ${part} (catchup, cqrs)`);
for (const e of ENGINES) if (!['ianode-kafka', 'ianode-http', 'fuseki-http'].includes(e)) throw new TypeError(`--engines: unknown engine ${e}`);

const log = (/** @type {string} */ msg) => process.stderr.write(`${msg}\n`);
const fmt = (/** @type {number} */ n) => Math.round(n).toLocaleString('en-US');
const NT = 'application/n-triples';

// ---------------------------------------------------------------------------------------------
// Clean-up: every process and folder of this run, also on Ctrl-C or an error.

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
/** @type {Set<string>} */
const folders = new Set();
const work = mkdtempSync(path.join(tmpdir(), 'ianode-bench-kafka-'));
folders.add(work);
let seq = 0;
const tempDir = (/** @type {string} */ name) => {
  const dir = path.join(work, `${name}-${++seq}`);
  folders.add(dir);
  return dir;
};
function cleanup() {
  for (const child of children) {
    try { process.kill(-(/** @type {number} */ (child.pid)), 'SIGKILL'); } catch { /* gone */ }
  }
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.on(signal, () => process.exit(130));

/**
 * A detached child in its own process group, output to `logFile`, stdout lines also to `onLine`.
 * @param {string[]} args @param {{ env?: NodeJS.ProcessEnv, logFile: string, onLine?: (line: string) => void }} options
 */
function startChild(command, args, { env, logFile, onLine }) {
  const child = spawn(command, args, { cwd: ROOT, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.add(child);
  const fd = openSync(logFile, 'a');
  /** @type {string | undefined} */
  let exited;
  child.on('exit', (code, signal) => {
    exited = `exited (${signal ?? code}); log:\n${readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n')}`;
    children.delete(child);
    closeSync(fd);
  });
  child.stderr?.on('data', (d) => { try { writeFileSync(fd, d); } catch { /* closed */ } });
  if (child.stdout) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      try { writeFileSync(fd, line + '\n'); } catch { /* closed */ }
      onLine?.(line);
    });
  }
  return {
    child,
    failed: () => exited,
    async stop() {
      if (exited !== undefined || child.pid === undefined) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      try { process.kill(-child.pid, 'SIGTERM'); } catch { return; }
      const timer = setTimeout(() => { try { process.kill(-(/** @type {number} */ (child.pid)), 'SIGKILL'); } catch { /* gone */ } }, 30_000);
      await gone;
      clearTimeout(timer);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Graph servers (the real process) and Fuseki

/**
 * `node packages/graph-server/dist/main.js --config <json> --port 0` in open mode with a durable
 * store in a fresh folder. Resolves once it listens (the URL from its "graph server listening" log
 * line); a Kafka connector catches up to the topic's end before that.
 * @param {{ name: string, kafka?: Record<string, unknown>, cpuProf?: string }} options
 */
async function graphServer({ name, kafka, cpuProf }) {
  const dir = tempDir(name);
  await mkdir(dir, { recursive: true });
  const config = path.join(dir, 'config.json');
  await writeFile(config, JSON.stringify({ dataset: { name: 'ds', storage: path.join(dir, 'store'), ...(kafka ? { kafka } : {}) } }));
  /** @type {(url: string) => void} */
  let listening = () => {};
  const url = new Promise((resolve) => { listening = resolve; });
  const started = performance.now();
  const nodeArgs = cpuProf ? [`--cpu-prof`, `--cpu-prof-dir=${cpuProf}`] : [];
  const proc = startChild(process.execPath, [...nodeArgs, MAIN, '--config', config, '--port', '0'], {
    env: { ...process.env, JWKS_URL: 'disabled', LOG_LEVEL: 'info' },
    logFile: path.join(dir, 'server.log'),
    onLine: (line) => {
      if (!line.includes('graph server listening')) return;
      try { listening(JSON.parse(line).url); } catch { /* not JSON */ }
    },
  });
  let base = '';
  await waitFor(async () => {
    base = await Promise.race([url, sleep(100).then(() => '')]);
    return base !== '';
  }, { timeoutMs: TIMEOUT_MS, what: `graph server ${name}`, failed: proc.failed });
  const listenMs = performance.now() - started;
  return { base: base.replace(/\/$/, ''), started, listenMs, stop: proc.stop, failed: proc.failed };
}

/** @param {string} base */
async function kafkaStatus(base) {
  const r = await httpCall(`${base}/$/kafka`, { timeoutMs: 30_000 });
  if (r.status !== 200) throw new Error(`GET /$/kafka: HTTP ${r.status} ${r.body.toString('utf8', 0, 300)}`);
  return JSON.parse(r.body.toString('utf8')).connectors[0];
}

/** COUNT of the default graph's triples. @param {string} queryUrl */
async function countTriples(queryUrl) {
  const r = await httpCall(queryUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' },
    body: 'SELECT (COUNT(*) AS ?n) { ?s ?p ?o }',
    timeoutMs: 600_000,
  });
  if (r.status !== 200) throw new Error(`COUNT at ${queryUrl}: HTTP ${r.status} ${r.body.toString('utf8', 0, 300)}`);
  return Number(JSON.parse(r.body.toString('utf8')).results.bindings[0].n.value);
}

/** Apache Jena Fuseki with an empty, updatable in-memory dataset /ds. */
async function fuseki() {
  const lib = path.join(CACHE, `fuseki-${FUSEKI_VERSION}`, 'lib');
  if (!existsSync(path.join(CACHE, `fuseki-${FUSEKI_VERSION}`, 'complete'))) {
    // lib/http-servers.mjs fetches the jars with Maven once.
    const { fusekiServer } = await import('./lib/http-servers.mjs');
    const why = await fusekiServer({ cacheDir: CACHE, logDir: work, triples: TRIPLES, log }).available();
    if (why) return { unavailable: why };
  }
  const dir = tempDir('fuseki');
  await mkdir(dir, { recursive: true });
  const port = await freePort();
  const proc = startChild('java', ['-Xmx4g', '-cp', `${lib}/*`, 'org.apache.jena.fuseki.main.cmds.FusekiMainCmd', '--localhost', `--port=${port}`, '--mem', '/ds'],
    { logFile: path.join(dir, 'fuseki.log') });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await httpCall(`${base}/ds/query?query=${encodeURIComponent('ASK {}')}`, { timeoutMs: 5_000 })).status === 200,
    { timeoutMs: 300_000, what: 'fuseki', failed: proc.failed });
  return { base, stop: proc.stop };
}

// ---------------------------------------------------------------------------------------------
// Data

/** The data as messages of PER_MESSAGE triples each (N-Triples, whole lines). */
function messages() {
  /** @type {Buffer[]} */
  const out = [];
  /** @type {string[]} */
  let lines = [];
  for (const line of bsbmLines({ triples: TRIPLES, seed: SEED })) {
    lines.push(line);
    if (lines.length === PER_MESSAGE) {
      out.push(Buffer.from(lines.join('')));
      lines = [];
    }
  }
  if (lines.length > 0) out.push(Buffer.from(lines.join('')));
  return out;
}

/** The i-th small write: WRITE_TRIPLES triples about a subject of its own. @param {number} i */
function smallWrite(i) {
  const s = `<http://bench.ianode.local/w/${i}>`;
  let text = '';
  for (let j = 0; j < WRITE_TRIPLES; j++) text += `${s} <http://bench.ianode.local/p${j}> "value ${i}.${j}" .\n`;
  return { body: text, ask: `ASK { ${s} <http://bench.ianode.local/p0> "value ${i}.0" }` };
}

/** @param {import('@platformatic/kafka').Producer<Buffer, Buffer, Buffer, Buffer>} producer @param {string} topic @param {Buffer[]} values */
async function produce(producer, topic, values) {
  const headers = () => new Map([[Buffer.from('Content-Type'), Buffer.from(NT)], [Buffer.from('Security-Label'), Buffer.from(LABEL)]]);
  let last = -1n;
  // A send is one record batch; the broker takes up to 1 MiB per batch (message.max.bytes).
  for (let i = 0; i < values.length;) {
    const batch = [];
    let bytes = 0;
    while (i < values.length && (batch.length === 0 || bytes + /** @type {Buffer} */ (values[i]).length < 900_000)) {
      const value = /** @type {Buffer} */ (values[i++]);
      bytes += value.length;
      batch.push({ topic, partition: 0, value, headers: headers() });
    }
    const result = await producer.send({ messages: batch });
    last = /** @type {bigint} */ (result.offsets?.[0]?.offset) + BigInt(batch.length - 1);
  }
  return last;
}

// ---------------------------------------------------------------------------------------------

const report = {
  date: new Date().toISOString(),
  machine: machine(),
  loadAverageStart: loadAverage(),
  options: { triples: TRIPLES, seed: SEED, runs: RUNS, messageTriples: PER_MESSAGE, writes: WRITES, writeTriples: WRITE_TRIPLES, label: LABEL },
  versions: { kafka: KAFKA_VERSION, fuseki: FUSEKI_VERSION, node: process.version },
  /** @type {Record<string, unknown>} */
  catchup: {},
  /** @type {Record<string, unknown>} */
  cqrs: {},
  /** @type {string[]} */
  problems: [],
};
let wrong = false;

async function main() {
  if (!existsSync(MAIN)) throw new Error('packages/graph-server/dist/main.js missing: build first (npx tsc -b, or npm run bench:kafka)');
  const m = report.machine;
  console.log(`# Kafka benchmark — ${report.date}`);
  console.log(`\n${m.cpu}, ${m.cores} cores, ${(m.memoryBytes / 2 ** 30).toFixed(0)} GiB, ${m.os}, Node ${m.node}; Kafka ${KAFKA_VERSION} (1 broker, KRaft), Fuseki ${FUSEKI_VERSION}`);
  console.log(`load average at start (1, 5, 15 min): ${report.loadAverageStart.join(', ')}`);

  log('kafka: starting one broker');
  const cluster = await startKafka({ brokers: 1, dir: work });
  /** @type {import('@platformatic/kafka').Producer<Buffer, Buffer, Buffer, Buffer>} */
  const producer = new Producer({ clientId: 'ianode-bench', bootstrapBrokers: cluster.bootstrap.split(','), acks: -1, retries: 5, retryDelay: 300 });
  try {
    if (PARTS.has('catchup')) await catchup(cluster, producer);
    if (PARTS.has('cqrs')) await cqrs(cluster);
  } finally {
    await producer.close().catch(() => undefined);
    await cluster.stop();
  }
  report.loadAverageEnd = loadAverage();
  console.log(`\nload average at end (1, 5, 15 min): ${report.loadAverageEnd.join(', ')}`);
  if (report.problems.length) console.log(`\nProblems:\n${report.problems.map((p) => `- ${p}`).join('\n')}`);
  if (opts.json) {
    const out = path.join(HERE, 'out');
    await mkdir(out, { recursive: true });
    const file = path.join(out, `kafka-${TRIPLES}.json`);
    await writeFile(file, JSON.stringify(report, (_, v) => (typeof v === 'bigint' ? String(v) : v), 2));
    log(`wrote ${path.relative(process.cwd(), file)}`);
  }
}

/**
 * Part 1: a replica from an empty folder catching up from the topic, against HTTP ingest of the
 * same messages.
 * @param {import('../test/kafka/broker.mjs').KafkaCluster} cluster
 * @param {import('@platformatic/kafka').Producer<Buffer, Buffer, Buffer, Buffer>} producer
 */
async function catchup(cluster, producer) {
  log(`data: ${fmt(TRIPLES)} BSBM triples (seed ${SEED}) in messages of ${fmt(PER_MESSAGE)}`);
  const values = messages();
  const bytes = values.reduce((n, v) => n + v.length, 0);
  const topic = `bench-catchup-${process.pid}`;
  const empty = `bench-empty-${process.pid}`;
  await cluster.createTopic(topic);
  await cluster.createTopic(empty);
  const t0 = performance.now();
  const last = await produce(producer, topic, values);
  const produceSeconds = (performance.now() - t0) / 1000;
  if (last !== BigInt(values.length - 1)) throw new Error(`produced ${values.length} messages but the last offset is ${last}`);
  log(`kafka: ${values.length} messages (${(bytes / 2 ** 20).toFixed(1)} MiB) produced in ${produceSeconds.toFixed(1)} s; last offset ${last}`);
  Object.assign(report.catchup, { messages: values.length, bytes, produceSeconds, lastOffset: String(last) });

  /** @type {Record<string, { seconds: number, extra?: Record<string, number> }[]>} */
  const runs = Object.fromEntries(ENGINES.map((e) => [e, []]));
  /** @type {number[]} */
  const emptyStarts = [];
  /** @type {Record<string, string>} */
  const unavailable = {};

  for (let run = 1; run <= RUNS; run++) {
    for (const engine of ENGINES) {
      if (unavailable[engine]) continue;
      const loadBefore = loadAverage()[0];
      if (engine === 'ianode-kafka') {
        // The server's own start with a topic that has no messages: the fixed part of the time below.
        const idle = await graphServer({ name: 'empty', kafka: { topic: empty, brokers: cluster.bootstrap, writes: 'direct', replicaId: `bench-empty-${run}` } });
        emptyStarts.push(idle.listenMs / 1000);
        await idle.stop();
        const profDir = CPU_PROF && run === 1 ? path.join(HERE, 'out', 'kafka-cpu-prof') : undefined;
        const s = await graphServer({ name: 'replica', kafka: { topic, brokers: cluster.bootstrap, writes: 'direct', replicaId: `bench-replica-${run}` }, ...(profDir ? { cpuProf: profDir } : {}) });
        // It catches up before it listens; poll in case the end moved while it started (it does not here).
        let status = await kafkaStatus(s.base);
        while (status.partitions[0].applied === null || BigInt(status.partitions[0].applied) < last) {
          if (status.state === 'stopped' || status.error) throw new Error(`connector: ${JSON.stringify(status)}`);
          await sleep(20);
          status = await kafkaStatus(s.base);
        }
        const seconds = (performance.now() - s.started) / 1000;
        const n = await countTriples(`${s.base}/ds/query`);
        if (n !== TRIPLES) { wrong = true; report.problems.push(`ianode-kafka run ${run}: COUNT ${n}, expected ${TRIPLES}`); }
        await s.stop();
        runs[engine]?.push({ seconds, extra: { listenSeconds: s.listenMs / 1000, loadAverage: loadBefore } });
        log(`  run ${run} ianode-kafka: caught up ${fmt(TRIPLES)} triples in ${seconds.toFixed(2)} s from spawn (listening after ${(s.listenMs / 1000).toFixed(2)} s; empty-topic start ${(idle.listenMs / 1000).toFixed(2)} s); COUNT ${fmt(n)}`);
      } else if (engine === 'ianode-http') {
        const s = await graphServer({ name: 'http' });
        const seconds = await uploadAll(`${s.base}/ds/upload`, values, { 'security-label': LABEL });
        const n = await countTriples(`${s.base}/ds/query`);
        if (n !== TRIPLES) { wrong = true; report.problems.push(`ianode-http run ${run}: COUNT ${n}, expected ${TRIPLES}`); }
        await s.stop();
        runs[engine]?.push({ seconds, extra: { loadAverage: loadBefore } });
        log(`  run ${run} ianode-http: ${values.length} uploads in ${seconds.toFixed(2)} s; COUNT ${fmt(n)}`);
      } else {
        const f = await fuseki();
        if ('unavailable' in f) {
          unavailable[engine] = /** @type {string} */ (f.unavailable);
          report.problems.push(`fuseki-http: ${f.unavailable}`);
          continue;
        }
        try {
          const seconds = await uploadAll(`${f.base}/ds/data?default`, values, {});
          const n = await countTriples(`${f.base}/ds/query`);
          if (n !== TRIPLES) { wrong = true; report.problems.push(`fuseki-http run ${run}: COUNT ${n}, expected ${TRIPLES}`); }
          runs[engine]?.push({ seconds, extra: { loadAverage: loadBefore } });
          log(`  run ${run} fuseki-http: ${values.length} POSTs in ${seconds.toFixed(2)} s; COUNT ${fmt(n)}`);
        } finally {
          await f.stop();
        }
      }
    }
  }

  /** @type {Record<string, number>} */
  const rates = {};
  const rows = ENGINES.map((engine) => {
    const list = runs[engine] ?? [];
    if (list.length === 0) return [engine, '0', '—', '—', unavailable[engine] ?? 'failed'];
    const seconds = median(list.map((r) => r.seconds));
    rates[engine] = TRIPLES / seconds;
    const what = engine === 'ianode-kafka'
      ? `spawn → last offset applied (listening after ${median(list.map((r) => r.extra?.listenSeconds ?? 0)).toFixed(2)} s)`
      : 'first POST → last reply';
    return [engine, String(list.length), seconds.toFixed(2), fmt(TRIPLES / seconds), what];
  });
  const emptyStart = emptyStarts.length ? median(emptyStarts) : undefined;
  console.log(`\n## Replica catch-up: ${fmt(TRIPLES)} triples in ${values.length} messages of ${fmt(PER_MESSAGE)} (median of ${RUNS})\n`);
  console.log(markdownTable(['engine', 'runs', 'seconds', 'triples/s', 'timed'], rows));
  if (emptyStart !== undefined) console.log(`\nianode graph server start with an empty topic (spawn → listening, median): ${emptyStart.toFixed(2)} s`);
  const base = rates['ianode-kafka'];
  if (base !== undefined) {
    const others = Object.entries(rates).filter(([e]) => e !== 'ianode-kafka');
    console.log(`goal ≥ 200,000 triples/s: ${base >= 200_000 ? 'met' : 'NOT met'} (${fmt(base)})`);
    if (others.length) console.log(`ratios (rate, > 1 = ianode-kafka faster): ${others.map(([e, r]) => `ianode-kafka : ${e} = ${(base / r).toFixed(2)}`).join('; ')}`);
  }
  const h = rates['ianode-http'];
  const fz = rates['fuseki-http'];
  if (h !== undefined && fz !== undefined) console.log(`ianode-http : fuseki-http = ${(h / fz).toFixed(2)}`);
  Object.assign(report.catchup, { runs, emptyStartSeconds: emptyStarts, medianEmptyStartSeconds: emptyStart, ratesTriplesPerSecond: rates, unavailable });
}

/**
 * POSTs every message in order, one at a time; seconds from the first request to the last reply.
 * @param {string} url @param {Buffer[]} values @param {Record<string, string>} headers
 */
async function uploadAll(url, values, headers) {
  const t0 = performance.now();
  for (const value of values) {
    const r = await httpCall(url, { method: 'POST', headers: { 'content-type': NT, ...headers }, body: value, timeoutMs: 600_000 });
    if (r.status < 200 || r.status >= 300) throw new Error(`POST ${url}: HTTP ${r.status} ${r.body.toString('utf8', 0, 300)}`);
  }
  return (performance.now() - t0) / 1000;
}

/**
 * Part 2: write-to-visible latency of CQRS writes (`writes: log`) on the replica that takes the
 * write and on a second one, against the same writes without Kafka and on Fuseki.
 * @param {import('../test/kafka/broker.mjs').KafkaCluster} cluster
 */
async function cqrs(cluster) {
  const topic = `bench-cqrs-${process.pid}`;
  await cluster.createTopic(topic);
  const kafka = (/** @type {string} */ id) => ({ topic, brokers: cluster.bootstrap, writes: 'log', replicaId: id });
  log(`cqrs: ${WRITES} sequential writes of ${WRITE_TRIPLES} triples (after ${WARMUP} untimed)`);
  const total = WARMUP + WRITES;
  const loadBefore = loadAverage()[0];

  /** @type {Record<string, number[]>} */
  const lat = { 'ianode-kafka r1': [], 'ianode-kafka r2': [], 'ianode-direct': [], fuseki: [] };
  const r1 = await graphServer({ name: 'r1', kafka: kafka('r1') });
  const r2 = await graphServer({ name: 'r2', kafka: kafka('r2') });
  try {
    for (let i = 0; i < total; i++) {
      const { body, ask } = smallWrite(i);
      const t0 = performance.now();
      const w = await httpCall(`${r1.base}/ds/upload`, { method: 'POST', headers: { 'content-type': NT, 'security-label': LABEL }, body, timeoutMs: 60_000 });
      const t1 = performance.now();
      const offset = w.headers['ianode-offset'];
      if (w.status !== 200 || typeof offset !== 'string') throw new Error(`CQRS write ${i} on r1: HTTP ${w.status}, ianode-offset ${offset}: ${w.body.toString('utf8', 0, 300)}`);
      const q = await httpCall(`${r2.base}/ds/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json', 'ianode-offset': offset },
        body: ask,
        timeoutMs: 60_000,
      });
      const t2 = performance.now();
      if (q.status !== 200 || JSON.parse(q.body.toString('utf8')).boolean !== true) {
        wrong = true;
        report.problems.push(`r2 after write ${i} (Ianode-Offset ${offset}): HTTP ${q.status} ${q.body.toString('utf8', 0, 200)}`);
      }
      if (i >= WARMUP) {
        lat['ianode-kafka r1']?.push(t1 - t0);
        lat['ianode-kafka r2']?.push(t2 - t0);
      }
    }
    for (const [name, s] of [['r1', r1], ['r2', r2]]) {
      const n = await countTriples(`${/** @type {typeof r1} */ (s).base}/ds/query`);
      if (n !== total * WRITE_TRIPLES) { wrong = true; report.problems.push(`cqrs ${name}: COUNT ${n}, expected ${total * WRITE_TRIPLES}`); }
    }
  } finally {
    await r1.stop();
    await r2.stop();
  }

  const direct = await graphServer({ name: 'direct' });
  try {
    await timedWrites(`${direct.base}/ds/upload`, { 'security-label': LABEL }, lat['ianode-direct'] ?? []);
    const n = await countTriples(`${direct.base}/ds/query`);
    if (n !== total * WRITE_TRIPLES) { wrong = true; report.problems.push(`cqrs ianode-direct: COUNT ${n}, expected ${total * WRITE_TRIPLES}`); }
  } finally {
    await direct.stop();
  }

  if (ENGINES.includes('fuseki-http')) {
    const f = await fuseki();
    if ('unavailable' in f) report.problems.push(`fuseki (cqrs peer): ${f.unavailable}`);
    else {
      try {
        await timedWrites(`${f.base}/ds/data?default`, {}, lat.fuseki ?? []);
        const n = await countTriples(`${f.base}/ds/query`);
        if (n !== total * WRITE_TRIPLES) { wrong = true; report.problems.push(`cqrs fuseki: COUNT ${n}, expected ${total * WRITE_TRIPLES}`); }
      } finally {
        await f.stop();
      }
    }
  }

  /** @type {Record<string, { p50: number, p99: number, mean: number }>} */
  const summary = {};
  const rows = Object.entries(lat).filter(([, v]) => v.length > 0).map(([name, values]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const s = { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), mean: values.reduce((a, b) => a + b, 0) / values.length };
    summary[name] = s;
    const what = {
      'ianode-kafka r1': 'POST /ds/upload on r1 → reply (r1 has applied it)',
      'ianode-kafka r2': 'same POST → r2 answers ASK with Ianode-Offset (true)',
      'ianode-direct': 'POST /ds/upload, no Kafka (durable commit)',
      fuseki: 'POST /ds/data?default (in-memory)',
    }[name] ?? '';
    return [name, String(values.length), s.p50.toFixed(2), s.p99.toFixed(2), s.mean.toFixed(2), what];
  });
  console.log(`\n## CQRS write-to-visible: ${WRITES} sequential writes of ${WRITE_TRIPLES} triples (ms)\n`);
  console.log(markdownTable(['path', 'writes', 'p50', 'p99', 'mean', 'timed'], rows));
  const k = summary['ianode-kafka r1'];
  const d = summary['ianode-direct'];
  const fz = summary.fuseki;
  if (k && d) console.log(`\np50 ratios: r1 : ianode-direct = ${(k.p50 / d.p50).toFixed(2)}${fz ? `; r1 : fuseki = ${(k.p50 / fz.p50).toFixed(2)}; ianode-direct : fuseki = ${(d.p50 / fz.p50).toFixed(2)}` : ''}`);
  console.log(`load average (1 min) before this part: ${loadBefore}`);
  Object.assign(report.cqrs, { summary, loadAverageBefore: loadBefore, latenciesMs: lat });
}

/** Sequential writes (the same WARMUP + WRITES bodies); latencies of the timed ones into `into`.
 * @param {string} url @param {Record<string, string>} headers @param {number[]} into */
async function timedWrites(url, headers, into) {
  for (let i = 0; i < WARMUP + WRITES; i++) {
    const { body } = smallWrite(i);
    const t0 = performance.now();
    const r = await httpCall(url, { method: 'POST', headers: { 'content-type': NT, ...headers }, body, timeoutMs: 60_000 });
    const t1 = performance.now();
    if (r.status < 200 || r.status >= 300) throw new Error(`POST ${url}: HTTP ${r.status} ${r.body.toString('utf8', 0, 300)}`);
    if (i >= WARMUP) into.push(t1 - t0);
  }
}

main().then(
  () => process.exit(wrong ? 1 : 0),
  (error) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
