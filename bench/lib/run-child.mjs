/**
 * Spawn child.mjs for one engine and collect its measurement, or the reason it has none (crash,
 * out of memory, timeout, unavailable, wrong count).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./child.mjs', import.meta.url));

/**
 * @typedef {object} LoadMeasurement
 * @property {string} engine
 * @property {number} triples
 * @property {number} [quads] quads in the store after the load
 * @property {number} [seconds] from the first read to the end of the load
 * @property {number} [triplesPerSecond]
 * @property {number} [rssBytes] resident memory after the load (and a full GC) minus before
 * @property {number} [bytesPerQuad] rssBytes / quads
 * @property {number} [heapBytes] same delta of V8 heapUsed + arrayBuffers
 * @property {number} [heapBytesPerQuad]
 * @property {number} [peakRssBytes] the process's maximum resident set size
 * @property {Record<string, unknown>} [info]
 * @property {string} [error] the run failed (crash, out of memory, timeout, wrong count)
 * @property {boolean} [countMismatch] the engine loaded, but not `triples` quads
 * @property {string} [unavailable] the engine is not installed or built
 */

/**
 * @param {{ engine: string, file: string, triples: number, timeoutSeconds: number, heapMiB: number }} options
 * @returns {Promise<LoadMeasurement>}
 */
export async function runChild({ engine, file, triples, timeoutSeconds, heapMiB }) {
  let stdout = '';
  const { code, signal, timedOut, stderr } = await spawnNode(
    [`--max-old-space-size=${heapMiB}`, '--expose-gc', CHILD, engine, file, String(triples)],
    timeoutSeconds,
    (d) => { stdout += d; },
  );
  const line = stdout.trim().split('\n').pop() ?? '';
  /** @type {LoadMeasurement | undefined} */
  let parsed;
  try {
    parsed = JSON.parse(line);
  } catch {
    parsed = undefined;
  }
  if (parsed && code === 0) return parsed;
  if (parsed && code === 2) return { ...parsed, countMismatch: true };
  if (parsed && code === 3) return parsed;
  return { engine, triples, error: failureReason({ code, signal, timedOut, timeoutSeconds, stderr, parsed }) };
}

/**
 * A Node child process with `args`, its stdout handed to `onStdout` as it comes, killed (SIGKILL)
 * after `timeoutSeconds`. Resolves when it has closed, with the last 8 KiB of its stderr.
 * @param {string[]} args
 * @param {number} timeoutSeconds
 * @param {(chunk: string) => void} onStdout
 * @returns {Promise<{ code: number | null, signal: NodeJS.Signals | null, timedOut: boolean, stderr: string }>}
 */
export function spawnNode(args, timeoutSeconds, onStdout) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', onStdout);
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr = (stderr + d).slice(-8192); });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutSeconds * 1000);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, stderr });
    });
  });
}

/** stderr lines of V8 heap exhaustion, failed buffer allocations and WASM memory limits. */
const OOM = /heap out of memory|allocation failed|array buffer allocation|out of memory|memory access out of bounds|could not allocate/i;

/**
 * @param {{ code: number | null, signal: string | null, timedOut: boolean, timeoutSeconds: number,
 *   stderr: string, parsed: LoadMeasurement | undefined }} exit
 */
export function failureReason({ code, signal, timedOut, timeoutSeconds, stderr, parsed }) {
  if (timedOut) return `timed out after ${timeoutSeconds} s`;
  const oom = stderr.split('\n').find((l) => OOM.test(l));
  if (oom) return `out of memory (${signal ?? `exit ${code}`}): ${oom.trim().slice(0, 300)}`;
  if (signal === 'SIGKILL') return 'killed (SIGKILL: likely the kernel OOM killer)';
  if (parsed?.error) return parsed.error;
  return `crashed (${signal ?? `exit ${code}`}): ${lastLine(stderr) || 'no output'}`;
}

/** @param {string} text */
function lastLine(text) {
  return text.trim().split('\n').filter((l) => l.trim() !== '').slice(-1)[0]?.trim().slice(0, 300) ?? '';
}
