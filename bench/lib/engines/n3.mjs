/**
 * N3.js: a file stream piped through `N3.StreamParser` into `N3.Store#addQuad`.
 */
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { EngineUnavailable } from './unavailable.mjs';

/** @returns {Promise<import('./engine.mjs').Engine>} */
export async function open() {
  /** @type {typeof import('n3')} */
  let N3;
  try {
    N3 = await import('n3');
  } catch (err) {
    throw new EngineUnavailable(`n3 is not installed: ${/** @type {Error} */ (err).message}`);
  }
  const version = createRequire(import.meta.url)('n3/package.json').version;
  let store = new N3.Store();
  return {
    load(file) {
      return new Promise((resolve, reject) => {
        const input = createReadStream(file, { highWaterMark: 1 << 20 });
        const parser = new N3.StreamParser({ format: 'N-Triples' });
        input.on('error', reject);
        parser.on('error', reject);
        parser.on('data', (quad) => store.addQuad(quad));
        parser.on('end', resolve);
        input.pipe(parser);
      });
    },
    size: () => store.size,
    info: () => ({ version }),
    async close() {
      store = new N3.Store();
    },
  };
}
