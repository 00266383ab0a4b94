/**
 * Growable Uint32 columns of quad rows: g, s, p, o, label. Rows are only ever appended, and a row's
 * values never change once committed, so snapshots share the columns and read rows below their own
 * row count. (A growth swaps the backing arrays; old and new hold the same committed values.)
 */
import { sharedCopy, sharedU32 } from './shared.js';

export class RowColumns {
  g: Uint32Array;
  s: Uint32Array;
  p: Uint32Array;
  o: Uint32Array;
  label: Uint32Array;
  /** Commit id that deleted the row, 0 = live. Allocated on the first delete. */
  deleted: Uint32Array | undefined;
  length = 0;

  constructor(capacity = 1024) {
    this.g = sharedArray(capacity);
    this.s = sharedArray(capacity);
    this.p = sharedArray(capacity);
    this.o = sharedArray(capacity);
    this.label = sharedArray(capacity);
  }

  get capacity(): number {
    return this.g.length;
  }

  reserve(extra: number): void {
    const need = this.length + extra;
    if (need <= this.g.length) return;
    let cap = Math.max(1024, this.g.length);
    while (cap < need) cap = cap < 1 << 24 ? cap * 2 : Math.ceil(cap * 1.5);
    this.g = grow(this.g, cap);
    this.s = grow(this.s, cap);
    this.p = grow(this.p, cap);
    this.o = grow(this.o, cap);
    this.label = grow(this.label, cap);
    if (this.deleted) this.deleted = grow(this.deleted, cap);
  }

  push(g: number, s: number, p: number, o: number, label: number): number {
    if (this.length === this.g.length) this.reserve(1);
    const r = this.length++;
    this.g[r] = g;
    this.s[r] = s;
    this.p[r] = p;
    this.o[r] = o;
    this.label[r] = label;
    return r;
  }

  markDeleted(row: number, txId: number): void {
    if (!this.deleted) this.deleted = sharedArray(this.g.length);
    this.deleted[row] = txId;
  }

  /** Drop rows at or above `length` (roll back uncommitted appends). */
  truncate(length: number): void {
    if (this.deleted) this.deleted.fill(0, length, this.length);
    this.length = length;
  }

  /** Shrink the arrays to the row count (after a bulk load) to give memory back, when more than
   * an eighth of them is unused. */
  trim(): void {
    const n = this.length;
    if (this.g.length - n < Math.max(1024, this.g.length / 8)) return;
    this.g = sharedCopy(this.g, n);
    this.s = sharedCopy(this.s, n);
    this.p = sharedCopy(this.p, n);
    this.o = sharedCopy(this.o, n);
    this.label = sharedCopy(this.label, n);
    if (this.deleted) this.deleted = sharedCopy(this.deleted, n);
  }
}

/** The columns live in SharedArrayBuffers so index sorts (parallel-sort.ts) and query workers
 * read them on other threads without copies (shared.ts). */
const sharedArray = sharedU32;

function grow(a: Uint32Array, cap: number): Uint32Array {
  const b = sharedArray(cap);
  b.set(a);
  return b;
}
