/**
 * Medians over runs, the results table and the machine header.
 */
import { createRequire } from 'node:module';
import { cpus, totalmem, platform, release, arch } from 'node:os';

/** @param {number[]} values */
export function median(values) {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 ? /** @type {number} */ (v[mid]) : (/** @type {number} */ (v[mid - 1]) + /** @type {number} */ (v[mid])) / 2;
}

/** The installed version of an npm package (a peer engine), or 'not installed'. @param {string} pkg */
export function versionOf(pkg) {
  try {
    return createRequire(import.meta.url)(`${pkg}/package.json`).version;
  } catch {
    return 'not installed';
  }
}

/** Facts about the machine and runtime, printed above every result. */
export function machine() {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryBytes: totalmem(),
    os: `${platform()} ${release()} ${arch()}`,
    node: process.version,
  };
}

/**
 * @typedef {object} EngineSummary
 * @property {string} engine
 * @property {number} runs successful runs
 * @property {string[]} failures
 * @property {number} [seconds] medians from here on
 * @property {number} [triplesPerSecond]
 * @property {number} [rssBytes]
 * @property {number} [bytesPerQuad]
 * @property {number} [heapBytesPerQuad]
 * @property {number} [peakRssBytes]
 */

/**
 * @param {string} engine
 * @param {import('./run-child.mjs').LoadMeasurement[]} runs
 * @param {number} triples
 * @returns {EngineSummary}
 */
export function summarise(engine, runs, triples) {
  const ok = runs.filter((r) => !r.error && !r.unavailable && typeof r.seconds === 'number');
  const failures = runs.filter((r) => r.error || r.unavailable).map((r) => /** @type {string} */ (r.error ?? r.unavailable));
  if (ok.length === 0) return { engine, runs: 0, failures };
  /** @param {(r: import('./run-child.mjs').LoadMeasurement) => number | undefined} f */
  const m = (f) => median(ok.map((r) => /** @type {number} */ (f(r))));
  const seconds = m((r) => r.seconds);
  return {
    engine,
    runs: ok.length,
    failures,
    seconds,
    triplesPerSecond: triples / seconds,
    rssBytes: m((r) => r.rssBytes),
    bytesPerQuad: m((r) => r.bytesPerQuad),
    heapBytesPerQuad: m((r) => r.heapBytesPerQuad),
    peakRssBytes: m((r) => r.peakRssBytes),
  };
}

const MiB = 2 ** 20;

/**
 * @param {EngineSummary[]} rows
 * @returns {string}
 */
export function table(rows) {
  const head = ['engine', 'runs', 'seconds', 'triples/s', 'RSS MiB', 'B/quad (RSS)', 'B/quad (heap)', 'peak RSS MiB'];
  const body = rows.map((r) => r.runs === 0
    ? [r.engine, '0', ...head.slice(2).map(() => '—')]
    : [
      r.engine,
      String(r.runs),
      fixed(r.seconds, 2),
      Math.round(r.triplesPerSecond ?? 0).toLocaleString('en-US'),
      fixed((r.rssBytes ?? 0) / MiB, 0),
      fixed(r.bytesPerQuad, 0),
      fixed(r.heapBytesPerQuad, 0),
      fixed((r.peakRssBytes ?? 0) / MiB, 0),
    ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const fmt = (/** @type {string[]} */ cells) =>
    '| ' + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ') + ' |';
  const rule = '|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|';
  return [fmt(head), rule, ...body.map(fmt)].join('\n');
}

/**
 * A Markdown table: first column left-aligned, the others right-aligned.
 * @param {string[]} head
 * @param {string[][]} body
 * @returns {string}
 */
export function markdownTable(head, body) {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const fmt = (/** @type {string[]} */ cells) =>
    '| ' + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ') + ' |';
  const rule = '|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|';
  return [fmt(head), rule, ...body.map(fmt)].join('\n');
}

/**
 * Ratios of `base` against each other engine with results.
 * @param {EngineSummary[]} rows
 * @param {string} base
 * @returns {Record<string, { rate: number, bytesPerQuad: number }>}
 */
export function ratios(rows, base) {
  const b = rows.find((r) => r.engine === base && r.runs > 0);
  /** @type {Record<string, { rate: number, bytesPerQuad: number }>} */
  const out = {};
  if (!b) return out;
  for (const r of rows) {
    if (r.engine === base || r.runs === 0) continue;
    out[r.engine] = {
      rate: /** @type {number} */ (b.triplesPerSecond) / /** @type {number} */ (r.triplesPerSecond),
      bytesPerQuad: /** @type {number} */ (b.bytesPerQuad) / /** @type {number} */ (r.bytesPerQuad),
    };
  }
  return out;
}

/** @param {number | undefined} n @param {number} digits */
function fixed(n, digits) {
  if (n === undefined) return '';
  const s = n.toFixed(digits);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}
