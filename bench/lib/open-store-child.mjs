/**
 * Opens a store folder as the graph server does at start (`openStore({ dir })` of the built
 * @ianode/store) and prints, as one JSON line, the quads it holds and the resident memory the open
 * added: RSS and V8 heap + array buffers after a full GC, minus the same before the open. Run with
 * `--expose-gc`. Used by offline.mjs for "bytes per quad resident".
 *
 *   node --expose-gc bench/lib/open-store-child.mjs DIR
 */
import { performance } from 'node:perf_hooks';
import { openStore } from '../../packages/store/dist/index.js';

const dir = process.argv[2];
if (!dir) throw new TypeError('usage: open-store-child.mjs DIR');
const gc = /** @type {() => void} */ (globalThis.gc);
const measure = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.arrayBuffers };
};
const before = measure();
const started = performance.now();
const store = await openStore({ dir, lockPurpose: 'bench/offline.mjs (open)' });
const openSeconds = (performance.now() - started) / 1000;
const after = measure();
const quads = store.stats().quads;
await store.close();
process.stdout.write(JSON.stringify({ quads, openSeconds, rssBytes: after.rss - before.rss, heapBytes: after.heap - before.heap }) + '\n');
