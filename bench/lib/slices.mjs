/**
 * The data file split into label slices for the ABAC query benchmark: every triple goes to slice
 * `fnv1a(subject) mod count`, so each entity (a product with its labels and properties, an offer, a
 * review) is in one slice as a whole, and the slices interleave through every index range.
 * Slice k is loaded with the label `l<k>`.
 *
 * Files `<data>.slice<k>of<count>.nt` next to the data, with a marker `<data>.slices<count>.json`
 * naming the data file's size and the line counts; reused while the marker matches.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { createInterface } from 'node:readline';

const SLICES_VERSION = 1;

/** FNV-1a over the UTF-16 code units of `s`. @param {string} s */
export function fnv1a(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The slice of a triple with this subject (as written in N-Triples, `<...>` or `_:b`).
 * @param {string} subject @param {number} count */
export const sliceOf = (subject, count) => fnv1a(subject) % count;

/** @param {string} file @param {number} k @param {number} count */
export const sliceFile = (file, k, count) => `${file}.slice${k}of${count}.nt`;

/**
 * @param {{ file: string, count?: number, log?: (msg: string) => void }} options
 * @returns {Promise<{ files: string[], lines: number[] }>}
 */
export async function ensureSlices({ file, count = 10, log = () => {} }) {
  const marker = `${file}.slices${count}.json`;
  const files = Array.from({ length: count }, (_, k) => sliceFile(file, k, count));
  const { size } = await stat(file);
  try {
    const meta = JSON.parse(await readFile(marker, 'utf8'));
    if (meta.version === SLICES_VERSION && meta.sourceBytes === size && meta.count === count) {
      const sizes = await Promise.all(files.map((f) => stat(f).then((s) => s.size)));
      if (sizes.every((s, k) => s === meta.bytes[k])) return { files, lines: meta.lines };
    }
  } catch {
    // no usable slices: write them below
  }
  const started = Date.now();
  const outs = files.map((f) => createWriteStream(f, { highWaterMark: 1 << 20 }));
  const lines = new Array(count).fill(0);
  const bytes = new Array(count).fill(0);
  const rl = createInterface({ input: createReadStream(file, { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line === '') continue;
    const k = sliceOf(line.slice(0, line.indexOf(' ')), count);
    const text = line + '\n';
    lines[k]++;
    bytes[k] += Buffer.byteLength(text);
    const out = /** @type {import('node:fs').WriteStream} */ (outs[k]);
    if (!out.write(text)) await once(out, 'drain');
  }
  for (const out of outs) out.end();
  await Promise.all(outs.map((o) => finished(o)));
  await writeFile(marker, JSON.stringify({ version: SLICES_VERSION, sourceBytes: size, count, lines, bytes }) + '\n');
  log(`wrote ${count} label slices of ${file} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { files, lines };
}
