/**
 * Commit metadata (`WriteOptions.meta`): recorded in the same durable commit as the transaction's
 * data, so after a crash either both are there or neither (the Kafka connector's exactly-once
 * apply rests on this: docs/kafka.md). Kept across checkpoints, compaction and reopening.
 */
import { readdir, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, type KeyQuad } from '@ianode/store';
import { tempDirs } from '@ianode/testkit';

const tempDir = tempDirs('commit-meta');

const quad = (i: number): KeyQuad => ({ s: `<http://ex/s${i}`, p: '<http://ex/p', o: `"${i}"`, g: '' });

async function newestLog(dir: string): Promise<string> {
  const logs = (await readdir(dir)).filter((name) => name.startsWith('wal-')).sort();
  return join(dir, logs.at(-1)!);
}

describe('commit metadata', () => {
  it('is committed with the data and read back after reopening', async () => {
    const dir = await tempDir();
    const store = await openStore({ dir });
    expect(store.meta('kafka:t:0')).toBeUndefined();
    await store.transaction((tx) => tx.add(quad(1), 'a'), { meta: { 'kafka:t:0': '0' } });
    await store.transaction((tx) => tx.add(quad(2), 'a'), { meta: { 'kafka:t:0': '1', 'kafka:t:1': '7' } });
    expect(store.meta('kafka:t:0')).toBe('1');
    await store.close();

    const reopened = await openStore({ dir });
    expect(reopened.meta('kafka:t:0')).toBe('1');
    expect(reopened.metaEntries()).toEqual([['kafka:t:0', '1'], ['kafka:t:1', '7']]);
    expect(reopened.stats().quads).toBe(2);
    await reopened.close();
  });

  it('a transaction with metadata and no change still commits and advances the txId', async () => {
    const store = await openStore({ dir: await tempDir() });
    const before = store.stats().txId;
    const { txId } = await store.write(() => undefined, { meta: { offset: '41' } });
    expect(txId).toBe(before + 1);
    expect(store.meta('offset')).toBe('41');
    await store.close();
  });

  it('a refused transaction records no metadata', async () => {
    const store = await openStore({ dir: await tempDir() });
    await store.transaction((tx) => tx.add(quad(1)), { meta: { offset: '1' } });
    await expect(
      store.transaction((tx) => tx.add(quad(2)), { meta: { offset: '2' }, accept: () => { throw new Error('refused'); } }),
    ).rejects.toThrow('refused');
    await expect(store.transaction(() => { throw new Error('body failed'); }, { meta: { offset: '3' } })).rejects.toThrow('body failed');
    expect(store.meta('offset')).toBe('1');
    expect(store.stats().quads).toBe(1);
    await store.close();
  });

  it('survives a checkpoint and compaction, and later commits overwrite it', async () => {
    const dir = await tempDir();
    const store = await openStore({ dir });
    await store.transaction((tx) => { for (let i = 0; i < 10; i++) tx.add(quad(i)); }, { meta: { offset: '9' } });
    await store.transaction((tx) => { for (let i = 0; i < 8; i++) tx.delete(quad(i)); }, { meta: { offset: '10' } });
    await store.compact();
    await store.checkpoint();
    expect(store.meta('offset')).toBe('10');
    await store.close();

    const afterCheckpoint = await openStore({ dir });
    expect(afterCheckpoint.meta('offset')).toBe('10');
    expect(afterCheckpoint.stats().quads).toBe(2);
    await afterCheckpoint.transaction((tx) => tx.add(quad(20)), { meta: { offset: '11' } });
    await afterCheckpoint.close();

    const again = await openStore({ dir });
    expect(again.meta('offset')).toBe('11');
    await again.close();
  });

  it('a torn last commit loses its data and its metadata together', async () => {
    const dir = await tempDir();
    const store = await openStore({ dir });
    await store.transaction((tx) => tx.add(quad(1)), { meta: { offset: '1' } });
    await store.transaction((tx) => tx.add(quad(2)), { meta: { offset: '2' } });
    await store.close();
    // Cut the last commit's COMMIT frame short, as a crash in mid-write leaves it.
    const log = await newestLog(dir);
    await truncate(log, (await stat(log)).size - 3);

    const reopened = await openStore({ dir });
    expect(reopened.meta('offset')).toBe('1');
    expect(reopened.stats().quads).toBe(1);
    expect(reopened.labelOf(quad(2))).toBeUndefined();
    await reopened.close();
  });

  it('a memory-only store keeps metadata too', async () => {
    const store = await openStore({});
    await store.transaction((tx) => tx.add(quad(1)), { meta: { offset: '5' } });
    expect(store.meta('offset')).toBe('5');
    await store.close();
  });
});
