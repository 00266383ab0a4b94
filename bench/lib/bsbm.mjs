/**
 * BSBM-like N-Triples with a fixed seed and an exact triple count: as lines (in-process use), as
 * text chunks, or as a cached file under bench/out/. See bsbm-model.mjs for the data's shape.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { join } from 'node:path';
import { createRandom } from './random.mjs';
import { createModel, PRODUCTS_PER_PRODUCER } from './bsbm-model.mjs';

/** Bump when the generated data changes, so cached files are regenerated. */
export const GENERATOR_VERSION = 1;

/** Average triples per product including its offers and reviews (measured; only sizes pools). */
const TRIPLES_PER_PRODUCT = 343;

/**
 * Pool sizes for a target triple count, in the proportions of the BSBM generator (roughly:
 * 20 offers and 10 reviews per product, a product type tree that deepens with scale).
 * @param {number} triples
 * @returns {import('./bsbm-model.mjs').Scale}
 */
export function bsbmScale(triples) {
  const products = Math.max(1, Math.round(triples / TRIPLES_PER_PRODUCT));
  return {
    products,
    typeDepth: Math.min(6, Math.max(2, 1 + Math.floor(Math.log10(products)))),
    features: Math.max(20, Math.round(products * 1.5)),
    producers: Math.max(1, Math.ceil(products / PRODUCTS_PER_PRODUCER)),
    vendors: Math.max(1, Math.ceil(products / 50)),
    ratingSites: Math.max(1, Math.ceil(products / 100)),
    persons: Math.max(1, Math.ceil(products / 2)),
  };
}

/**
 * Exactly `triples` distinct N-Triples statements, each a string ending in "\n".
 * @param {{ triples: number, seed?: number }} options
 * @returns {Generator<string>}
 */
export function* bsbmLines({ triples, seed = 42 }) {
  if (!Number.isSafeInteger(triples) || triples < 0) throw new TypeError(`bad triple count ${triples}`);
  /** @type {string[]} */
  const out = [];
  const model = createModel(createRandom(seed), bsbmScale(triples));
  let emitted = 0;
  for (const _ of model.steps(out)) {
    for (const line of out) {
      if (emitted === triples) return;
      yield line;
      emitted++;
    }
    out.length = 0;
  }
}

/**
 * The same statements joined into strings of about `chunkChars` characters (whole lines).
 * @param {{ triples: number, seed?: number, chunkChars?: number }} options
 * @returns {Generator<string>}
 */
export function* bsbmChunks({ triples, seed = 42, chunkChars = 1 << 20 }) {
  /** @type {string[]} */
  let parts = [];
  let size = 0;
  for (const line of bsbmLines({ triples, seed })) {
    parts.push(line);
    size += line.length;
    if (size >= chunkChars) {
      yield parts.join('');
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) yield parts.join('');
}

/**
 * Path of the N-Triples file for (triples, seed), generated unless a complete one is cached. A
 * file counts as complete when its marker `<file>.meta.json` names the same generator version,
 * count and seed, and the byte size the file has.
 * @param {{ triples: number, seed?: number, dir: string, log?: (msg: string) => void }} options
 * @returns {Promise<{ file: string, bytes: number, cached: boolean }>}
 */
export async function ensureBsbmFile({ triples, seed = 42, dir, log = () => {} }) {
  const file = join(dir, `bsbm-${triples}-${seed}.nt`);
  const metaFile = `${file}.meta.json`;
  const want = { generator: 'bsbm', version: GENERATOR_VERSION, triples, seed };
  try {
    const meta = JSON.parse(await readFile(metaFile, 'utf8'));
    const { size } = await stat(file);
    if (Object.entries(want).every(([k, v]) => meta[k] === v) && meta.bytes === size) {
      return { file, bytes: size, cached: true };
    }
  } catch {
    // no usable cache: generate below
  }
  await mkdir(dir, { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  const started = Date.now();
  const ws = createWriteStream(tmp);
  let bytes = 0;
  for (const chunk of bsbmChunks({ triples, seed })) {
    bytes += Buffer.byteLength(chunk);
    if (!ws.write(chunk)) await once(ws, 'drain');
  }
  ws.end();
  await finished(ws);
  await rename(tmp, file);
  await writeFile(metaFile, JSON.stringify({ ...want, bytes }) + '\n');
  log(`generated ${file} (${(bytes / 2 ** 20).toFixed(1)} MiB) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { file, bytes, cached: false };
}
