import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.js';

/**
 * `npm test`: every file in its own process (`forks`), two at a time on a 2-core machine (vitest's
 * default is cores - 1, which left one core idle while a test waited on a socket or a child),
 * longest files first (test/sequencer.ts). The tests inside each file run shuffled (issue 20) with
 * a printed seed (`Running tests with seed …`), replayed with `--sequence.seed=N`: every test sets up
 * what it reads, so it passes alone (`npm run test:alone -- FILE` checks a file test by test) and in
 * any order. Files cannot depend on each other's order: each runs in a fresh process.
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    sequence: { shuffle: { files: false, tests: true }, sequencer: LongestFirst },
  },
});
