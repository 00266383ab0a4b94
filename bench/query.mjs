/**
 * Query benchmark: the same BSBM-like data and query mix (lib/queries.mjs) on ianode (with and
 * without access control) and on peers, one process per engine. Reports median milliseconds per
 * query, ratios and the machine. Not a test: nothing passes or fails on time; it fails only when
 * engines disagree on an answer, or when ianode cannot answer.
 *
 *   npm run bench:query -- --triples 1000000 [--seed 42] [--runs 5] [--queries all|1,2,path]
 *                          [--engines ianode,ianode-abac,oxigraph,comunica] [--json]
 *                          [--warmup 3] [--warmup-ms 1000] [--timed-ms 250] [--timeout 120] [--slow 30]
 *                          [--engine-timeout 10800] [--heap 16384]
 */
import { writeFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parseArgs, parseCount } from './lib/args.mjs';
import { ensureBsbmFile } from './lib/bsbm.mjs';
import { bsbmQueries, selectQueries } from './lib/queries.mjs';
import { ensureSlices, sliceOf } from './lib/slices.mjs';
import { CHECK_ENGINES, QUERY_ENGINES } from './lib/query-engines/engine.mjs';
import { runQueryChild } from './lib/run-query-child.mjs';
import { machine, markdownTable, versionOf } from './lib/report.mjs';

const OUT = fileURLToPath(new URL('./out/', import.meta.url));
const log = (/** @type {string} */ msg) => process.stderr.write(msg + '\n');

/** Label slices of the data; the ABAC caller holds the attributes of the even ones. */
const SLICES = 10;
const ATTRIBUTES = ['l0', 'l2', 'l4', 'l6', 'l8'];
const PEERS = ['oxigraph', 'comunica'];

const args = parseArgs(process.argv.slice(2), {
  triples: '1000000', seed: 42, runs: 0, engines: QUERY_ENGINES.join(','), queries: 'all', json: false,
  warmup: 3, 'warmup-ms': 1000, 'timed-ms': 250, timeout: 120, slow: 30, 'engine-timeout': 10800, heap: 16384,
});
const triples = parseCount(args.triples);
const seed = Number(args.seed);
const runs = Number(args.runs) || (triples <= 1_000_000 ? 5 : 3);
const engines = String(args.engines).split(',').map((e) => e.trim()).filter(Boolean);
for (const e of engines) if (!QUERY_ENGINES.includes(e)) throw new TypeError(`unknown engine ${e} (known: ${QUERY_ENGINES.join(', ')})`);
const visible = (/** @type {string} */ subject) => ATTRIBUTES.includes(`l${sliceOf(subject, SLICES)}`);
const queries = selectQueries(bsbmQueries({ triples, seed, visible }), String(args.queries));

const host = machine();
const versions = {
  oxigraph: versionOf('oxigraph'), comunica: versionOf('@comunica/query-sparql-rdfjs'), n3: versionOf('n3'), sparqljs: versionOf('sparqljs'),
};
console.log(`# SPARQL queries, BSBM-like N-Triples, ${triples.toLocaleString('en-US')} triples, seed ${seed}`);
console.log(`# ${host.cpu}, ${host.cores} cores, ${(host.memoryBytes / 2 ** 30).toFixed(1)} GiB, ${host.os}, node ${host.node}`);
console.log(`# oxigraph ${versions.oxigraph}, @comunica/query-sparql-rdfjs ${versions.comunica} over n3 ${versions.n3} Store; ` +
  `median of >= ${runs} timed run(s) and >= ${args['timed-ms']} ms of them, after >= ${args.warmup} warm-up runs and >= ${args['warmup-ms']} ms of warm-up ` +
  `(one of each for queries slower than ${args.slow} s), one process per engine, per-query timeout ${args.timeout} s`);
if (engines.includes('ianode-abac')) {
  console.log(`# ianode-abac: ${SLICES} label slices l0..l${SLICES - 1} (by subject), caller attributes ${ATTRIBUTES.join(',')}; ` +
    'checked against ianode-filtered (a plain store holding only those slices)');
}

const data = await ensureBsbmFile({ triples, seed, dir: OUT, log });
log(`data: ${data.file} (${(data.bytes / 2 ** 20).toFixed(1)} MiB${data.cached ? ', cached' : ''})`);
const slices = engines.includes('ianode-abac') ? (await ensureSlices({ file: data.file, count: SLICES, log })).files : [];

/** Engines to run: the selected ones, each followed by its check engine. */
const toRun = engines.flatMap((e) => (e in CHECK_ENGINES ? [e, /** @type {Record<string, string>} */ (CHECK_ENGINES)[e] ?? e] : [e]));
/** @type {Map<string, import('./lib/run-query-child.mjs').EngineRun>} */
const results = new Map();
for (const engine of toRun) {
  const config = {
    engine,
    data: { file: data.file, slices, attributes: ATTRIBUTES },
    queries,
    runs,
    warmup: Number(args.warmup),
    warmupMs: Number(args['warmup-ms']),
    timedMs: Number(args['timed-ms']),
    timeoutMs: Number(args.timeout) * 1000,
    slowMs: Number(args.slow) * 1000,
  };
  log(`${engine}: starting`);
  const r = await runQueryChild({ config, heapMiB: Number(args.heap), timeoutSeconds: Number(args['engine-timeout']), log });
  if (r.unavailable) log(`${engine}: unavailable: ${r.unavailable}`);
  if (r.failure) log(`${engine}: FAILED: ${r.failure}`);
  results.set(engine, r);
}

// ---- answers: every engine over the whole data must agree; ianode-abac must agree with its check.

/** @type {string[]} */
const problems = [];
/** @param {string} engine @param {string} id */
const measurement = (engine, id) => results.get(engine)?.queries.get(id);
/** @param {string[]} group @param {string} label */
function compare(group, label) {
  for (const q of queries) {
    const answered = group.map((e) => [e, measurement(e, q.id)]).filter(([, m]) => m && typeof m === 'object' && m.count !== undefined);
    if (answered.length < 2) continue;
    const counts = new Set(answered.map(([, m]) => /** @type {any} */ (m).count));
    const digests = new Set(answered.map(([, m]) => /** @type {any} */ (m).digest));
    const list = answered.map(([e, m]) => `${e}=${/** @type {any} */ (m).count}`).join(', ');
    if (counts.size > 1) {
      problems.push(`RESULT COUNT MISMATCH (${label}) on ${q.n} ${q.id}: ${list}`);
    } else if (digests.size > 1) {
      const detail = answered.map(([e, m]) => `${e}=${/** @type {any} */ (m).digest} [${/** @type {any} */ (m).sample.join(' | ')}]`).join('; ');
      problems.push(`RESULT CONTENT MISMATCH (${label}) on ${q.n} ${q.id} (counts agree: ${list}): ${detail}`);
    }
  }
}
compare(engines.filter((e) => e !== 'ianode-abac'), 'all data');
if (engines.includes('ianode-abac')) compare(['ianode-abac', 'ianode-filtered'], 'ianode-abac vs the visible slices');

// ---- report

/** @param {number | undefined} ms */
const fmtMs = (ms) => (ms === undefined ? '' : ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0));
/** @param {string} engine @param {string} id */
function cell(engine, id) {
  const r = results.get(engine);
  if (!r) return '';
  if (r.unavailable) return 'n/a';
  const m = r.queries.get(id);
  if (!m) return r.failure ? 'crashed' : '';
  if (m.timeout) return 'timeout';
  if (m.median === undefined) return 'error';
  return fmtMs(m.median) + (m.error ? '!' : '');
}
/** @param {string} engine @param {string} id */
const med = (engine, id) => measurement(engine, id)?.median;

console.log('');
/** The highest 1-minute load average seen after a query of `engine` (other work on the machine). */
const busiest = (/** @type {string} */ e) => Math.max(0, ...[...(results.get(e)?.queries.values() ?? [])].map((m) => m.loadavg1 ?? 0));
const loadRows = toRun.map((e) => {
  const r = results.get(e);
  return [e, r?.load ? r.load.quads.toLocaleString('en-US') : r?.unavailable ? 'n/a' : 'failed',
    r?.load ? r.load.seconds.toFixed(1) : '', r?.load ? (r.load.rssBytes / 2 ** 20).toFixed(0) : '', busiest(e).toFixed(1)];
});
console.log(markdownTable(['engine', 'quads loaded', 'load s (not in query times)', 'RSS MiB after load', 'max load avg'], loadRows));
if (toRun.some((e) => busiest(e) > host.cores)) {
  console.log(`# the machine was busy (1-minute load average above ${host.cores}, the number of cores): ` +
    'other processes shared the CPU, so these times are inflated; rerun on a quiet machine');
}
console.log('');

const shown = engines;
const withAbac = engines.includes('ianode-abac');
const head = ['query', 'rows', ...shown.map((e) => `${e} ms`), 'fastest peer / ianode', ...(withAbac ? ['abac overhead %'] : [])];
const body = queries.map((q) => {
  const rowsCell = (() => {
    const m = ['ianode', 'oxigraph', 'comunica'].map((e) => measurement(e, q.id)).find((x) => x?.count !== undefined);
    const a = measurement('ianode-abac', q.id);
    return [m?.count, a?.count !== undefined ? `(abac ${a.count})` : undefined].filter((x) => x !== undefined).join(' ');
  })();
  const ianode = med('ianode', q.id);
  const peers = PEERS.map((p) => med(p, q.id)).filter((x) => x !== undefined);
  const fastest = peers.length > 0 ? Math.min(.../** @type {number[]} */ (peers)) : undefined;
  const abac = med('ianode-abac', q.id);
  return [
    `${q.n} ${q.title}`,
    rowsCell,
    ...shown.map((e) => cell(e, q.id)),
    ianode && fastest !== undefined ? (fastest / ianode).toFixed(2) : '',
    ...(withAbac ? [ianode && abac !== undefined ? `${((abac / ianode - 1) * 100).toFixed(0)}` : ''] : []),
  ];
});
console.log(markdownTable(head, body));
console.log('# fastest peer / ianode < 1: a peer is faster (0.5 = ianode takes twice as long).' + (withAbac
  ? ' abac overhead: ianode-abac (per-request view, half the quads visible) vs ianode (no view, all quads).' : ''));

if (withAbac) {
  console.log('');
  const abacBody = queries.map((q) => {
    const a = measurement('ianode-abac', q.id);
    const f = measurement('ianode-filtered', q.id);
    return [`${q.n} ${q.id}`, String(a?.count ?? ''), String(f?.count ?? ''), cell('ianode-abac', q.id), cell('ianode-filtered', q.id),
      a?.median !== undefined && f?.median ? `${((a.median / f.median - 1) * 100).toFixed(0)}` : ''];
  });
  console.log(markdownTable(['query', 'abac rows', 'filtered rows', 'ianode-abac ms', 'ianode-filtered ms', 'abac vs filtered %'], abacBody));
}

for (const [e, r] of results) {
  if (r.unavailable) console.log(`# ${e}: unavailable: ${r.unavailable}`);
  if (r.failure) console.log(`# ${e}: FAILED: ${r.failure}`);
  for (const m of r.queries.values()) {
    if (m.timeout) console.log(`# ${e} ${m.id}: ${m.timeout}`);
    else if (m.error) console.log(`# ${e} ${m.id}: ERROR: ${m.error.split('\n').slice(0, 3).join(' / ')}`);
  }
}
for (const p of problems) console.log(`# ${p}`);

if (args.json) {
  await mkdir(OUT, { recursive: true });
  const file = join(OUT, `query-${triples}.json`);
  const raw = Object.fromEntries([...results].map(([e, r]) => [e, { ...r, queries: Object.fromEntries(r.queries) }]));
  await writeFile(file, JSON.stringify({
    machine: host, versions, triples, seed, runs, timeoutSeconds: Number(args.timeout), data,
    abac: { slices: SLICES, attributes: ATTRIBUTES }, queries, problems, results: raw,
  }, null, 2) + '\n');
  log(`wrote ${file}`);
}

// Exit status reflects correctness only: engines disagreeing on an answer, or ianode failing.
const ianodeFailed = ['ianode', 'ianode-abac', 'ianode-filtered'].some((e) => {
  const r = results.get(e);
  if (!r) return false;
  return Boolean(r.failure || r.unavailable) || [...r.queries.values()].some((m) => m.error || m.timeout);
});
if (problems.length > 0 || ianodeFailed) process.exitCode = 1;
