/**
 * `SnapshotDataset.labelled()`: the labelled quads of a state or view with their label text, for
 * the graph server's `GET /ds/labels` — quads under the dataset default left out, deleted quads
 * left out, a view's hidden quads left out.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, SnapshotDataset, type QuadStore } from '../src/index.js';

let store: QuadStore;
beforeEach(async () => {
  store = await openStore({ defaultLabel: '*' });
});
afterEach(async () => {
  await store.close();
});

const rows = (ds: SnapshotDataset) => [...ds.labelled()].map((q) => `${ds.key(q.g)}|${ds.key(q.s)} ${ds.key(q.p)} ${ds.key(q.o)}|${q.label}`).sort();

describe('labelled()', () => {
  it('lists quads with a label of their own, not those under the default; follows deletes and views', async () => {
    await store.load('<http://e/a> <http://e/p> "1" .\n<http://e/b> <http://e/p> "2" .', { format: 'application/n-triples', label: 'manager' });
    await store.load('<http://e/c> <http://e/p> "3" <http://e/g> .', { format: 'application/n-quads', label: 'engineer' });
    await store.load('<http://e/d> <http://e/p> "4" .', { format: 'application/n-triples' });
    const all = store.snapshot();
    expect(all).toBeInstanceOf(SnapshotDataset);
    expect(rows(all as SnapshotDataset)).toEqual([
      '<http://e/g|<http://e/c <http://e/p "3"|engineer',
      '|<http://e/a <http://e/p "1"|manager',
      '|<http://e/b <http://e/p "2"|manager',
    ]);
    const view = (all as SnapshotDataset).view((label) => label === 'engineer' || label === '*');
    expect(rows(view)).toEqual(['<http://e/g|<http://e/c <http://e/p "3"|engineer']);
    await store.transaction((tx) => tx.delete({ s: '<http://e/a', p: '<http://e/p', o: '"1"', g: '' }));
    expect(rows(store.snapshot() as SnapshotDataset)).toEqual([
      '<http://e/g|<http://e/c <http://e/p "3"|engineer',
      '|<http://e/b <http://e/p "2"|manager',
    ]);
  });
});
