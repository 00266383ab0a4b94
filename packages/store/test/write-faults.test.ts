/**
 * A failing log write (a full disk) fails its transaction only: the log is cut back to the last
 * commit and later transactions go through once the fault clears, without a restart. When the
 * cut-back fails too, writes are refused while it still fails and the store recovers by itself
 * when it works again. An acknowledged write is never lost.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, StoreError, type KeyQuad, type QuadStore } from '@ianode/store';
import { LogFaults } from './support/faulty-log.js';
import { lines, quadsOf } from './support/quads.js';
import { tempDirs } from '@ianode/testkit';

const tempDir = tempDirs('faults');

function quad(n: number): KeyQuad {
  return { s: `<http://ex/s${n}`, p: '<http://ex/p', o: `"value ${n}"`, g: '' };
}

async function add(store: QuadStore, ...quads: KeyQuad[]): Promise<void> {
  await store.transaction((tx) => quads.forEach((q) => tx.add(q, 'employee')));
}

async function logSize(dir: string, store: QuadStore): Promise<number> {
  const { size } = await stat(join(dir, 'wal-0000000000.log'));
  expect(store.stats().logBytes).toBe(size);
  return size;
}

describe('log write faults', () => {
  it('a failed append fails its transaction only; the next one succeeds once space is back', async () => {
    const dir = await tempDir();
    const faults = new LogFaults();
    const store = await openStore({ dir, logFiles: faults.open });
    await add(store, quad(1));
    const before = { size: await logSize(dir, store), terms: store.stats().terms };
    faults.writes = true;
    const failed = add(store, quad(2));
    await expect(failed).rejects.toBeInstanceOf(StoreError);
    await expect(failed).rejects.toMatchObject({ code: 'STORE_IO' });
    expect(faults.failedWrites).toBeGreaterThan(0);
    // Cut back to the last commit: no half-written frames, no terms of the refused transaction.
    expect(await logSize(dir, store)).toBe(before.size);
    expect(store.stats().terms).toBe(before.terms);
    expect(quadsOf(store)).toEqual(lines(quad(1)));
    faults.writes = false;
    await add(store, quad(3));
    expect(quadsOf(store)).toEqual(lines(quad(1), quad(3)));
    const terms = store.stats().terms;
    await store.close();
    const reopened = await openStore({ dir });
    expect(quadsOf(reopened)).toEqual(lines(quad(1), quad(3)));
    expect(reopened.stats().terms).toBe(terms);
    await reopened.close();
  });

  it('refuses writes while the log cannot be cut back, and recovers by itself when it can', async () => {
    const dir = await tempDir();
    const faults = new LogFaults();
    const store = await openStore({ dir, logFiles: faults.open });
    await add(store, quad(1));
    const size = await logSize(dir, store);
    faults.writes = true;
    faults.truncates = true;
    await expect(add(store, quad(2))).rejects.toMatchObject({ code: 'STORE_IO' });
    // Half a frame sits past the last commit now.
    expect((await stat(join(dir, 'wal-0000000000.log'))).size).toBeGreaterThan(size);
    faults.writes = false;
    // Writing would work, but the tail is unknown until the cut-back works: still refused.
    await expect(add(store, quad(3))).rejects.toThrow(/could not be put back/);
    await expect(add(store, quad(3))).rejects.toThrow(/could not be put back/);
    faults.truncates = false;
    await add(store, quad(4));
    await add(store, quad(5));
    expect(quadsOf(store)).toEqual(lines(quad(1), quad(4), quad(5)));
    const terms = store.stats().terms;
    await store.close();
    const reopened = await openStore({ dir });
    expect(quadsOf(reopened)).toEqual(lines(quad(1), quad(4), quad(5)));
    expect(reopened.stats().terms).toBe(terms);
    await reopened.close();
  });
});
