/**
 * Seeded pseudo-random numbers for reproducible benchmark data. mulberry32: 32-bit state, fast,
 * good enough for data generation (not for anything security related).
 */

/**
 * @param {number} seed
 * @returns {() => number} uniform in [0, 1)
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * @typedef {object} Random
 * @property {() => number} next uniform in [0, 1)
 * @property {(min: number, max: number) => number} int uniform integer in [min, max]
 * @property {(p: number) => boolean} chance true with probability p
 * @property {(n: number) => number} skewed integer in [0, n), small values more likely
 */

/**
 * @param {number} seed
 * @returns {Random}
 */
export function createRandom(seed) {
  const next = mulberry32(seed);
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    skewed: (n) => Math.floor(n * next() * next()),
  };
}
