/** Oxigraph (WASM build for Node), in-memory `Store`: `store.query(text)` returns the whole
 * answer as an array (or a boolean). It cannot be interrupted: a query past the timeout is
 * reported as timed out only when it returns. */
import { performance } from 'node:perf_hooks';
import { importOxigraph, readChunks } from '../engines/oxigraph.mjs';
import { QueryTimeout } from './engine.mjs';
import { quadKey, solutionKey } from '../results.mjs';

/** @param {import('./engine.mjs').QueryEngineConfig} config */
export async function open(config) {
  const { oxigraph, version } = await importOxigraph();
  const store = new oxigraph.Store();
  /** @type {import('./engine.mjs').QueryEngine} */
  return {
    async load() {
      store.load(readChunks(config.file, 1 << 20), { format: 'application/n-triples' });
      return { quads: store.size };
    },
    async run(text, { timeoutMs, digest }) {
      const started = performance.now();
      const result = store.query(text);
      let n;
      if (typeof result === 'boolean') {
        n = 1;
        if (digest) digest.add(String(result));
      } else if (Array.isArray(result)) {
        n = result.length;
        if (digest) {
          for (const row of result) digest.add(row instanceof Map ? solutionKey(row) : quadKey(/** @type {import('@rdfjs/types').Quad} */ (row)));
        }
      } else {
        throw new Error(`unexpected oxigraph result ${typeof result}`);
      }
      if (performance.now() - started > timeoutMs) throw new QueryTimeout(timeoutMs);
      return n;
    },
    info: () => ({ version }),
    async close() {},
  };
}
