/**
 * One load in a fresh process, so resident memory belongs to this engine alone.
 *   node --expose-gc child.mjs <engine> <file> <triples>
 * Prints one JSON line (see LoadMeasurement in run-child.mjs). Exit codes: 0 measured,
 * 2 wrong quad count after the load, 3 engine unavailable, 1 anything else.
 */
import { performance } from 'node:perf_hooks';
import { ENGINES } from './engines/engine.mjs';
import { EngineUnavailable } from './engines/unavailable.mjs';

const [name, file, triplesArg] = process.argv.slice(2);
const triples = Number(triplesArg);

/** Full collection so memory figures hold live data only. */
function collect() {
  const gc = /** @type {(() => void) | undefined} */ (globalThis.gc);
  if (!gc) throw new Error('run with --expose-gc');
  gc();
  gc();
}

/** @param {Record<string, unknown>} record @param {number} code */
function report(record, code) {
  process.stdout.write(JSON.stringify({ engine: name, triples, ...record }) + '\n');
  process.exitCode = code;
}

async function main() {
  if (!name || !ENGINES.includes(name) || !file || !Number.isSafeInteger(triples)) {
    throw new TypeError('usage: child.mjs <engine> <file> <triples>');
  }
  const { open } = await import(`./engines/${name}.mjs`);
  /** @type {import('./engines/engine.mjs').Engine} */
  const engine = await open();
  collect();
  const before = process.memoryUsage();
  const started = performance.now();
  await engine.load(file);
  const seconds = (performance.now() - started) / 1000;
  collect();
  const after = process.memoryUsage();
  const quads = engine.size();
  const rssBytes = after.rss - before.rss;
  const heapBytes = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
  const measured = {
    quads,
    seconds,
    triplesPerSecond: triples / seconds,
    rssBytes,
    bytesPerQuad: rssBytes / quads,
    heapBytes,
    heapBytesPerQuad: heapBytes / quads,
    rssAfterBytes: after.rss,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    info: engine.info?.() ?? {},
  };
  await engine.close();
  if (quads !== triples) {
    report({ ...measured, error: `result check failed: ${quads} quads in the store, ${triples} triples in the file` }, 2);
  } else {
    report(measured, 0);
  }
}

main().catch((err) => {
  if (err instanceof EngineUnavailable) report({ unavailable: err.message }, 3);
  else {
    process.stderr.write(`${err?.stack ?? err}\n`);
    report({ error: String(err?.message ?? err) }, 1);
  }
});
