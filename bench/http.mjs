#!/usr/bin/env node
// `npm run bench:http`: the whole node over HTTP (IdP + access service + graph server in secure
// mode, ABAC on, started by scripts/start.mjs) against Virtuoso 7, Apache Jena Fuseki and the
// native Oxigraph server over HTTP: the query mix at 1, 2 and 8 concurrent clients (q/s, p50,
// p99), answers' row counts checked equal across engines; then the isolation figures (/$/ping and
// sign-in latency while long queries and an attack run, time from a query's deadline to its end).
// See bench/README.md. Nothing here asserts a time: exit 1 only when answers disagree or ianode fails.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { tmpdir, freemem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs, parseCount } from './lib/args.mjs';
import { ensureBsbmFile } from './lib/bsbm.mjs';
import { bsbmQueries, selectQueries } from './lib/queries.mjs';
import { ensureSlices, sliceOf } from './lib/slices.mjs';
import { machine, markdownTable, median } from './lib/report.mjs';
import { VOC } from './lib/vocabulary.mjs';
import { httpCall, loadAverage, percentile, runCell, sparql } from './lib/http-client.mjs';
import { fusekiServer, ianodeServer, IANODE_ADMIN, oxigraphServer, signIn, virtuosoServer } from './lib/http-servers.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(HERE, 'out');
const CACHE = path.join(HERE, '.cache');

const args = parseArgs(process.argv.slice(2), {
  triples: '1M',
  clients: '1,2,8',
  seconds: 10,
  engines: 'ianode,virtuoso,fuseki,oxigraph',
  queries: 'lookup,star,optional,path,chain,top10,group,dfilter',
  seed: 42,
  warmup: 3,
  isolation: 'true',
  'iso-seconds': 12,
  'deadline-ms': 1500,
  'long-ms': 10000,
  timeout: 300,
  json: false,
});
const sizes = String(args.triples).split(',').map((s) => parseCount(s.trim()));
const clientLevels = String(args.clients).split(',').map((s) => Number(s.trim()));
const seconds = Number(args.seconds);
const engines = String(args.engines).split(',').map((s) => s.trim()).filter(Boolean);
const seed = Number(args.seed);
const requestTimeoutMs = Number(args.timeout) * 1000;
const SLICES = 10;
// Slices 0–4 `employee`, 5–8 `clearance=S`, 9 `contractor`: the demo admin (employee, clearance TS,
// not a contractor) sees 9 slices of 10, so the store's view really filters every query.
const labelOf = (/** @type {number} */ k) => (k < 5 ? 'employee' : k < SLICES - 1 ? 'clearance=S' : 'contractor');
const visibleSlice = (/** @type {number} */ k) => k < SLICES - 1;

const log = (/** @type {string} */ msg) => process.stdout.write(msg + '\n');
const fmt = (/** @type {number | undefined} */ x, digits = 1) => (x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(digits));

/** @type {string[]} */
const problems = [];
let failed = false;
const m = machine();
const report = {
  date: new Date().toISOString(),
  machine: { ...m, loadBefore: loadAverage() },
  options: { triples: sizes, clients: clientLevels, seconds, engines, queries: String(args.queries), seed },
  /** @type {Record<string, string>} */
  versions: {},
  /** @type {any[]} */
  sizes: [],
  /** @type {any} */
  isolation: undefined,
  problems,
};
log(`bench:http — ${m.cpu}, ${m.cores} cores, ${(m.memoryBytes / 2 ** 30).toFixed(1)} GiB (${(freemem() / 2 ** 30).toFixed(1)} free), ${m.os}, node ${m.node}`);
log(`load average before: ${report.machine.loadBefore.join(' ')}`);
log(`sizes ${sizes.join(', ')}; clients ${clientLevels.join(', ')}; ${seconds} s per cell; engines ${engines.join(', ')}; seed ${seed}`);

const work = await mkdtemp(path.join(tmpdir(), 'ianode-bench-http-'));
const logDir = path.join(OUT, 'http-logs');
await mkdir(logDir, { recursive: true });
log(`temporary data in ${work}; server logs in ${path.relative(process.cwd(), logDir)}`);

/** Concatenates the visible slices into one file (peers get only what the ianode caller sees). */
async function visibleFile(/** @type {string} */ file, /** @type {string[]} */ slices, /** @type {number[]} */ lines) {
  const out = `${file}.visible${SLICES - 1}of${SLICES}.nt`;
  const want = lines.filter((_, k) => visibleSlice(k)).reduce((a, b) => a + b, 0);
  const marker = `${out}.json`;
  try {
    const meta = JSON.parse(await readFile(marker, 'utf8'));
    if (meta.lines === want && meta.bytes === (await stat(out)).size) return { file: out, lines: want };
  } catch {
    // write it below
  }
  const ws = createWriteStream(out);
  for (const [k, slice] of slices.entries()) {
    if (!visibleSlice(k)) continue;
    for await (const chunk of createReadStream(slice, { highWaterMark: 1 << 20 })) if (!ws.write(chunk)) await once(ws, 'drain');
  }
  ws.end();
  await finished(ws);
  await writeFile(marker, JSON.stringify({ lines: want, bytes: (await stat(out)).size }) + '\n');
  return { file: out, lines: want };
}

/** The single number of a one-cell CSV answer (`SELECT (COUNT(*) AS ?n)`). @param {Buffer} body */
function csvNumber(body) {
  const line = body.toString('utf8').trim().split(/\r?\n/)[1] ?? '';
  return Number(line.replace(/"/g, '').replace(/\^\^.*$/, ''));
}

/**
 * One engine at one size: start, load, check the quad count, then per query a checked first run,
 * warm-up and one cell per client level.
 * @param {any} server @param {{ triples: number, queries: import('./lib/queries.mjs').BenchQuery[], startArgs: any, expectQuads: number }} ctx
 */
async function runEngine(server, { triples, queries, startArgs, expectQuads }) {
  const result = { engine: server.name, loadAverageStart: loadAverage(), /** @type {Record<string, any>} */ queries: {} };
  const why = await server.available();
  if (why) {
    log(`  ${server.name}: not available — ${why}`);
    return { ...result, unavailable: why };
  }
  report.versions[server.name] ??= server.version();
  log(`  ${server.name}: ${report.versions[server.name]}`);
  try {
    const started = await server.start(startArgs);
    const endpoint = started.endpoint;
    const count = await sparql(endpoint, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', requestTimeoutMs);
    const quads = count.status === 200 ? csvNumber(count.body) : NaN;
    log(`  ${server.name}: ${started.startSeconds ? `up in ${fmt(started.startSeconds)} s, ` : ''}loaded in ${fmt(started.loadSeconds)} s, ${quads} triples visible (expected ${expectQuads})`);
    Object.assign(result, { startSeconds: started.startSeconds, loadSeconds: started.loadSeconds, quads });
    if (quads !== expectQuads) {
      problems.push(`${triples}: ${server.name} holds ${quads} visible triples, expected ${expectQuads}`);
      failed = true;
    }
    for (const q of queries) {
      await server.keepToken?.();
      const first = await sparql(endpoint, q.text, requestTimeoutMs).catch((error) => ({ status: 0, rows: -1, ms: NaN, body: Buffer.from(String(error.message)) }));
      const entry = { rows: first.rows, firstMs: first.ms, /** @type {any[]} */ cells: [] };
      result.queries[q.id] = entry;
      if (first.status !== 200) {
        entry.error = `HTTP ${first.status}: ${first.body.toString('utf8', 0, 300)}`;
        log(`  ${server.name} ${q.id}: ${entry.error}`);
        continue;
      }
      const warmUntil = performance.now() + 1000;
      for (let i = 0; i < Number(args.warmup) || (performance.now() < warmUntil && i < 50); i++) await sparql(endpoint, q.text, requestTimeoutMs);
      for (const clients of clientLevels) {
        await server.keepToken?.();
        const cell = await runCell(endpoint, q.text, { clients, seconds, expectRows: first.rows, timeoutMs: requestTimeoutMs });
        entry.cells.push(cell);
        log(`  ${server.name.padEnd(8)} ${q.id.padEnd(9)} ${String(clients).padStart(2)} clients: ${fmt(cell.qps, 2).padStart(8)} q/s  p50 ${fmt(cell.p50).padStart(8)} ms  p99 ${fmt(cell.p99).padStart(8)} ms  (${cell.completed} answers of ${first.rows} rows${cell.errors ? `, ${cell.errors} errors: ${cell.firstError}` : ''})`);
        if (cell.errors) problems.push(`${triples} ${server.name} ${q.id} ${clients} clients: ${cell.errors} failed requests (${cell.firstError})`);
      }
    }
  } catch (error) {
    result.error = /** @type {Error} */ (error).message;
    log(`  ${server.name}: FAILED — ${result.error}`);
    problems.push(`${triples}: ${server.name} failed: ${result.error}`);
    if (server.name === 'ianode') failed = true;
  }
  result.loadAverageEnd = loadAverage();
  return result;
}

// ---------------------------------------------------------------------------------------------
// Isolation: /$/ping and sign-in latency while other work runs; deadline to end

const NESTED_ATTACK = (() => {
  const depth = 1200; // 5 kB of `{ ` and ` }`, far past the server's depth limit
  return `SELECT * WHERE ${'{ '.repeat(depth)}?s ?p ?o${' }'.repeat(depth)}`;
})();
// REGEX with nested quantifiers (exponential for a backtracking matcher) over long strings: every
// literal of the data with 3,000 more characters.
const REGEX_ATTACK = `SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o . FILTER(isLiteral(?o)) BIND(CONCAT(STR(?o), "${'a'.repeat(3000)}!") AS ?x) FILTER(REGEX(?x, "^(a+)+$")) }`;
// A long CPU-bound query: a cross join of every offer price with every other one.
const LONG_QUERY = `SELECT (COUNT(*) AS ?n) WHERE { ?a <${VOC}price> ?p . ?b <${VOC}price> ?q . FILTER(?p < ?q) }`;

/**
 * Probes until `stopAt`. `open`: one started every `intervalMs` whether or not the earlier ones have
 * answered (a stalled server shows as many slow answers, not as one), else one after the other with
 * `intervalMs` between them. Latencies of the successful ones.
 * @param {() => Promise<boolean>} probe @param {number} stopAt @param {number} intervalMs @param {boolean} open
 */
async function probeLoop(probe, stopAt, intervalMs, open) {
  /** @type {number[]} */
  const ok = [];
  let errors = 0;
  const one = async () => {
    const t0 = performance.now();
    try {
      if (await probe()) ok.push(performance.now() - t0);
      else errors++;
    } catch {
      errors++;
    }
  };
  /** @type {Promise<void>[]} */
  const pending = [];
  while (performance.now() < stopAt) {
    if (open) pending.push(one());
    else await one();
    await sleep(intervalMs);
  }
  await Promise.all(pending);
  ok.sort((a, b) => a - b);
  return { n: ok.length, errors, p50: percentile(ok, 0.5), p99: percentile(ok, 0.99), max: ok[ok.length - 1] ?? NaN };
}

/**
 * Background clients, each looping its query until stopped; statuses counted.
 * @param {import('./lib/http-client.mjs').Endpoint} endpoint @param {string[]} texts one client per text
 */
function background(endpoint, texts) {
  let stop = false;
  /** @type {Record<string, number>} */
  const statuses = {};
  /** @type {number[]} */
  const times = [];
  const loops = texts.map(async (text) => {
    while (!stop) {
      try {
        const r = await sparql(endpoint, text, 120_000);
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        times.push(r.ms);
      } catch (error) {
        statuses[/** @type {Error} */ (error).message] = (statuses[/** @type {Error} */ (error).message] ?? 0) + 1;
        await sleep(100);
      }
    }
  });
  return {
    async end() {
      stop = true;
      await Promise.all(loops);
      return { statuses, medianMs: times.length ? median(times) : NaN };
    },
  };
}

/** @param {{ dataDir: string, triples: number, ports: { idp: number, access: number, graph: number } }} ctx */
async function isolation({ dataDir, triples, ports }) {
  const isoSeconds = Number(args['iso-seconds']);
  const longMs = Number(args['long-ms']);
  const deadlineMs = Number(args['deadline-ms']);
  const out = { triples, isoSeconds, longMs, deadlineMs, /** @type {any[]} */ phases: [], /** @type {any[]} */ deadline: [] };
  log(`\nisolation (${triples} triples): restarting ianode on the same data with QUERY_TIMEOUT_MS=${longMs}`);
  const node = ianodeServer({ dataDir, logDir, queryTimeoutMs: longMs, ports, heapMiB: triples > 3_000_000 ? 14_336 : undefined });
  try {
    const up = await node.start();
    log(`  ianode up again in ${fmt(up.startSeconds)} s (store reopened from its folder)`);
    const endpoint = node.endpoint();
    const pingUrl = `${node.state.graph}/$/ping`;
    /** @param {string} name @param {string[]} texts */
    const phase = async (name, texts) => {
      const bg = background(endpoint, texts);
      if (texts.length) await sleep(500); // the background queries are under way
      const stopAt = performance.now() + isoSeconds * 1000;
      const [ping, signin] = await Promise.all([
        probeLoop(async () => (await httpCall(pingUrl, { timeoutMs: 120_000 })).status === 200, stopAt, 20, true),
        probeLoop(async () => (await signIn(node.state.idp, IANODE_ADMIN)).length > 0, stopAt, 100, false),
      ]);
      const done = await bg.end();
      const row = { phase: name, ping, signin, background: done, loadAverage: loadAverage() };
      out.phases.push(row);
      log(`  ${name.padEnd(44)} ping p50 ${fmt(ping.p50)} p99 ${fmt(ping.p99)} max ${fmt(ping.max)} ms (${ping.n}) | sign-in p50 ${fmt(signin.p50)} p99 ${fmt(signin.p99)} ms (${signin.n}) | background ${JSON.stringify(done.statuses)}`);
    };
    await phase('idle', []);
    await phase(`2 clients running long queries (cut at ${longMs / 1000} s)`, [LONG_QUERY, LONG_QUERY]);
    await phase('attack: nested { } (5 kB) + REGEX ^(a+)+$', [NESTED_ATTACK, REGEX_ATTACK]);
  } catch (error) {
    problems.push(`isolation: ${/** @type {Error} */ (error).message}`);
    log(`  isolation FAILED: ${/** @type {Error} */ (error).message}`);
  } finally {
    await node.stop();
  }
  log(`  restarting ianode with QUERY_TIMEOUT_MS=${deadlineMs} for the deadline figures`);
  const node2 = ianodeServer({ dataDir, logDir, queryTimeoutMs: deadlineMs, ports, heapMiB: triples > 3_000_000 ? 14_336 : undefined });
  try {
    await node2.start();
    const endpoint = node2.endpoint();
    for (const [name, text] of [['long cross join', LONG_QUERY], ['REGEX attack', REGEX_ATTACK]]) {
      /** @type {number[]} */
      const after = [];
      /** @type {Record<string, number>} */
      const statuses = {};
      for (let i = 0; i < 8; i++) {
        const r = await sparql(endpoint, text, 120_000);
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.status === 503) after.push(r.ms - deadlineMs);
      }
      after.sort((a, b) => a - b);
      const row = { query: name, statuses, n: after.length, p50: percentile(after, 0.5), max: after[after.length - 1] ?? NaN };
      out.deadline.push(row);
      log(`  deadline → end, ${name.padEnd(16)}: p50 ${fmt(row.p50)} ms, max ${fmt(row.max)} ms over ${row.n} cancelled runs (statuses ${JSON.stringify(statuses)})`);
    }
  } catch (error) {
    problems.push(`deadline: ${/** @type {Error} */ (error).message}`);
    log(`  deadline FAILED: ${/** @type {Error} */ (error).message}`);
  } finally {
    await node2.stop();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Main: per size, data, engines one after another (one server up at a time), checks, tables.

let isolationDone = args.isolation === 'false' || !engines.includes('ianode');
for (const triples of sizes) {
  log(`\n== ${triples.toLocaleString('en-US')} triples ==`);
  const { file } = await ensureBsbmFile({ triples, seed, dir: OUT, log });
  const { files: slices, lines } = await ensureSlices({ file, count: SLICES, log });
  const visible = await visibleFile(file, slices, lines);
  log(`data ${path.relative(process.cwd(), file)}: ${SLICES} slices, ${visible.lines} of ${triples} triples visible to ${IANODE_ADMIN} (labels ${[...new Set(slices.map((_, k) => labelOf(k)))].join(', ')})`);
  const queries = selectQueries(bsbmQueries({ triples, seed, visible: (s) => visibleSlice(sliceOf(s, SLICES)) }), String(args.queries));
  const size = { triples, visibleTriples: visible.lines, loadAverageStart: loadAverage(), /** @type {any[]} */ engines: [] };
  report.sizes.push(size);
  for (const name of engines) {
    const dir = path.join(work, `${name}-${triples}`);
    if (name === 'ianode') {
      // Above 3M triples the node's processes get a 14 GiB heap limit (NODE_OPTIONS), as Fuseki gets -Xmx14g.
      const server = ianodeServer({ dataDir: dir, logDir, heapMiB: triples > 3_000_000 ? 14_336 : undefined });
      const uploads = slices.map((f, k) => ({ file: f, label: labelOf(k) }));
      try {
        size.engines.push(await runEngine(server, { triples, queries, startArgs: { uploads, log }, expectQuads: visible.lines }));
      } finally {
        await server.stop();
      }
      if (!isolationDone) {
        report.isolation = await isolation({ dataDir: dir, triples, ports: server.ports });
        isolationDone = true;
      }
      await rm(dir, { recursive: true, force: true });
    } else {
      const server = name === 'virtuoso' ? virtuosoServer({ dir, logDir, triples, log })
        : name === 'fuseki' ? fusekiServer({ cacheDir: CACHE, logDir, triples, log })
          : name === 'oxigraph' ? oxigraphServer({ dir, logDir })
            : undefined;
      if (!server) throw new TypeError(`unknown engine ${name} (known: ianode, virtuoso, fuseki, oxigraph)`);
      try {
        size.engines.push(await runEngine(server, { triples, queries, startArgs: { file: visible.file }, expectQuads: visible.lines }));
      } finally {
        await server.stop();
      }
    }
  }
  size.loadAverageEnd = loadAverage();
  printSize(size, queries);
}

report.machine.loadAfter = loadAverage();
await rm(work, { recursive: true, force: true });

log(`\n## Report\n`);
log(`machine: ${m.cpu}, ${m.cores} cores, ${(m.memoryBytes / 2 ** 30).toFixed(1)} GiB, ${m.os}, node ${m.node}`);
log(`load average (1/5/15 min): before ${report.machine.loadBefore.join(' ')}, after ${report.machine.loadAfter.join(' ')}`);
log('versions:');
for (const [name, version] of Object.entries(report.versions)) log(`  ${name}: ${version}`);
for (const size of report.sizes) log(size.text);
if (report.isolation) log(isolationText(report.isolation));
if (problems.length) {
  log('\nproblems:');
  for (const p of problems) log(`  - ${p}`);
}
if (args.json) {
  const allEngines = engines.join(',') === 'ianode,virtuoso,fuseki,oxigraph';
  const name = path.join(OUT, `http-${sizes.join('-')}${allEngines ? '' : `-${engines.join('-')}`}.json`);
  await writeFile(name, JSON.stringify(report, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2) + '\n');
  log(`\nwrote ${path.relative(process.cwd(), name)}`);
}
process.exit(failed ? 1 : 0);

/**
 * The tables of one size, kept as text in `size.text`; the counts check marks `failed`.
 * @param {any} size @param {import('./lib/queries.mjs').BenchQuery[]} queries
 */
function printSize(size, queries) {
  const ran = size.engines.filter((/** @type {any} */ e) => !e.unavailable && !e.error);
  const lines = [`\n### ${size.triples.toLocaleString('en-US')} triples (${size.visibleTriples.toLocaleString('en-US')} visible to the ianode caller, the peers' whole data)`];
  lines.push(`load average (1 min) per engine, start → end: ${size.engines.map((/** @type {any} */ e) => `${e.engine} ${e.loadAverageStart[0]} → ${e.loadAverageEnd?.[0] ?? '?'}`).join('; ')}`);
  for (const e of size.engines) {
    if (e.unavailable) lines.push(`${e.engine}: not available (${e.unavailable})`);
    else if (e.error) lines.push(`${e.engine}: failed (${e.error})`);
    else lines.push(`${e.engine}: load ${fmt(e.loadSeconds)} s${e.startSeconds ? ` (start ${fmt(e.startSeconds)} s)` : ''}`);
  }
  // Counts check: every engine that answered must give the same row count for every query.
  const countHead = ['query', ...ran.map((/** @type {any} */ e) => e.engine), 'check'];
  /** @type {string[][]} */
  const countBody = [];
  for (const q of queries) {
    const counts = ran.map((/** @type {any} */ e) => e.queries[q.id]?.rows);
    const answered = counts.filter((/** @type {number | undefined} */ c) => c !== undefined && c >= 0);
    const same = answered.length > 0 && answered.every((/** @type {number} */ c) => c === answered[0]);
    if (!same) {
      failed = true;
      problems.push(`${size.triples} ${q.id}: row counts differ: ${ran.map((/** @type {any} */ e, i) => `${e.engine} ${counts[i] ?? 'error'}`).join(', ')}`);
    }
    countBody.push([`${q.n} ${q.id}`, ...counts.map((/** @type {number | undefined} */ c) => (c === undefined || c < 0 ? 'error' : String(c))), same ? 'equal' : 'DIFFER']);
  }
  lines.push('\nrows per query (checked equal across engines):\n');
  lines.push(markdownTable(countHead, countBody));
  const peers = ran.filter((/** @type {any} */ e) => e.engine !== 'ianode');
  const ianode = ran.find((/** @type {any} */ e) => e.engine === 'ianode');
  const head = ['query', 'clients', ...ran.flatMap((/** @type {any} */ e) => [`${e.engine} q/s`, 'p50 ms', 'p99 ms']), ...(ianode ? peers.map((/** @type {any} */ p) => `ianode/${p.engine} q/s`) : [])];
  /** @type {string[][]} */
  const body = [];
  for (const q of queries) {
    for (const [i, clients] of clientLevels.entries()) {
      const cells = ran.map((/** @type {any} */ e) => e.queries[q.id]?.cells?.[i]);
      const row = [i === 0 ? `${q.n} ${q.id}` : '', String(clients)];
      for (const c of cells) row.push(c ? fmt(c.qps, 2) : 'error', c ? fmt(c.p50) : '—', c ? fmt(c.p99) : '—');
      if (ianode) {
        const mine = ianode.queries[q.id]?.cells?.[i];
        for (const p of peers) {
          const theirs = p.queries[q.id]?.cells?.[i];
          row.push(mine && theirs && theirs.qps > 0 ? fmt(mine.qps / theirs.qps, 2) : '—');
        }
      }
      body.push(row);
    }
  }
  lines.push(`\nthroughput and latency (${seconds} s per cell, closed loop; p50/p99 over the cell's answers):\n`);
  lines.push(markdownTable(head, body));
  if (ianode && clientLevels.length > 1) {
    const one = clientLevels.indexOf(1);
    const scaleHead = ['query', ...clientLevels.map((c) => `${c} client${c === 1 ? '' : 's'} q/s`), ...clientLevels.filter((c) => c !== 1).map((c) => `${c}/1`)];
    /** @type {string[][]} */
    const scaleBody = [];
    for (const q of queries) {
      const cells = ianode.queries[q.id]?.cells ?? [];
      const base = one >= 0 ? cells[one]?.qps : undefined;
      scaleBody.push([`${q.n} ${q.id}`, ...cells.map((/** @type {any} */ c) => fmt(c?.qps, 2)),
        ...clientLevels.map((c, i) => [c, i]).filter(([c]) => c !== 1).map(([, i]) => (base ? fmt(cells[/** @type {number} */ (i)]?.qps / base, 2) : '—'))]);
    }
    lines.push(`\nianode scaling (q/s at n clients / q/s at 1 client, ${m.cores} cores):\n`);
    lines.push(markdownTable(scaleHead, scaleBody));
  }
  // Issue 14's goals, side by side with the figures (reported, never an exit status).
  const virtuoso = peers.find((/** @type {any} */ p) => p.engine === 'virtuoso');
  const top = clientLevels.indexOf(Math.max(...clientLevels));
  const one = clientLevels.indexOf(1);
  if (ianode && top >= 0) {
    /** @type {string[][]} */
    const goalBody = [];
    for (const q of queries) {
      const mine = ianode.queries[q.id]?.cells ?? [];
      const theirs = virtuoso?.queries[q.id]?.cells?.[top];
      const vs = mine[top] && theirs?.qps > 0 ? mine[top].qps / theirs.qps : undefined;
      const scale = one >= 0 && mine[top] && mine[one]?.qps > 0 ? mine[top].qps / mine[one].qps : undefined;
      goalBody.push([`${q.n} ${q.id}`, vs === undefined ? '—' : `${fmt(vs, 2)} ${vs >= 1.5 ? 'met' : 'not met'}`, scale === undefined ? '—' : `${fmt(scale, 2)} ${scale >= 1.7 ? 'met' : 'not met'}`]);
    }
    lines.push(`\nagainst the goals of issue 14 (reported, not judged):\n`);
    lines.push(markdownTable(['query', `ianode/virtuoso q/s at ${clientLevels[top]} clients (goal ≥ 1.5)`, `ianode ${clientLevels[top]}/1 clients (goal ≥ 1.7 for CPU-bound)`], goalBody));
  }
  size.text = lines.join('\n');
  log(size.text);
}

/** @param {any} iso */
function isolationText(iso) {
  const lines = [`\n### isolation (${iso.triples.toLocaleString('en-US')} triples, ${iso.isoSeconds} s per phase; probes: a GET /$/ping started every 20 ms whether or not the earlier ones answered; InitiateAuth sign-ins one after the other, 100 ms apart)\n`];
  lines.push(markdownTable(['while', '/$/ping p50 ms', '/$/ping p99 ms', '/$/ping max ms', 'pings', 'sign-in p50 ms', 'sign-in p99 ms', 'sign-ins', 'background answers', 'load 1 min'],
    iso.phases.map((/** @type {any} */ p) => [p.phase, fmt(p.ping.p50), fmt(p.ping.p99), fmt(p.ping.max), String(p.ping.n), fmt(p.signin.p50), fmt(p.signin.p99), String(p.signin.n),
      Object.entries(p.background.statuses).map(([s, n]) => `${s}×${n}`).join(' ') || '—', String(p.loadAverage[0])])));
  lines.push(`\ndeadline → end of the query (QUERY_TIMEOUT_MS=${iso.deadlineMs}; the 503's arrival minus the request's start minus the limit):\n`);
  lines.push(markdownTable(['query', 'p50 ms', 'max ms', 'cancelled runs', 'statuses'],
    iso.deadline.map((/** @type {any} */ d) => [d.query, fmt(d.p50), fmt(d.max), String(d.n), Object.entries(d.statuses).map(([s, n]) => `${s}×${n}`).join(' ')])));
  lines.push(`\nlong query: \`${LONG_QUERY}\`; attack: \`${NESTED_ATTACK.slice(0, 40)}…\` (${NESTED_ATTACK.length} B) and REGEX \`^(a+)+$\` over every literal + 3,000 characters (${REGEX_ATTACK.length} B)`);
  return lines.join('\n');
}

