/**
 * Comunica (`@comunica/query-sparql-rdfjs`, the engine for RDF/JS sources) over an N3.js `Store`
 * loaded with N3's StreamParser. `@comunica/query-sparql` 5.x does not start on Node 20 (its
 * undici 8 needs Node 22), the rdfjs-only build does. A query past the timeout is stopped by
 * destroying its result stream.
 */
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { EngineUnavailable } from '../engines/unavailable.mjs';
import { QueryTimeout } from './engine.mjs';
import { quadKey, solutionKey } from '../results.mjs';

/** @param {import('./engine.mjs').QueryEngineConfig} config */
export async function open(config) {
  /** @type {any} */
  let comunica;
  /** @type {typeof import('n3')} */
  let N3;
  try {
    comunica = await import('@comunica/query-sparql-rdfjs');
    N3 = await import('n3');
  } catch (err) {
    throw new EngineUnavailable(`@comunica/query-sparql-rdfjs or n3 is not installed: ${/** @type {Error} */ (err).message}`);
  }
  const require = createRequire(import.meta.url);
  const version = require('@comunica/query-sparql-rdfjs/package.json').version;
  const n3Version = require('n3/package.json').version;
  const store = new N3.Store();
  const engine = new comunica.QueryEngine();

  /**
   * @param {import('node:events').EventEmitter & { destroy?: (e?: Error) => void }} stream
   * @param {(item: any) => void} onItem
   * @param {number} timeoutMs
   */
  function consume(stream, onItem, timeoutMs) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stream.removeAllListeners('data');
        stream.destroy?.();
        reject(new QueryTimeout(timeoutMs));
      }, timeoutMs);
      stream.on('data', onItem);
      stream.on('error', (err) => { clearTimeout(timer); reject(err); });
      stream.on('end', () => { clearTimeout(timer); resolve(undefined); });
    });
  }

  /** @type {import('./engine.mjs').QueryEngine} */
  return {
    load() {
      return new Promise((resolve, reject) => {
        const input = createReadStream(config.file, { highWaterMark: 1 << 20 });
        const parser = new N3.StreamParser({ format: 'N-Triples' });
        input.on('error', reject);
        parser.on('error', reject);
        parser.on('data', (quad) => store.addQuad(quad));
        parser.on('end', () => resolve({ quads: store.size }));
        input.pipe(parser);
      });
    },
    async run(text, { timeoutMs, digest }) {
      const result = await engine.query(text, { sources: [store] });
      let n = 0;
      if (result.resultType === 'boolean') {
        const value = await result.execute();
        if (digest) digest.add(String(value));
        return 1;
      }
      const stream = await result.execute();
      if (result.resultType === 'bindings') {
        await consume(stream, (b) => {
          n++;
          if (digest) digest.add(solutionKey([...b].map(([v, t]) => [v.value, t])));
        }, timeoutMs);
      } else {
        await consume(stream, (q) => {
          n++;
          if (digest) digest.add(quadKey(q));
        }, timeoutMs);
      }
      return n;
    },
    info: () => ({ version, package: '@comunica/query-sparql-rdfjs', source: `n3 ${n3Version} Store` }),
    async close() {},
  };
}
