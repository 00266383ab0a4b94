/**
 * Oxigraph (WASM build for Node): `new Store()` and `store.load(chunks, { format })`. Its load
 * takes a synchronous Iterable of string/Uint8Array, so the file is read in 1 MiB chunks with
 * readSync; checked parsing, one transaction (the defaults), like the ianode load.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { EngineUnavailable } from './unavailable.mjs';

/**
 * @param {string} file
 * @param {number} chunkBytes
 * @returns {Generator<Uint8Array>}
 */
export function* readChunks(file, chunkBytes) {
  const fd = openSync(file, 'r');
  try {
    while (true) {
      const buf = Buffer.allocUnsafe(chunkBytes);
      const n = readSync(fd, buf, 0, chunkBytes, null);
      if (n === 0) return;
      yield n === chunkBytes ? buf : buf.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The oxigraph module and its version, or EngineUnavailable when it is not installed (shared by
 * the load and query benchmarks).
 * @returns {Promise<{ oxigraph: typeof import('oxigraph'), version: string }>}
 */
export async function importOxigraph() {
  try {
    const oxigraph = await import('oxigraph');
    return { oxigraph, version: createRequire(import.meta.url)('oxigraph/package.json').version };
  } catch (err) {
    throw new EngineUnavailable(`oxigraph is not installed: ${/** @type {Error} */ (err).message}`);
  }
}

/** @returns {Promise<import('./engine.mjs').Engine>} */
export async function open() {
  const { oxigraph, version } = await importOxigraph();
  let store = new oxigraph.Store();
  return {
    async load(file) {
      store.load(readChunks(file, 1 << 20), { format: 'application/n-triples' });
    },
    size: () => store.size,
    info: () => ({ version }),
    async close() {
      store = new oxigraph.Store();
    },
  };
}
