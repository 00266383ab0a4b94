/**
 * The order in which `npm test` hands test files to vitest's workers: longest first (so the last
 * file to finish is a short one and both cores stay busy to the end), by the duration vitest cached
 * from this machine's last run, else by test/durations.json (committed, so a fresh clone — CI —
 * packs as well as a warm one), else unknown files first. The tests inside each file still run
 * shuffled with the printed seed (vitest.config.ts): that is what catches order dependence, since
 * every file runs in its own process.
 * Refresh the table after a run: `node scripts/test-durations.mjs REPORT.json` (a JSON report).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const TABLE = path.join(import.meta.dirname, 'durations.json');

function committed(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(TABLE, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const table = committed();
    const root = this.ctx.config.root;
    const duration = (spec: TestSpecification): number | undefined => {
      const file = path.relative(root, spec.moduleId).split(path.sep).join('/');
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`);
      return cached?.duration ?? (table[file] !== undefined ? table[file] * 1000 : undefined);
    };
    return [...files].sort((a, b) => {
      const da = duration(a);
      const db = duration(b);
      if (da === undefined || db === undefined) return da === undefined ? (db === undefined ? 0 : -1) : 1;
      return db - da;
    });
  }
}
