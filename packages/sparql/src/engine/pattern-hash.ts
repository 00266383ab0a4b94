/**
 * Hash mode of a pattern stage: when many rows arrive for one triple pattern, probing the index
 * once per row costs more than reading every quad of the pattern's constant part once and hashing
 * it on the positions the rows bind. The stage (bgp.ts) switches to this mode when the rows it
 * has buffered outnumber a fraction of the pattern's exact count.
 */
import { estimateOf, type QuadPattern } from '@ianode/rdf';
import type { PlanPattern } from '../algebra/plan.js';
import type { QueryContext } from './context.js';

/** Positions 0 = s, 1 = p, 2 = o. */
export class PatternHashIndex {
  readonly cols: [Uint32Array, Uint32Array, Uint32Array];
  readonly g: Uint32Array;
  length = 0;
  /** Open addressing on the key hash: `slots` holds quad index + 1 of a chain head (0 = empty),
   * `hashes` that head's hash. */
  private slots: Int32Array = new Int32Array(0);
  private hashes: Int32Array = new Int32Array(0);
  private mask = 0;
  private next: Int32Array;

  /** Read every quad of the pattern's constants in graph `g` (undefined = any graph), hashed on
   * the values at `keyPositions`. `expected` is the pattern's estimate (`estimateOf`), when the
   * caller has it already. */
  constructor(
    q: QueryContext,
    pattern: QuadPattern,
    readonly keyPositions: readonly number[],
    expected = estimateOf(q.dataset, pattern),
  ) {
    // The estimate sizes the arrays (it may exceed what a view shows); the budget is checked on
    // the quads actually read, so an error never depends on quads the caller cannot see.
    const cap = Math.max(16, Math.min(expected, q.rowBudget + 1));
    this.cols = [new Uint32Array(cap), new Uint32Array(cap), new Uint32Array(cap)];
    this.g = new Uint32Array(cap);
    this.next = new Int32Array(cap);
    for (const b of q.dataset.matchBatches(pattern)) {
      q.tick();
      const n = b.length;
      q.checkBudget(this.length + n, 'a hash join on a triple pattern');
      if (this.length + n > this.g.length) this.grow(this.length + n);
      this.cols[0].set(b.s.subarray(0, n), this.length);
      this.cols[1].set(b.p.subarray(0, n), this.length);
      this.cols[2].set(b.o.subarray(0, n), this.length);
      this.g.set(b.g.subarray(0, n), this.length);
      this.length += n;
    }
    let size = 16;
    while (size < this.length * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.hashes = new Int32Array(size);
    this.mask = size - 1;
    const next = this.next;
    for (let i = 0; i < this.length; i++) {
      const h = this.hashAt(i);
      const at = this.find(h);
      const head = this.slots[at]!;
      next[i] = head - 1;
      this.slots[at] = i + 1;
      this.hashes[at] = h;
    }
  }

  /** The table position holding hash `h`, or the empty position where it would go. */
  private find(h: number): number {
    let at = mix(h) & this.mask;
    while (this.slots[at] !== 0 && this.hashes[at] !== h) at = (at + 1) & this.mask;
    return at;
  }

  private grow(n: number): void {
    const cap = Math.max(n, this.g.length * 2);
    const re = <T extends Uint32Array | Int32Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(cap);
      b.set(a);
      return b;
    };
    this.cols[0] = re(this.cols[0]);
    this.cols[1] = re(this.cols[1]);
    this.cols[2] = re(this.cols[2]);
    (this as { g: Uint32Array }).g = re(this.g);
    this.next = re(this.next);
  }

  private hashAt(i: number): number {
    const kp = this.keyPositions;
    if (kp.length === 1) return this.cols[kp[0]!]![i]! | 0;
    let h = 0x811c9dc5;
    for (const k of kp) h = Math.imul(h ^ this.cols[k]![i]!, 0x01000193);
    return h | 0;
  }

  /** First quad whose key may equal `key` (then `nextOf`); -1 ends. Callers verify the key. */
  first(key: readonly number[]): number {
    let h: number;
    if (key.length === 1) h = key[0]! | 0;
    else {
      h = 0x811c9dc5;
      for (const k of key) h = Math.imul(h ^ k, 0x01000193);
      h |= 0;
    }
    const at = this.find(h);
    return this.slots[at]! - 1;
  }

  nextOf(i: number): number {
    return this.next[i]!;
  }
}

/** Spread ids (often consecutive) over the table. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return h ^ (h >>> 16);
}

/** The constant part of a pattern as a dataset pattern (variables as wildcards). */
export function constantPattern(p: PlanPattern, g: number | undefined): QuadPattern {
  return {
    s: p.s.kind === 'const' ? p.s.id : undefined,
    p: p.p.kind === 'const' ? p.p.id : undefined,
    o: p.o.kind === 'const' ? p.o.id : undefined,
    g,
  };
}
