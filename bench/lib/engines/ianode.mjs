/**
 * ianode: `openStore({ dir, fsync: true })` on a fresh temporary folder; the load is one durable
 * transaction and its promise resolves at the fsync'd commit.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineUnavailable } from './unavailable.mjs';

/** @returns {Promise<import('./engine.mjs').Engine>} */
export async function open() {
  /** @type {Record<string, unknown>} */
  let mod;
  try {
    mod = await import('@ianode/store');
  } catch (err) {
    throw new EngineUnavailable(`@ianode/store does not import (run tsc -b): ${/** @type {Error} */ (err).message}`);
  }
  if (typeof mod.openStore !== 'function') {
    throw new EngineUnavailable('@ianode/store (packages/store/dist) does not export openStore yet');
  }
  const dir = await mkdtemp(join(tmpdir(), 'ianode-bench-'));
  const store = await mod.openStore({ dir, fsync: true });
  /** @type {{ quads: number } | undefined} */
  let result;
  return {
    async load(file) {
      const input = createReadStream(file, { highWaterMark: 1 << 20 });
      result = await store.load(input, { format: 'application/n-triples' });
    },
    size() {
      const quads = store.stats().quads;
      if (result && result.quads !== quads) {
        throw new Error(`load() reported ${result.quads} quads but stats() has ${quads}`);
      }
      return quads;
    },
    info() {
      return { stats: store.stats(), loadResult: result };
    },
    async close() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
