#!/usr/bin/env node
// Writes test/durations.json (seconds per test file, the order test/sequencer.ts runs files in)
// from a vitest JSON report: `npx vitest run --reporter=json --outputFile=R.json`, then
// `node scripts/test-durations.mjs R.json`. Only the order depends on it, never a result.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const report = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8'));
const table = {};
for (const file of report.testResults) {
  table[path.relative(root, file.name).split(path.sep).join('/')] = Math.round((file.endTime - file.startTime) / 100) / 10;
}
const sorted = Object.fromEntries(Object.entries(table).sort((a, b) => b[1] - a[1]));
writeFileSync(path.join(root, 'test/durations.json'), `${JSON.stringify(sorted, null, 1)}\n`);
console.log(`test/durations.json: ${Object.keys(sorted).length} files`);
