/**
 * Spawn query-child.mjs for one engine, follow its JSON lines as they come (progress on stderr),
 * and turn a crash, out-of-memory or timeout into a failure that keeps what was measured before.
 */
import { fileURLToPath } from 'node:url';
import { failureReason, spawnNode } from './run-child.mjs';

const CHILD = fileURLToPath(new URL('./query-child.mjs', import.meta.url));

/**
 * @typedef {object} QueryMeasurement
 * @property {string} id
 * @property {number} [count] solutions / quads in the answer (from the warm-up run)
 * @property {string} [digest] hash of the answer's rows (results.mjs)
 * @property {string[]} [sample] the first canonical rows
 * @property {number} [warmupMs]
 * @property {number[]} [times] timed runs, ms
 * @property {number} [median] ms
 * @property {number} [loadavg1] the machine's 1-minute load average after the timed runs
 * @property {string} [timeout] the query hit the per-query timeout
 * @property {string} [error] the query failed
 *
 * @typedef {object} EngineRun
 * @property {string} engine
 * @property {{ quads: number, seconds: number, rssBytes: number, info: Record<string, unknown> }} [load]
 * @property {Map<string, QueryMeasurement>} queries
 * @property {string} [unavailable]
 * @property {string} [failure] the process ended before finishing (crash, OOM, timeout)
 */

/**
 * @param {{ config: import('./query-child.mjs').ChildConfig, heapMiB: number, timeoutSeconds: number,
 *   log: (msg: string) => void }} options
 * @returns {Promise<EngineRun>}
 */
export async function runQueryChild({ config, heapMiB, timeoutSeconds, log }) {
  const engine = config.engine;
  const args = [`--max-old-space-size=${heapMiB}`, '--expose-gc', CHILD, JSON.stringify(config)];
  /** @type {EngineRun} */
  const out = { engine, queries: new Map() };
  let done = false;
  let pending = '';
  /** @type {Record<string, unknown> | undefined} */
  let fatal;
  const onStdout = (/** @type {string} */ d) => {
    pending += d;
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      /** @type {any} */
      let rec;
      try {
        rec = JSON.parse(line);
      } catch {
        continue; // an engine printing to stdout
      }
      if (rec.event === 'load') {
        out.load = { quads: rec.quads, seconds: rec.seconds, rssBytes: rec.rssBytes, info: rec.info };
        log(`${engine}: loaded ${rec.quads.toLocaleString('en-US')} quads in ${rec.seconds.toFixed(1)} s`);
      } else if (rec.event === 'query') {
        const { event: _event, ...m } = rec;
        out.queries.set(rec.id, m);
        const what = m.timeout ? `timeout (${m.timeout})` : m.median !== undefined
          ? `${m.count} results, median ${m.median.toFixed(2)} ms of ${m.times.length}${m.error ? `; ${m.error}` : ''}`
          : `FAILED: ${String(m.error).split('\n')[0]}`;
        log(`${engine}: ${rec.id}: ${what}`);
      } else if (rec.event === 'unavailable') {
        out.unavailable = rec.reason;
      } else if (rec.event === 'fatal') {
        fatal = rec;
      } else if (rec.event === 'done') {
        done = true;
      }
    }
  };
  const { code, signal, timedOut, stderr } = await spawnNode(args, timeoutSeconds, onStdout);
  if (!done && !out.unavailable) {
    out.failure = failureReason({
      code, signal, timedOut, timeoutSeconds, stderr,
      parsed: fatal ? /** @type {any} */ ({ error: fatal.error }) : undefined,
    });
  }
  return out;
}
