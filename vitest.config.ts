import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs shuffled (issue 20): files and the tests inside each file in a random order, with
 * a printed seed (`Running tests with seed …`), replayed with `--sequence.seed=N`. Every test sets
 * up what it reads, so it passes alone (`npm run test:alone -- FILE` checks a file test by test)
 * and in any order.
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    sequence: { shuffle: true },
  },
});
