/**
 * A commit big enough to take the parallel path (index sorts on worker threads) must index
 * exactly like a small one: every pattern shape agrees with a brute-force scan of the input. Its
 * ~100k new terms are also logged ahead of the commit (standalone TERMS frames), so the reopen
 * checks their replay.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '@ianode/store';

const SUBJECTS = 30_000;
const PREDICATES = 8;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function* lines(): Generator<string> {
  let x = 7;
  for (let s = 0; s < SUBJECTS; s++) {
    for (let p = 0; p < PREDICATES; p++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const o = p % 2 === 0 ? `<http://ex/s${x % SUBJECTS}>` : p === 1 ? `"v${x % 5000}"` : `"u${s}-${p}"`;
      const g = s % 10 === 0 ? ` <http://ex/g${p % 3}>` : '';
      yield `<http://ex/s${s}> <http://ex/p${p}> ${o}${g} .\n`;
    }
  }
}

describe('bulk commit (parallel index sorts)', () => {
  it('answers every pattern shape like a brute-force scan', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ianode-bulk-'));
    dirs.push(dir);
    const text = [...lines()].join('');
    const store = await openStore({ dir, defaultLabel: '*' });
    const res = await store.load(text, { format: 'application/n-quads' });
    expect(res.quads).toBe(SUBJECTS * PREDICATES);
    const all = [...store.match({})];
    expect(all.length).toBe(SUBJECTS * PREDICATES); // the generator makes no duplicates
    // Pick sample quads and check each of the 16 shapes against a scan of `all`. One scan per
    // sample: each row's agreement with the sample (bit i set when position i is equal) is
    // tallied, and a shape matches exactly the rows that agree on all of its bound positions.
    const positions = ['s', 'p', 'o', 'g'] as const;
    for (let k = 0; k < 12; k++) {
      const q = all[(k * 7919) % all.length]!;
      const agreeing = new Array<number>(16).fill(0);
      for (const r of all) agreeing[(r.s === q.s ? 1 : 0) | (r.p === q.p ? 2 : 0) | (r.o === q.o ? 4 : 0) | (r.g === q.g ? 8 : 0)]!++;
      for (let mask = 0; mask < 16; mask++) {
        const pattern: Record<string, number> = {};
        positions.forEach((pos, i) => {
          if (mask & (1 << i)) pattern[pos] = q[pos];
        });
        let expected = 0;
        for (let agree = 0; agree < 16; agree++) if ((agree & mask) === mask) expected += agreeing[agree]!;
        expect(store.count(pattern), JSON.stringify(pattern)).toBe(expected);
        expect([...store.match(pattern)].length, JSON.stringify(pattern)).toBe(expected);
      }
    }
    await store.close();
    const again = await openStore({ dir, defaultLabel: '*' });
    expect(again.count({})).toBe(SUBJECTS * PREDICATES);
    await again.close();
  });
});
