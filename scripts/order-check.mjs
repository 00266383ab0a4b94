#!/usr/bin/env node
// The second, smaller shuffled run that keeps order independence checked in CI without running the
// whole suite twice (issue 22). `npm test` already runs the tests inside every file in a random
// order with a printed seed; this runs, again with a new seed:
//   - every test file changed in the last N commits (default 10: the submission's own work), and
//   - one eighth of the other files, the eighth picked by the seed (a different slice each run, so
//     over runs every file is run in a second order),
// each test file in its own process as usual. Replay: `node scripts/order-check.mjs --seed=S`.
// Usage: order-check.mjs [--seed=S] [--commits=N] [--slices=K]
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit === undefined ? fallback : Number(hit.slice(name.length + 3));
};
const seed = arg('seed', Math.floor(Math.random() * 2 ** 31));
const commits = arg('commits', 10);
const slices = arg('slices', 8);

const isTest = (f) => /^(packages\/[^/]+\/test\/.*|test\/.*)\.test\.ts$/.test(f);
const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
const all = git('ls-files').stdout.split('\n').filter((f) => isTest(f) && !f.startsWith('test/e2e/')).sort();
const log = git('log', '--first-parent', '-m', `-${commits}`, '--name-only', '--format='); // a merge lists what it brought in
const changed = new Set(log.status === 0 ? log.stdout.split('\n').filter((f) => isTest(f) && all.includes(f)) : []);
const slice = seed % slices;
const sampled = all.filter((f) => !changed.has(f) && parseInt(createHash('sha1').update(f).digest('hex').slice(0, 8), 16) % slices === slice);
const files = [...changed, ...sampled];
console.log(`order check: seed ${seed}; ${changed.size} test files changed in the last ${commits} commits, and slice ${slice + 1} of ${slices} of the rest (${sampled.length} files)`);
if (files.length === 0) process.exit(0);
const run = spawnSync('npx', ['vitest', 'run', `--sequence.seed=${seed}`, ...files], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
