/**
 * Compaction (ARCHITECTURE.md, "Store"): rows of deleted quads are dropped from memory and, by
 * the checkpoint that follows, from disk. The store must then hold exactly the live quads with
 * their labels and pending labels, snapshots taken before must read what they read, and a reopen
 * must give the same data.
 */
import { describe, expect, it } from 'vitest';
import { openStore, type KeyQuad, type QuadStore, type StoreOptions, type WriteTransaction } from '@ianode/store';
import { keyText, lines, quadsOf } from './support/quads.js';
import { LABEL_POOL, Rng, tempDirs } from '@ianode/testkit';

const tempDir = tempDirs('compaction');

const DEFAULT_LABEL = '!';

function quad(i: number, graph = i % 4 === 0 ? '<http://ex/g' + (i % 3) : ''): KeyQuad {
  return { s: `<http://ex/s${i % 97}`, p: `<http://ex/p${i % 5}`, o: `"${i}"`, g: graph };
}

/** The expected store: quad line -> label text, plus pending labels of absent quads. */
class Reference {
  readonly quads = new Map<string, { quad: KeyQuad; label: string }>();
  readonly pending = new Map<string, string>();

  add(q: KeyQuad, label: string | undefined): void {
    const k = keyText(q);
    const current = this.quads.get(k);
    const l = label ?? current?.label ?? this.pending.get(k) ?? DEFAULT_LABEL;
    this.quads.set(k, { quad: q, label: l });
    this.pending.delete(k);
  }
  delete(q: KeyQuad): void {
    this.quads.delete(keyText(q));
  }
  setLabel(q: KeyQuad, label: string): void {
    const k = keyText(q);
    const current = this.quads.get(k);
    if (current) current.label = label;
    else this.pending.set(k, label);
  }
  lines(): string[] {
    return [...this.quads.keys()].sort();
  }
}

/** Random adds (with and without labels), deletes and label changes, applied to the store, its
 * twin that never compacts, and the reference. */
async function churn(store: QuadStore, twin: QuadStore, ref: Reference, rng: Rng, txs: number, opsPerTx: number): Promise<void> {
  for (let t = 0; t < txs; t++) {
    const ops: ((tx: WriteTransaction) => void)[] = [];
    const body = (tx: WriteTransaction) => {
      for (const op of ops) op(tx);
    };
    {
      const tx = {
        add: (q: KeyQuad, label?: string) => ops.push((t) => t.add(q, label)),
        delete: (q: KeyQuad) => ops.push((t) => t.delete(q)),
        setLabel: (q: KeyQuad, label: string) => ops.push((t) => t.setLabel(q, label)),
      };
      for (let k = 0; k < opsPerTx; k++) {
        const q = quad(rng.int(600));
        const r = rng.int(10);
        if (r < 4) {
          const label = rng.chance(0.3) ? undefined : rng.pick(LABEL_POOL);
          tx.add(q, label);
          ref.add(q, label);
        } else if (r < 8) {
          tx.delete(q);
          ref.delete(q);
        } else {
          const label = rng.pick(LABEL_POOL);
          tx.setLabel(q, label);
          ref.setLabel(q, label);
        }
      }
    }
    await store.transaction(body);
    await twin.transaction(body);
  }
}

/** The quads and labels of the reference set, in the store and in its twin that never compacts. */
function expectSame(store: QuadStore, twin: QuadStore, ref: Reference): void {
  expect(quadsOf(store)).toEqual(ref.lines());
  expect(quadsOf(twin)).toEqual(ref.lines());
  expect(store.stats().quads).toBe(ref.quads.size);
  const labels = new Map<string, string>();
  for (const { quad: q, label: expected } of ref.quads.values()) {
    const label = twin.labelOf(q)!;
    expect(label, keyText(q)).toBe(expected);
    expect(store.labelOf(q), keyText(q)).toBe(label);
    labels.set(keyText(q), label);
  }
  // Each label's view holds exactly the quads with that label (the mask reads the row's label).
  for (const label of new Set(labels.values())) {
    const expected = [...labels].filter(([, l]) => l === label).map(([k]) => k).sort();
    expect(quadsOf(store.view((l) => l === label)), label).toEqual(expected);
  }
}

describe('compaction', () => {
  it('keeps exactly the live quads, labels and pending labels, in memory and after a reopen', async () => {
    const dir = await tempDir();
    const options: StoreOptions = { dir, fsync: false, compactMinDeleted: 50 };
    const ref = new Reference();
    const rng = new Rng(7);
    const twin = await openStore({ compactDeletedFraction: 2 });
    let store = await openStore(options);
    await churn(store, twin, ref, rng, 60, 40);
    expectSame(store, twin, ref);
    expect(store.stats().compactions).toBeGreaterThan(0);
    // Some deleted rows are left below the threshold; compact() drops them all.
    await store.compact();
    expect(store.stats().deletedRows).toBe(0);
    expect(store.stats().rows).toBe(ref.quads.size);
    expectSame(store, twin, ref);
    // Pending labels survive: they apply when their quad arrives after the compaction.
    const pendingKey = [...ref.pending.keys()][0];
    expect(pendingKey).toBeDefined();
    const [s, p, o, g] = pendingKey!.split(' ') as [string, string, string, string];
    const q = { s, p, o, g };
    await store.transaction((tx) => tx.add(q));
    await twin.transaction((tx) => tx.add(q));
    ref.add(q, undefined);
    expect(store.labelOf(q)).toBe(twin.labelOf(q));
    expect(store.labelOf(q)).not.toBe(DEFAULT_LABEL);
    await churn(store, twin, ref, rng, 20, 40);
    expectSame(store, twin, ref);
    await store.close();

    store = await openStore(options);
    expectSame(store, twin, ref);
    await churn(store, twin, ref, rng, 20, 40);
    expectSame(store, twin, ref);
    await store.close();
    await twin.close();
  });

  it('shrinks the log by the checkpoint it writes', async () => {
    const dir = await tempDir();
    const store = await openStore({ dir, fsync: false, compactDeletedFraction: 2 }); // never by itself
    const all = Array.from({ length: 2000 }, (_, i) => quad(i, ''));
    for (let round = 0; round < 5; round++) {
      await store.transaction((tx) => all.forEach((q) => tx.add(q, 'employee')));
      await store.transaction((tx) => all.slice(0, 1500).forEach((q) => tx.delete(q)));
    }
    expect(store.stats().compactions).toBe(0);
    const before = store.stats();
    expect(before.deletedRows).toBe(7500 + 4 * 500); // and the rows of re-adding stored quads
    await store.compact();
    const after = store.stats();
    expect(after).toMatchObject({ quads: 500, rows: 500, deletedRows: 0, logBytes: 0, compactions: 1 });
    expect(after.txId).toBe(before.txId);
    await store.close();
    const reopened = await openStore({ dir, fsync: false });
    expect(quadsOf(reopened)).toEqual(lines(...all.slice(1500)));
    await reopened.close();
  });

  it('runs by itself only past both thresholds', async () => {
    const store = await openStore({ compactDeletedFraction: 0.25, compactMinDeleted: 100 });
    const all = Array.from({ length: 1000 }, (_, i) => quad(i));
    await store.transaction((tx) => all.forEach((q) => tx.add(q)));
    await store.transaction((tx) => all.slice(0, 99).forEach((q) => tx.delete(q))); // under the minimum
    expect(store.stats()).toMatchObject({ deletedRows: 99, compactions: 0 });
    await store.transaction((tx) => all.slice(99, 250).forEach((q) => tx.delete(q))); // 250 of 1000 rows: not > 25%
    expect(store.stats()).toMatchObject({ deletedRows: 250, compactions: 0 });
    await store.transaction((tx) => tx.delete(all[250]!)); // 251 of 1000
    expect(store.stats()).toMatchObject({ deletedRows: 0, rows: 749, compactions: 1 });
    expect(quadsOf(store)).toEqual(lines(...all.slice(251)));
    await store.close();
  });

  it('leaves snapshots taken before it reading their own state', async () => {
    const store = await openStore({ compactDeletedFraction: 2 });
    const all = Array.from({ length: 3000 }, (_, i) => quad(i));
    // Several commits, so the compaction sees several runs (and merges what shrank).
    for (let k = 0; k < 3000; k += 500) await store.transaction((tx) => all.slice(k, k + 500).forEach((q) => tx.add(q, 'employee')));
    await store.transaction((tx) => all.filter((_, i) => i % 3 !== 0).forEach((q) => tx.delete(q)));
    const beforeDelete = store.snapshot();
    const beforeLines = quadsOf(beforeDelete);
    await store.transaction((tx) => all.filter((_, i) => i % 3 === 0 && i % 2 === 0).forEach((q) => tx.delete(q)));
    const snapshot = store.snapshot();
    const snapshotLines = quadsOf(snapshot);
    // A reader in the middle of a scan when the compaction lands.
    const reading = snapshot.match({})[Symbol.iterator]();
    const first = reading.next();
    await store.compact();
    // New commits after the compaction write to the new columns, never to the old ones.
    await store.transaction((tx) => all.slice(0, 900).forEach((q) => tx.add(q, '*')));
    const rest = [...{ [Symbol.iterator]: () => reading }];
    expect(1 + rest.length).toBe(snapshotLines.length);
    expect(first.done).toBe(false);
    expect(quadsOf(snapshot)).toEqual(snapshotLines);
    expect(quadsOf(beforeDelete)).toEqual(beforeLines);
    expect(quadsOf(snapshot.view((l) => l === 'employee'))).toEqual(snapshotLines);
    const live = all.filter((_, i) => i % 6 === 3 || i < 900);
    expect(quadsOf(store)).toEqual(lines(...live));
    expect(store.stats()).toMatchObject({ quads: live.length, compactions: 1 });
    await store.close();
  });

  it('is not triggered by loads into a store without deletes', async () => {
    const store = await openStore({ compactMinDeleted: 1 });
    const nt = Array.from({ length: 5000 }, (_, i) => `<http://ex/s${i}> <http://ex/p> "${i}" .`).join('\n');
    await store.load(nt, { format: 'application/n-triples', label: 'employee' });
    await store.load(nt, { format: 'application/n-triples', label: 'employee' }); // the same again: no change
    expect(store.stats()).toMatchObject({ quads: 5000, rows: 5000, deletedRows: 0, compactions: 0 });
    await store.close();
  });
});
