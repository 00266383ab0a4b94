/**
 * Sorting row permutations by column tuples. Least-significant-digit radix sort: every pass is a
 * stable counting sort on one digit of one column, so a 10M-row index sorts in a few linear passes
 * instead of ~230M comparator calls. Columns are rebased on their minimum and constant columns are
 * skipped, so a single-graph load never pays for the graph column.
 */
import type { Position } from './orders.js';
import { sharedCopy } from './shared.js';

export type ColumnSet = Record<Position, Uint32Array>;

const SMALL = 512;

/** Compare two rows by the given positions (most significant first). */
export function compareRows(cols: ColumnSet, keys: readonly Position[], a: number, b: number): number {
  for (const k of keys) {
    const c = cols[k];
    const d = c[a]! - c[b]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** Scratch space for a sort of n rows (two arrays of n); passing it in lets a caller decide where
 * that memory lives (a worker thread's sort uses the main thread's, which it frees). */
export interface SortScratch {
  dst: Uint32Array;
  digits: Uint32Array;
}

/** Sort `perm` (row ids) in place by `keys`, most significant first. Stable. */
export function sortRows(cols: ColumnSet, keys: readonly Position[], perm: Uint32Array, scratch?: SortScratch): Uint32Array {
  const n = perm.length;
  if (n < 2) return perm;
  if (n <= SMALL) {
    const arr = Array.from(perm);
    arr.sort((a, b) => compareRows(cols, keys, a, b));
    perm.set(arr);
    return perm;
  }
  let src: Uint32Array = perm;
  let dst: Uint32Array = scratch?.dst.subarray(0, n) ?? new Uint32Array(n);
  const digits = scratch?.digits.subarray(0, n) ?? new Uint32Array(n);
  for (let k = keys.length - 1; k >= 0; k--) {
    const col = cols[keys[k]!];
    let min = 0xffffffff;
    let max = 0;
    for (let i = 0; i < n; i++) {
      const v = col[src[i]!]!;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    const range = max - min;
    if (range === 0) continue;
    const bits = 32 - Math.clz32(range);
    const passes = Math.ceil(bits / 16);
    const digitBits = Math.ceil(bits / passes);
    const buckets = 1 << digitBits;
    const mask = buckets - 1;
    const counts = new Uint32Array(buckets);
    for (let pass = 0; pass < passes; pass++) {
      const shift = pass * digitBits;
      counts.fill(0);
      for (let i = 0; i < n; i++) {
        const d = ((col[src[i]!]! - min) >>> shift) & mask;
        digits[i] = d;
        counts[d]!++;
      }
      let sum = 0;
      for (let b = 0; b < buckets; b++) {
        const c = counts[b]!;
        counts[b] = sum;
        sum += c;
      }
      for (let i = 0; i < n; i++) dst[counts[digits[i]!]!++] = src[i]!;
      const t = src;
      src = dst;
      dst = t;
    }
  }
  if (src !== perm) perm.set(src);
  return perm;
}

/** A copy of `perm` stably sorted by the graph column; `perm` itself when every row shares one
 * graph (then the graph-first order is the same permutation). */
export function stableSortByGraph(g: Uint32Array, perm: Uint32Array): Uint32Array {
  const n = perm.length;
  if (n === 0) return perm;
  const first = g[perm[0]!]!;
  let constant = true;
  for (let i = 1; i < n; i++) {
    if (g[perm[i]!] !== first) {
      constant = false;
      break;
    }
  }
  if (constant) return perm;
  const out = sharedCopy(perm);
  return sortRows({ g, s: g, p: g, o: g }, ['g'], out);
}
