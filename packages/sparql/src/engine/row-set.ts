/**
 * A hash set of row keys (the ids of chosen slots), open addressing over typed arrays: DISTINCT,
 * grouping and hash joins use it to find "the same key" without building strings or objects.
 */
import type { QueryContext } from './context.js';

export function hashKey(data: Uint32Array, base: number, slots: readonly number[]): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < slots.length; k++) {
    h = Math.imul(h ^ data[base + slots[k]!]!, 0x01000193);
    h ^= h >>> 13;
  }
  return h | 0;
}

export class RowKeySet {
  /** Keys, `slots.length` ids each, in insertion order (index = key number). */
  keys: Uint32Array;
  size = 0;
  private hashes: Int32Array;
  private table: Int32Array;
  private mask: number;

  constructor(
    readonly slots: readonly number[],
    private readonly q?: QueryContext,
    private readonly what = 'a hash table',
  ) {
    this.keys = new Uint32Array(Math.max(1, slots.length * 64));
    this.hashes = new Int32Array(64);
    this.table = new Int32Array(128).fill(-1);
    this.mask = 127;
  }

  /** The key number of the row's key, or -1. */
  find(data: Uint32Array, base: number): number {
    return this.lookup(data, base, hashKey(data, base, this.slots), false);
  }

  /** The key number of the row's key, adding the key when new (then `size - 1`). */
  add(data: Uint32Array, base: number): number {
    return this.lookup(data, base, hashKey(data, base, this.slots), true);
  }

  private lookup(data: Uint32Array, base: number, h: number, insert: boolean): number {
    const slots = this.slots;
    const k = slots.length;
    let i = h & this.mask;
    for (;;) {
      const e = this.table[i]!;
      if (e === -1) break;
      if (this.hashes[e] === h) {
        const kb = e * k;
        let same = true;
        for (let j = 0; j < k; j++) {
          if (this.keys[kb + j] !== data[base + slots[j]!]) {
            same = false;
            break;
          }
        }
        if (same) return e;
      }
      i = (i + 1) & this.mask;
    }
    if (!insert) return -1;
    const e = this.size++;
    if (this.q !== undefined) this.q.checkBudget(this.size, this.what);
    if (e >= this.hashes.length) {
      const hs = new Int32Array(this.hashes.length * 2);
      hs.set(this.hashes);
      this.hashes = hs;
      const ks = new Uint32Array(Math.max(1, this.keys.length * 2));
      ks.set(this.keys);
      this.keys = ks;
    }
    this.hashes[e] = h;
    const kb = e * k;
    for (let j = 0; j < k; j++) this.keys[kb + j] = data[base + slots[j]!]!;
    this.table[i] = e;
    if (this.size * 2 > this.mask) this.grow();
    return e;
  }

  private grow(): void {
    const cap = (this.mask + 1) * 2;
    const t = new Int32Array(cap).fill(-1);
    const m = cap - 1;
    for (let e = 0; e < this.size; e++) {
      let i = this.hashes[e]! & m;
      while (t[i] !== -1) i = (i + 1) & m;
      t[i] = e;
    }
    this.table = t;
    this.mask = m;
  }
}

/** All slots 0..width-1. */
export function allSlots(width: number): number[] {
  return Array.from({ length: width }, (_, i) => i);
}
