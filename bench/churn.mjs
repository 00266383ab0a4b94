/**
 * Churn benchmark (issue 12): memory and disk must follow the live data. A durable store is loaded
 * with N triples in four label slices (one N-Triples load per label), then every round deletes all
 * of them (one transaction) and adds them again with their labels (another transaction), with
 * compaction on (the store's defaults). Reported:
 * RSS after a full GC and the p50 of a fixed query (through an ABAC view; its answer count is
 * checked on every run) before and after the rounds, and the RSS and disk size of a fresh load of
 * the same live data in another process. Not a test of speed: it fails (exit 1) only when a count
 * is wrong or RSS_after / RSS_fresh > 1.3.
 *
 *   npm run bench:churn -- [--triples 50k] [--rounds 300] [--seed 42] [--queries 30] [--fsync true]
 *                          [--compact true] [--malloc tuned|default]
 *
 * Each measurement runs in its own process (`--role churn|fresh`, started with --expose-gc), so
 * the two RSS figures are comparable and neither inherits the other's heap.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { parseArgs, parseCount } from './lib/args.mjs';
import { createRandom } from './lib/random.mjs';
import { machine, median } from './lib/report.mjs';

const args = parseArgs(process.argv.slice(2), {
  triples: '50k', rounds: 300, seed: 42, queries: 30, fsync: 'true', compact: 'true', malloc: 'tuned', role: 'main',
});
const triples = parseCount(args.triples);
const rounds = Number(args.rounds);
const seed = Number(args.seed);
const queries = Number(args.queries);
const fsync = String(args.fsync) !== 'false';
/** `--compact false`: automatic compaction off (to see what it saves); the default is on. */
const compact = String(args.compact) !== 'false';
/**
 * glibc's malloc raises its mmap threshold to the size of each large block freed (up to 32 MiB),
 * after which freed array buffers of up to that size stay in its heap instead of going back to
 * the system: after churn the process keeps tens of MiB that neither the JS heap nor the array
 * buffers account for. `tuned` (the default, as scripts/start.mjs runs the server) fixes the
 * threshold at 128 KiB for both children; `default` leaves glibc as it is, to see the difference.
 */
const MALLOC_ENV = args.malloc === 'default' ? {} : { MALLOC_MMAP_THRESHOLD_: '131072' };
if (args.malloc !== 'default' && args.malloc !== 'tuned') throw new TypeError('--malloc is tuned or default');
const MAX_RATIO = 1.3;

/** Label of each slice (entity k is in slice k % 4); the query's view hides the last one. */
const LABELS = ['employee', 'a & b', '*', 'clearance=S'];
const visible = (/** @type {string} */ label) => label !== 'clearance=S';
const PER_ENTITY = 5;
const CLASSES = 10;

/**
 * The data: entities of five triples each (class, name, number, link to another entity, word),
 * as key quads and as N-Triples per slice, and the expected answer count of the query.
 */
function makeData() {
  const rnd = createRandom(seed);
  const entities = Math.ceil(triples / PER_ENTITY);
  const link = Array.from({ length: entities }, () => rnd.int(0, entities - 1));
  /** @type {{ s: string, p: string, o: string, g: string, label: string }[]} */
  const quads = [];
  /** @type {string[][]} */
  const slices = LABELS.map(() => []);
  const e = (/** @type {number} */ k) => `http://ex/e${k}`;
  for (let k = 0; k < entities && quads.length < triples; k++) {
    const rows = [
      ['http://ex/p0', `<http://ex/C${k % CLASSES}>`, `<http://ex/C${k % CLASSES}`],
      ['http://ex/p1', `"name ${k}"`, `"name ${k}"`],
      ['http://ex/p2', `"${rnd.int(0, 1e6)}"`, null],
      ['http://ex/p3', `<${e(link[k])}>`, `<${e(link[k])}`],
      ['http://ex/p4', `"word${rnd.int(0, 999)}"`, null],
    ];
    for (const [p, nt, key] of rows) {
      if (quads.length === triples) break;
      const o = key ?? /** @type {string} */ (nt);
      quads.push({ s: `<${e(k)}`, p: `<${p}`, o, g: '', label: /** @type {string} */ (LABELS[k % LABELS.length]) });
      /** @type {string[]} */ (slices[k % LABELS.length]).push(`<${e(k)}> <${p}> ${nt} .`);
    }
  }
  // Query: entities of class C3 (visible) linking to a visible entity that has a name.
  const has = (/** @type {number} */ k, /** @type {number} */ p) => k * PER_ENTITY + p < triples;
  const seen = (/** @type {number} */ k) => visible(/** @type {string} */ (LABELS[k % LABELS.length]));
  let expected = 0;
  for (let k = 3; has(k, 3); k += CLASSES) {
    const b = /** @type {number} */ (link[k]);
    if (seen(k) && seen(b) && has(b, 1)) expected++;
  }
  return { quads, slices: slices.map((lines) => lines.join('\n') + '\n'), expected };
}

const QUERY = `SELECT ?a ?name WHERE {
  ?a <http://ex/p0> <http://ex/C3> .
  ?a <http://ex/p3> ?b .
  ?b <http://ex/p1> ?name .
}`;

const mib = (/** @type {number} */ bytes) => bytes / 2 ** 20;

function dirBytes(/** @type {string} */ dir) {
  return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

/** Child: one store in a temp folder; prints one JSON line per measurement. */
async function child(/** @type {'churn' | 'fresh'} */ role) {
  const { openStore } = await import('@ianode/store');
  const { executeQuery } = await import('@ianode/sparql');
  const gc = /** @type {() => void} */ (globalThis.gc);
  if (typeof gc !== 'function') throw new Error('run with --expose-gc');
  const emit = (/** @type {Record<string, unknown>} */ r) => process.stdout.write(JSON.stringify(r) + '\n');
  const { quads, slices, expected } = makeData();
  const dir = mkdtempSync(join(tmpdir(), `ianode-churn-${role}-`));
  let wrong = 0;
  try {
    const store = await openStore({ dir, fsync, ...(compact ? {} : { compactDeletedFraction: 2 }) });
    const load = async () => {
      for (let i = 0; i < LABELS.length; i++) {
        await store.load(/** @type {string} */ (slices[i]), { format: 'application/n-triples', label: LABELS[i] });
      }
      if (store.stats().quads !== triples) {
        wrong++;
        emit({ event: 'wrong', what: 'quads after load', expected: triples, got: store.stats().quads });
      }
    };
    const measure = async (/** @type {string} */ when) => {
      /** @type {number[]} */
      const times = [];
      for (let i = 0; i < queries; i++) {
        const t0 = performance.now();
        const result = executeQuery(store.view(visible), QUERY, {});
        let n = 0;
        if (result.type !== 'bindings') throw new Error('expected bindings');
        for (const _ of result.solutions) n++;
        times.push(performance.now() - t0);
        if (n !== expected) {
          wrong++;
          emit({ event: 'wrong', what: `query answers (${when})`, expected, got: n });
        }
      }
      gc();
      await new Promise((resolve) => setTimeout(resolve, 50));
      gc();
      const stats = store.stats();
      const mem = process.memoryUsage();
      emit({
        event: 'measure', when, rss: mem.rss, heapTotal: mem.heapTotal, heapUsed: mem.heapUsed, arrayBuffers: mem.arrayBuffers, p50: median(times), quads: stats.quads, rows: stats.rows,
        deletedRows: stats.deletedRows, compactions: stats.compactions, terms: stats.terms, diskBytes: dirBytes(dir), loadavg: loadavg(),
      });
    };
    await load();
    await measure('loaded');
    if (role === 'churn') {
      const t0 = performance.now();
      for (let r = 1; r <= rounds; r++) {
        await store.transaction((tx) => {
          for (const q of quads) tx.delete(q);
        });
        if (store.stats().quads !== 0) {
          wrong++;
          emit({ event: 'wrong', what: `quads after delete, round ${r}`, expected: 0, got: store.stats().quads });
        }
        await store.transaction((tx) => {
          for (const q of quads) tx.add(q, q.label);
        });
        if (store.stats().quads !== triples) {
          wrong++;
          emit({ event: 'wrong', what: `quads after adding again, round ${r}`, expected: triples, got: store.stats().quads });
        }
        if (r % 25 === 0) emit({ event: 'progress', round: r, seconds: (performance.now() - t0) / 1000, rss: process.memoryUsage().rss });
      }
      await measure('churned');
    }
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  emit({ event: 'done', wrong });
}

/** Parent: run the two children, report, and judge. */
async function main() {
  const script = fileURLToPath(import.meta.url);
  const run = (/** @type {string} */ role) =>
    new Promise((resolve, reject) => {
      const argv = ['--expose-gc', script, '--role', role, '--triples', String(triples), '--rounds', String(rounds),
        '--seed', String(seed), '--queries', String(queries), '--fsync', String(fsync), '--compact', String(compact)];
      const p = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...MALLOC_ENV } });
      /** @type {Record<string, any>[]} */
      const events = [];
      let buf = '';
      p.stdout.on('data', (chunk) => {
        buf += chunk;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          const ev = JSON.parse(line);
          if (ev.event === 'progress') {
            process.stderr.write(`  round ${ev.round}: ${ev.seconds.toFixed(1)} s, RSS ${mib(ev.rss).toFixed(0)} MiB\n`);
          }
          events.push(ev);
        }
      });
      p.on('error', reject);
      p.on('close', (code) => (code === 0 ? resolve(events) : reject(new Error(`${role} child exited with ${code}`))));
    });

  const host = machine();
  console.log(`# churn: ${triples.toLocaleString('en-US')} triples in ${LABELS.length} label slices, deleted and added again ${rounds} times; seed ${seed}, fsync ${fsync}, compaction ${compact ? 'on' : 'off'}`);
  console.log(`# malloc: ${args.malloc === 'default' ? 'glibc defaults' : 'MALLOC_MMAP_THRESHOLD_=131072'} in both children`);
  console.log(`# ${host.cpu}, ${host.cores} cores, ${(host.memoryBytes / 2 ** 30).toFixed(1)} GiB, ${host.os}, node ${host.node}`);
  console.log(`# load average at start: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const t0 = performance.now();
  const churn = /** @type {Record<string, any>[]} */ (await run('churn'));
  const churnSeconds = (performance.now() - t0) / 1000;
  const fresh = /** @type {Record<string, any>[]} */ (await run('fresh'));
  const find = (/** @type {Record<string, any>[]} */ evs, /** @type {string} */ when) => evs.find((e) => e.event === 'measure' && e.when === when);
  const before = find(churn, 'loaded');
  const after = find(churn, 'churned');
  const freshM = find(fresh, 'loaded');
  const wrong = [...churn, ...fresh].filter((e) => e.event === 'wrong');
  const done = [...churn, ...fresh].filter((e) => e.event === 'done');
  if (!before || !after || !freshM || done.length !== 2) throw new Error('a child did not report its measurements');

  const row = (/** @type {string} */ name, /** @type {Record<string, any>} */ m) =>
    `| ${name} | ${mib(m.rss).toFixed(0)} | ${mib(m.heapTotal).toFixed(0)} / ${mib(m.heapUsed).toFixed(0)} | ${mib(m.arrayBuffers).toFixed(0)} | ${m.p50.toFixed(2)} | ${m.quads} | ${m.rows} | ${m.deletedRows} | ${m.compactions} | ${mib(m.diskBytes).toFixed(1)} |`;
  console.log('');
  console.log('| state | RSS MiB | JS heap total / used MiB | array buffers MiB | query p50 ms | quads | rows | dead rows | compactions | disk MiB |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  console.log(row('loaded', before));
  console.log(row(`after ${rounds} rounds`, after));
  console.log(row('fresh load (other process)', freshM));
  const ratio = after.rss / freshM.rss;
  console.log('');
  console.log(`churn process: ${churnSeconds.toFixed(1)} s; RSS after / fresh = ${ratio.toFixed(2)} (limit ${MAX_RATIO}); ` +
    `p50 after / before = ${(after.p50 / before.p50).toFixed(2)}`);
  console.log(`# load average at end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  for (const w of wrong) console.log(`WRONG: ${w.what}: expected ${w.expected}, got ${w.got}`);
  if (wrong.length > 0 || ratio > MAX_RATIO) process.exitCode = 1;
}

if (args.role === 'main') await main();
else if (args.role === 'churn' || args.role === 'fresh') await child(args.role);
else throw new TypeError(`unknown --role ${args.role}`);
