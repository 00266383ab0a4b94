/**
 * The one seeded PRNG of the tests: the same seed gives the same data on every run, so a failing
 * case is replayed from the seed its message names. (The benchmarks' generator, bench/lib/random.mjs,
 * is the same function; it stays plain JavaScript so the benchmarks run without a build.)
 */

/** mulberry32: a small, fast, well-mixed 32-bit PRNG (not for anything security related). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws over mulberry32 for generators: integers, coin flips, picks and subsets. */
export class Rng {
  private readonly next: () => number;
  constructor(readonly seed: number) {
    this.next = mulberry32(seed);
  }
  /** Uniform in [0, 1). */
  float(): number {
    return this.next();
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[this.int(items.length)]!;
  }
  /** Each item kept with probability p, order kept. */
  subset<T>(items: readonly T[], p = 0.5): T[] {
    return items.filter(() => this.chance(p));
  }
}
