#!/usr/bin/env node
/**
 * Runs every test of the given test files on its own (issue 20: "every test passing alone and in
 * any order"), one vitest process per test, and lists those that fail when nothing else ran first.
 *
 *   node scripts/each-alone.mjs packages/idp/test/groups.test.ts [more files]
 *   npm run test:alone -- packages/idp/test/groups.test.ts
 *
 * The tests of a file come from `vitest list --json`; each is selected with `--testNamePattern=` on its name
 * (regular-expression characters escaped). A name shared by several tests selects them together,
 * which is still a run without the rest of the file. Exit status 1 when any test fails alone.
 */
import { spawnSync } from 'node:child_process';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node scripts/each-alone.mjs FILE.test.ts [FILE.test.ts ...]');
  process.exit(2);
}
const vitest = ['node_modules/vitest/vitest.mjs'];
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let failed = 0;
let ran = 0;
for (const file of files) {
  const listing = spawnSync(process.execPath, [...vitest, 'list', file, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (listing.status !== 0) {
    console.error(`${file}: vitest list failed\n${listing.stderr}`);
    failed++;
    continue;
  }
  const names = [...new Set(JSON.parse(listing.stdout).map((t) => t.name.split(' > ').at(-1)))];
  for (const name of names) {
    ran++;
    const run = spawnSync(process.execPath, [...vitest, 'run', file, `--testNamePattern=${escape(name)}`], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const ok = run.status === 0;
    if (!ok) failed++;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${file} > ${name}`);
    if (!ok) {
      // eslint-disable-next-line no-control-regex
      const plain = `${run.stdout}\n${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
      console.log(plain.split('\n').filter((l) => /Error|expected|❯ .*:\d+:\d+/.test(l)).slice(0, 8).map((l) => `     ${l.trim()}`).join('\n'));
    }
  }
}
console.log(`${ran} run alone, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
