/**
 * One engine in a fresh process: load the data once, then for each query warm-up runs (the first
 * one's answer is counted and digested, see results.mjs) and timed runs: at least `runs`, going on
 * until `timedMs` have been spent (at most MAX_TIMED), so a sub-millisecond query's median is
 * taken over hundreds of runs rather than five.
 *
 * Warm-up is at least `warmup` runs and goes on until `warmupMs` have been spent (at most
 * MAX_WARMUP runs): ianode and Comunica are JavaScript, and V8 optimises a function only after
 * many calls, so a single warm-up measures the interpreter for short queries (a 10 ms query was
 * 40–90 ms for its first ~10 runs; a 0.05 ms lookup needs some thousand calls, which the old cap
 * of 50 warm-up runs cut short). Oxigraph is WebAssembly, compiled before its first run. The same
 * rule applies to every engine.
 *   node --expose-gc query-child.mjs '<json config>'
 * Prints one JSON line per event on stdout, so the parent keeps what was measured even when a
 * later query crashes the process:
 *   { event: 'load', quads, seconds, info }
 *   { event: 'query', id, count, digest, sample, times: [ms...], median } | { ..., timeout } | { ..., error }
 *   { event: 'done' }
 * Exit codes: 0 done, 3 engine unavailable, 1 anything else.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { EngineUnavailable } from './engines/unavailable.mjs';
import { QueryTimeout } from './query-engines/engine.mjs';
import { Digest } from './results.mjs';
import { median } from './report.mjs';

/**
 * @typedef {object} ChildConfig
 * @property {string} engine
 * @property {import('./query-engines/engine.mjs').QueryEngineConfig} data
 * @property {import('./queries.mjs').BenchQuery[]} queries
 * @property {number} runs minimum timed runs per query
 * @property {number} timedMs time runs until this much time has been spent (within MAX_TIMED runs)
 * @property {number} timeoutMs per run
 * @property {number} warmup minimum warm-up runs
 * @property {number} warmupMs warm up until this much time has been spent (within MAX_WARMUP runs)
 * @property {number} slowMs a query whose first run took longer gets no further warm-up and one
 *   timed run only
 */

const MAX_WARMUP = 2000;
const MAX_TIMED = 2000;

/** @param {Record<string, unknown>} record */
const emit = (record) => process.stdout.write(JSON.stringify(record) + '\n');

/**
 * Let the event loop turn between runs, as it does between a server's requests. Oxigraph's result
 * terms are WebAssembly objects freed by a FinalizationRegistry, whose callbacks run only as
 * tasks: in a loop of back-to-back runs (microtasks only) they never ran, WASM memory grew, and
 * Oxigraph's times rose 10-20x after some 30 queries (star join 40 ms -> 300-1100 ms).
 */
const settle = () => setImmediate();

function collect() {
  const gc = /** @type {(() => void) | undefined} */ (globalThis.gc);
  if (gc) gc();
}

async function main() {
  /** @type {ChildConfig} */
  const config = JSON.parse(process.argv[2] ?? '');
  const { open } = await import(`./query-engines/${config.engine}.mjs`);
  /** @type {import('./query-engines/engine.mjs').QueryEngine} */
  const engine = await open(config.data);
  let started = performance.now();
  const { quads } = await engine.load();
  const seconds = (performance.now() - started) / 1000;
  collect();
  emit({ event: 'load', quads, seconds, rssBytes: process.memoryUsage().rss, info: engine.info() });

  for (const q of config.queries) {
    const base = { event: 'query', id: q.id };
    collect();
    const digest = new Digest(q.ordered === true);
    /** @type {number} */
    let count;
    started = performance.now();
    try {
      count = await engine.run(q.text, { timeoutMs: config.timeoutMs, digest });
    } catch (err) {
      if (err instanceof QueryTimeout) emit({ ...base, timeout: err.message });
      else emit({ ...base, error: String(/** @type {Error} */ (err)?.stack ?? err).slice(0, 2000) });
      continue;
    }
    const firstMs = performance.now() - started;
    await settle();
    const { digest: hash, sample } = digest.digest();
    const slow = firstMs > config.slowMs;
    const runs = slow ? 1 : config.runs;
    /** @type {string | undefined} */
    let failure;
    let warmups = 1;
    let warmupMs = firstMs;
    while (!slow && warmups < MAX_WARMUP && (warmups < config.warmup || warmupMs < config.warmupMs)) {
      started = performance.now();
      try {
        const n = await engine.run(q.text, { timeoutMs: config.timeoutMs });
        if (n !== count) failure = `warm-up run ${warmups + 1} returned ${n} results, the first run ${count}`;
      } catch (err) {
        failure = err instanceof QueryTimeout ? err.message : String(/** @type {Error} */ (err)?.message ?? err);
        break;
      }
      warmups++;
      warmupMs += performance.now() - started;
      await settle();
    }
    /** @type {number[]} */
    const times = [];
    let timedMs = 0;
    for (let r = 0; (r < runs || (!slow && timedMs < config.timedMs && r < MAX_TIMED)) && failure === undefined; r++) {
      started = performance.now();
      try {
        const n = await engine.run(q.text, { timeoutMs: config.timeoutMs });
        if (n !== count) failure = `run ${r + 1} returned ${n} results, the warm-up ${count}`;
      } catch (err) {
        failure = err instanceof QueryTimeout ? err.message : String(/** @type {Error} */ (err)?.message ?? err);
        break;
      }
      times.push(performance.now() - started);
      timedMs += times[times.length - 1];
      await settle();
    }
    emit({
      ...base, count, digest: hash, sample, firstMs, warmups, warmupMs, times, loadavg1: loadavg()[0],
      median: times.length > 0 ? median(times) : undefined,
      ...(failure ? { error: failure } : {}),
    });
  }
  await engine.close();
  emit({ event: 'done' });
}

main().catch((err) => {
  if (err instanceof EngineUnavailable) {
    emit({ event: 'unavailable', reason: err.message });
    process.exitCode = 3;
  } else {
    process.stderr.write(`${err?.stack ?? err}\n`);
    emit({ event: 'fatal', error: String(err?.message ?? err) });
    process.exitCode = 1;
  }
});
