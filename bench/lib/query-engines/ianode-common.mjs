/**
 * The ianode query adapters share this: an in-memory store (`openStore` without a folder: the
 * query benchmark measures reads, bench/load.mjs measures the durable load), loaded from one or
 * more files, each with an optional `Security-Label`, and `executeQuery` over a Dataset made
 * afresh for every query, as a server does per request: by default `store.snapshot()` (no view,
 * so no per-quad label check; the store object itself would take a new snapshot on every
 * `match`/`count` call).
 */
import { createReadStream } from 'node:fs';
import { EngineUnavailable } from '../engines/unavailable.mjs';
import { QueryTimeout } from './engine.mjs';
import { quadKey, solutionKey } from '../results.mjs';

async function importIanode() {
  try {
    const store = await import('@ianode/store');
    const sparql = await import('@ianode/sparql');
    const abac = await import('@ianode/abac');
    if (typeof store.openStore !== 'function' || typeof sparql.executeQuery !== 'function') {
      throw new Error('openStore / executeQuery not exported');
    }
    return { store, sparql, abac };
  } catch (err) {
    throw new EngineUnavailable(`@ianode packages do not import (run tsc -b): ${/** @type {Error} */ (err).message}`);
  }
}

/**
 * @param {{ loads: { file: string, label?: string }[], defaultLabel?: string,
 *   dataset?: (store: import('@ianode/store').QuadStore, mods: Awaited<ReturnType<typeof importIanode>>) => () => import('@ianode/rdf').Dataset,
 *   describe: Record<string, unknown> }} setup
 *   `dataset` returns the per-request Dataset factory (default: the store itself)
 * @returns {Promise<import('./engine.mjs').QueryEngine>}
 */
export async function openIanode(setup) {
  const mods = await importIanode();
  const store = await mods.store.openStore({ defaultLabel: setup.defaultLabel ?? '*' });
  const { executeQuery } = mods.sparql;
  /** @type {() => import('@ianode/rdf').Dataset} */
  let dataset = () => store.snapshot();
  return {
    async load() {
      for (const { file, label } of setup.loads) {
        const input = createReadStream(file, { highWaterMark: 1 << 20 });
        await store.load(input, { format: 'application/n-triples', label });
      }
      if (setup.dataset) dataset = setup.dataset(store, mods);
      return { quads: store.stats().quads };
    },
    async run(text, { timeoutMs, digest }) {
      let n = 0;
      try {
        const result = executeQuery(dataset(), text, { deadline: Date.now() + timeoutMs });
        if (result.type === 'bindings') {
          for (const s of result.solutions) {
            n++;
            if (digest) digest.add(solutionKey(s));
          }
        } else if (result.type === 'quads') {
          for (const q of result.quads) {
            n++;
            if (digest) digest.add(quadKey(q));
          }
        } else {
          n = 1;
          if (digest) digest.add(String(result.value));
        }
      } catch (err) {
        if (/** @type {{ code?: string }} */ (err)?.code === 'QUERY_TIMEOUT') throw new QueryTimeout(timeoutMs);
        throw err;
      }
      return n;
    },
    info: () => ({ ...setup.describe, stats: store.stats() }),
    close: () => store.close(),
  };
}
