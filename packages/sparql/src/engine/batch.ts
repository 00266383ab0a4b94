/**
 * Batches of solutions: `length` rows of `width` term ids each, row-major in `data`; 0 = unbound.
 * A batch handed to a consumer belongs to it (operators never reuse a batch they have yielded).
 */
export const BATCH_ROWS = 1024;

export interface Batch {
  readonly width: number;
  length: number;
  data: Uint32Array;
}

export function newBatch(width: number, rows = BATCH_ROWS): Batch {
  return { width, length: 0, data: new Uint32Array(width * rows) };
}

/** Rows of the first output batch of a stage that may yield only a few (it grows from there). */
export const FIRST_BATCH_ROWS = 32;

/** `b` with twice the room (at most BATCH_ROWS rows), its rows copied. */
export function grownBatch(b: Batch): Batch {
  const rows = Math.min(BATCH_ROWS, Math.max(1, (b.data.length / Math.max(1, b.width)) * 2));
  const data = new Uint32Array(b.width * rows);
  data.set(b.data.subarray(0, b.length * b.width));
  return { width: b.width, length: b.length, data };
}

/** A batch of one row: a copy of `seed`, or all unbound. */
export function unitBatch(width: number, seed: Uint32Array | undefined): Batch {
  const b = newBatch(width, 1);
  if (seed !== undefined) b.data.set(seed.subarray(0, width));
  b.length = 1;
  return b;
}

/** Copy row `r` of `src` to the end of `dst` (which must have room); returns its offset. */
export function appendRow(dst: Batch, src: Uint32Array, srcBase: number): number {
  const w = dst.width;
  const base = dst.length * w;
  const d = dst.data;
  for (let j = 0; j < w; j++) d[base + j] = src[srcBase + j]!;
  dst.length++;
  return base;
}

/**
 * Whether rows a and b are compatible (§18.3: equal wherever both are bound). Pass `slots` to
 * test only those.
 */
export function compatible(a: Uint32Array, aBase: number, b: Uint32Array, bBase: number, width: number): boolean {
  for (let j = 0; j < width; j++) {
    const x = a[aBase + j]!;
    if (x === 0) continue;
    const y = b[bBase + j]!;
    if (y !== 0 && y !== x) return false;
  }
  return true;
}

/** Append the merge of two compatible rows to `dst`. */
export function appendMerged(dst: Batch, a: Uint32Array, aBase: number, b: Uint32Array, bBase: number): void {
  const w = dst.width;
  const base = dst.length * w;
  const d = dst.data;
  for (let j = 0; j < w; j++) {
    const x = a[aBase + j]!;
    d[base + j] = x !== 0 ? x : b[bBase + j]!;
  }
  dst.length++;
}

/** The rows of each batch of `input` that `keep` accepts, compacted in place (the batch is
 * reused); batches left empty are not yielded. One `q.tick()` per batch. */
export function* keepRows(q: { tick(): void; readonly width: number }, input: Iterable<Batch>, keep: (d: Uint32Array, base: number) => boolean): Generator<Batch> {
  const width = q.width;
  for (const b of input) {
    q.tick();
    const d = b.data;
    let kept = 0;
    for (let r = 0; r < b.length; r++) {
      const base = r * width;
      if (!keep(d, base)) continue;
      if (kept !== r) d.copyWithin(kept * width, base, base + width);
      kept++;
    }
    b.length = kept;
    if (kept > 0) yield b;
  }
}

/** A growable row store for operators that materialise (hash tables, sorts). */
export class RowStore {
  data: Uint32Array;
  length = 0;
  constructor(readonly width: number, rows = 256) {
    this.data = new Uint32Array(Math.max(1, width * rows));
  }

  /** Append row `srcBase` of `src`; returns the new row's index. */
  push(src: Uint32Array, srcBase: number): number {
    const w = this.width;
    const need = (this.length + 1) * w;
    if (need > this.data.length) {
      const next = new Uint32Array(Math.max(need, this.data.length * 2));
      next.set(this.data);
      this.data = next;
    }
    const base = this.length * w;
    for (let j = 0; j < w; j++) this.data[base + j] = src[srcBase + j]!;
    return this.length++;
  }
}
