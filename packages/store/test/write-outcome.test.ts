/**
 * `WriteOutcome` (api.ts): what a transaction did, counted per quad as the writer sees it (a quad or
 * pending label it may not write counts as absent), and `accept`, which refuses a transaction from
 * its outcome before anything is logged or applied.
 */
import { describe, expect, it } from 'vitest';
import { openStore, type KeyQuad, type QuadStore, type WriteOptions } from '@ianode/store';

const q = (o: string): KeyQuad => ({ s: '<http://e/s', p: '<http://e/p', o: `"${o}"`, g: '' });
const writer: WriteOptions = { writable: (label) => label === '*' || label === 'public', commitEmpty: true };

async function seeded(): Promise<QuadStore> {
  const store = await openStore({ defaultLabel: '!' });
  await store.transaction((tx) => {
    tx.add(q('secret'), 'cleared');
    tx.add(q('open'), '*');
  });
  return store;
}

describe('WriteOutcome', () => {
  it('counts inserted, relabelled, unchanged and deleted per quad, with the resulting labels', async () => {
    const store = await seeded();
    const { outcome } = await store.write((tx) => {
      tx.add(q('open'), '*'); // already there, same label
      tx.add(q('new'), 'public');
      tx.add(q('new'), 'public'); // twice in one request: one quad
      tx.add(q('default')); // the default label, by its text
      tx.delete(q('gone-never-there'));
    });
    expect(outcome).toEqual({
      inserted: 2, relabelled: 0, deleted: 0, unchanged: 1,
      labels: [{ label: '!', quads: 1 }, { label: '*', quads: 1 }, { label: 'public', quads: 1 }],
    });
    const relabel = await store.write((tx) => {
      tx.add(q('open'), 'public');
      tx.delete(q('new'));
    });
    expect(relabel.outcome).toEqual({ inserted: 0, relabelled: 1, deleted: 1, unchanged: 0, labels: [{ label: 'public', quads: 1 }] });
  });

  it('as the writer sees it: a quad it may not write counts as absent, whether it exists or not', async () => {
    const withHidden = await seeded();
    const without = await openStore({ defaultLabel: '!' });
    await without.transaction((tx) => tx.add(q('open'), '*'));
    for (const store of [withHidden, without]) {
      const add = await store.write((tx) => tx.add(q('secret'), 'public'), writer);
      expect(add.outcome).toEqual({ inserted: 1, relabelled: 0, deleted: 0, unchanged: 0, labels: [{ label: 'public', quads: 1 }] });
      const del = await store.write((tx) => tx.delete(q('secret')), writer);
      // In the store with the hidden quad nothing changed; without it, the writer's own quad went.
      expect(del.outcome.labels).toEqual([]);
    }
    expect(withHidden.labelOf(q('secret'))).toBe('cleared');
  });

  it('a pending label the writer may not write is not reported: the writer is told its own label', async () => {
    const store = await openStore({ defaultLabel: '!' });
    await store.transaction((tx) => tx.setLabel(q('later'), 'cleared'));
    const { outcome } = await store.write((tx) => tx.add(q('later'), 'public'), writer);
    expect(outcome.labels).toEqual([{ label: 'public', quads: 1 }]);
    expect(store.labelOf(q('later'))).toBe('cleared'); // the pending label decides, as before
  });

  it('accept refuses the transaction from its outcome: nothing is stored and the txId does not move', async () => {
    const store = await seeded();
    const before = store.stats();
    const refusal = new Error('refused');
    await expect(
      store.write((tx) => tx.add(q('x'), 'public'), { ...writer, accept: (outcome) => {
        expect(outcome.labels).toEqual([{ label: 'public', quads: 1 }]);
        throw refusal;
      } }),
    ).rejects.toBe(refusal);
    await expect(store.load('<http://e/s> <http://e/p> "y" .', { format: 'application/n-triples', accept: () => { throw refusal; } })).rejects.toBe(refusal);
    expect(store.labelOf(q('x'))).toBeUndefined();
    expect(store.labelOf(q('y'))).toBeUndefined();
    expect(store.stats()).toEqual(before);
  });
});
