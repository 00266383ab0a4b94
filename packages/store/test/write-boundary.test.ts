/**
 * The store's write boundary (WriteOptions): with a `writable` predicate, a quad or pending label
 * the writer may not write is left as it is by adds, deletes and label assignments alike, through
 * `transaction`, `load` and a `PreparedLoad`; `commitEmpty` advances the txId of a write that
 * changed nothing (and survives a restart); `prepareLoad` checks everything before the lock.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LabelSyntaxError } from '@ianode/abac';
import { openStore, prepareLoad, StoreError, type KeyQuad, type QuadStore, type WriteOptions } from '@ianode/store';

const SECRET: KeyQuad = { s: '<http://e/s', p: '<http://e/p', o: '"secret"', g: '' };
const OPEN: KeyQuad = { s: '<http://e/s', p: '<http://e/p', o: '"open"', g: '' };
/** A writer who may write quads labelled `*` or `public` only. */
const writer: WriteOptions = { writable: (label) => label === '*' || label === 'public' };

async function seeded(): Promise<QuadStore> {
  const store = await openStore({ defaultLabel: '!' });
  await store.transaction((tx) => {
    tx.add(SECRET, 'cleared');
    tx.add(OPEN, '*');
  });
  return store;
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('writable: a quad the writer may not write is left as it is', () => {
  it('delete, relabel and re-add of the hidden quad change nothing; the visible one changes', async () => {
    const store = await seeded();
    await store.transaction((tx) => {
      tx.delete(SECRET);
      tx.add(SECRET, '*');
      tx.setLabel(SECRET, 'public');
      tx.setLabel(OPEN, 'public');
    }, writer);
    expect(store.labelOf(SECRET)).toBe('cleared');
    expect(store.labelOf(OPEN)).toBe('public');
    await store.transaction((tx) => {
      tx.delete(SECRET);
      tx.delete(OPEN);
    }, writer);
    expect(store.labelOf(SECRET)).toBe('cleared');
    expect(store.labelOf(OPEN)).toBeUndefined();
    // Without a predicate (in-process tools) everything may be written.
    await store.transaction((tx) => tx.setLabel(SECRET, '*'));
    expect(store.labelOf(SECRET)).toBe('*');
  });

  it('an unlabelled quad takes the default label, which the predicate is asked about', async () => {
    const store = await openStore({ defaultLabel: '!' });
    await store.transaction((tx) => tx.add(SECRET));
    await store.transaction((tx) => tx.setLabel(SECRET, '*'), writer);
    expect(store.labelOf(SECRET)).toBe('!');
  });

  it("the writer's own new quads are its to label, even from the default label it cannot see", async () => {
    const store = await openStore({ defaultLabel: '!' });
    const text = `PREFIX authz: <http://ndtp.co.uk/security#>
<http://e/new> <http://e/p> "1" .
<http://e/new> <http://e/p> "2" .
GRAPH authz:labels { [ authz:pattern '<http://e/new> <http://e/p> "1"' ; authz:label "*" ] . }`;
    await store.load(text, { format: 'application/trig', ...writer });
    expect(store.labelOf({ s: '<http://e/new', p: '<http://e/p', o: '"1"', g: '' })).toBe('*');
    expect(store.labelOf({ s: '<http://e/new', p: '<http://e/p', o: '"2"', g: '' })).toBe('!');
    // Added under a label it cannot see, then removed in the same transaction: never stored.
    await store.transaction((tx) => {
      tx.add(OPEN, 'cleared');
      tx.delete(OPEN);
    }, writer);
    expect(store.labelOf(OPEN)).toBeUndefined();
  });

  it('a throwing predicate fails the write closed: the commit is refused and nothing changes', async () => {
    const store = await seeded();
    await expect(store.transaction((tx) => {
      tx.delete(OPEN);
      tx.delete(SECRET);
    }, { writable: () => { throw new Error('hierarchy unavailable'); } })).rejects.toThrow('hierarchy unavailable');
    expect(store.labelOf(OPEN)).toBe('*');
    expect(store.labelOf(SECRET)).toBe('cleared');
  });

  it('load: the Security-Label and a labels-graph entry cannot relabel the hidden quad', async () => {
    const store = await seeded();
    await store.load('<http://e/s> <http://e/p> "secret" .', { format: 'application/n-triples', label: '*', ...writer });
    expect(store.labelOf(SECRET)).toBe('cleared');
    const entry = `PREFIX authz: <http://ndtp.co.uk/security#>
GRAPH authz:labels { [ authz:pattern '<http://e/s> <http://e/p> "secret"' ; authz:label "*" ] . [ authz:pattern '<http://e/s> <http://e/p> "open"' ; authz:label "!" ] . }`;
    await store.load(entry, { format: 'application/trig', ...writer });
    expect(store.labelOf(SECRET)).toBe('cleared');
    expect(store.labelOf(OPEN)).toBe('!');
    // A prepared load goes through the same rule.
    await store.load(await prepareLoad('<http://e/s> <http://e/p> "secret" .', { format: 'application/n-triples', label: 'public' }), writer);
    expect(store.labelOf(SECRET)).toBe('cleared');
  });

  it('a pending label the writer may not write stays, and an arriving quad takes it', async () => {
    const store = await openStore({ defaultLabel: '!' });
    await store.transaction((tx) => tx.setLabel(SECRET, 'cleared'));
    await store.transaction((tx) => tx.setLabel(SECRET, '*'), writer);
    await store.transaction((tx) => {
      tx.add(SECRET, '*');
      tx.setLabel(SECRET, '*');
    }, writer);
    expect(store.labelOf(SECRET)).toBe('cleared');
    // Arriving and leaving in one transaction keeps the pending label for a later arrival.
    const other: KeyQuad = { ...SECRET, o: '"other"' };
    await store.transaction((tx) => tx.setLabel(other, 'cleared'));
    await store.transaction((tx) => {
      tx.add(other, '*');
      tx.delete(other);
    }, writer);
    expect(store.labelOf(other)).toBeUndefined();
    await store.transaction((tx) => tx.add(other));
    expect(store.labelOf(other)).toBe('cleared');
    // A pending label the writer may write is theirs to replace.
    await store.transaction((tx) => tx.setLabel(OPEN, 'public'));
    await store.transaction((tx) => tx.setLabel(OPEN, '*'), writer);
    await store.transaction((tx) => tx.add(OPEN), writer);
    expect(store.labelOf(OPEN)).toBe('*');
  });
});

describe('commitEmpty', () => {
  it('advances the txId whether or not the write found the hidden quad, durably', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ianode-boundary-'));
    dirs.push(dir);
    const store = await openStore({ dir, defaultLabel: '!' });
    await store.transaction((tx) => tx.add(SECRET, 'cleared'));
    const before = store.stats().txId;
    const options = { ...writer, commitEmpty: true };
    const hidden = await store.write((tx) => tx.delete(SECRET), options);
    const absent = await store.write((tx) => tx.delete({ ...SECRET, o: '"never"' }), options);
    expect([hidden.txId, absent.txId]).toEqual([before + 1, before + 2]);
    // Without commitEmpty a write that changed nothing keeps the txId.
    expect((await store.write((tx) => tx.delete(SECRET), writer)).txId).toBe(before + 2);
    await store.close();
    const reopened = await openStore({ dir, defaultLabel: '!' });
    expect(reopened.stats().txId).toBe(before + 2);
    expect(reopened.labelOf(SECRET)).toBe('cleared');
    await reopened.transaction((tx) => tx.add(OPEN, '*'));
    expect(reopened.stats().txId).toBe(before + 3);
    await reopened.close();
  });
});

describe('prepareLoad', () => {
  it('loads the same quads, labels and pending labels as a direct load', async () => {
    const text = `PREFIX authz: <http://ndtp.co.uk/security#>
PREFIX : <http://e/>
:a :p "1" . GRAPH :g { :a :p :b . }
GRAPH authz:labels { [ authz:pattern ':a :p "1"' ; authz:label "x" ] . [ authz:pattern ':later :p "2"' ; authz:label "y" ] . }`;
    const direct = await openStore();
    const prepared = await openStore();
    const r1 = await direct.load(text, { format: 'application/trig', label: 'h' });
    const r2 = await prepared.load(await prepareLoad(text, { format: 'application/trig', label: 'h' }));
    expect(r2).toEqual(r1);
    expect(r2).toMatchObject({ quads: 2, triples: 1, labels: 2 });
    for (const store of [direct, prepared]) {
      expect(store.labelOf({ s: '<http://e/a', p: '<http://e/p', o: '"1"', g: '' })).toBe('x');
      expect(store.labelOf({ s: '<http://e/a', p: '<http://e/p', o: '<http://e/b', g: '<http://e/g' })).toBe('h');
      await store.transaction((tx) => tx.add({ s: '<http://e/later', p: '<http://e/p', o: '"2"', g: '' }));
      expect(store.labelOf({ s: '<http://e/later', p: '<http://e/p', o: '"2"', g: '' })).toBe('y');
    }
  });

  it('syntax, Security-Label and labels-graph errors are thrown before any store is involved', async () => {
    await expect(prepareLoad('<a> <b> .', { format: 'application/n-triples' })).rejects.toMatchObject({ line: 1 });
    await expect(prepareLoad('<http://e/a> <http://e/b> <http://e/c> .', { format: 'application/n-triples', label: 'a & (' })).rejects.toBeInstanceOf(LabelSyntaxError);
    const bad = `PREFIX authz: <http://ndtp.co.uk/security#>
GRAPH authz:labels { [ authz:pattern '<http://e/a> <http://e/p> "1"' ; authz:label "a &" ] . }`;
    await expect(prepareLoad(bad, { format: 'application/trig' })).rejects.toBeInstanceOf(StoreError);
  });
});
