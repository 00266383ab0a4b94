import { defineConfig } from 'vitest/config';

// `npm run test:e2e`: the newcomer's walk-through (SPEC §9) against a real `npm start`.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
