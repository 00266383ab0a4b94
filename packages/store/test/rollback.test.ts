/**
 * A refused or rolled-back transaction leaves no terms or labels behind: the dictionary and the
 * label table are back at their sizes from the start of the transaction, in memory and after a
 * reopen, also for a big load whose terms were already written ahead to the log.
 */
import { describe, expect, it } from 'vitest';
import { namedNode } from '@ianode/rdf';
import { openStore, type KeyQuad, type QuadStore } from '@ianode/store';
import { LogFaults } from './support/faulty-log.js';
import { lines, quadsOf } from './support/quads.js';
import { tempDirs } from '@ianode/testkit';

const tempDir = tempDirs('rollback');

function quad(name: string): KeyQuad {
  return { s: `<http://ex/${name}`, p: '<http://ex/p', o: `"${name}"`, g: `<http://ex/graph-${name}` };
}

/** N-Triples of `n` triples with two new terms each, and a syntax error on its last line. */
function refusedUpload(n: number, prefix: string): string {
  const body = Array.from({ length: n }, (_, i) => `<http://ex/${prefix}/s${i}> <http://ex/p> "${prefix} ${i}" .`).join('\n');
  return body + '\n<http://ex/broken> <http://ex/p> .\n';
}

function sizes(store: QuadStore): { terms: number; labels: number; quads: number } {
  const { terms, labels, quads } = store.stats();
  return { terms, labels, quads };
}

/** Closes `store` holding quads a and c, reopens `dir`: same sizes, same ids for c's terms, same quads. */
async function expectSameAfterReopen(store: QuadStore, dir: string): Promise<void> {
  const termsOfC = (s: QuadStore) => ['http://ex/c', 'http://ex/graph-c'].map((iri) => s.lookup(namedNode(iri)));
  const ids = termsOfC(store);
  const after = sizes(store);
  await store.close();
  const reopened = await openStore({ dir, fsync: false });
  try {
    expect(sizes(reopened)).toEqual(after);
    expect(termsOfC(reopened)).toEqual(ids);
    expect(quadsOf(reopened)).toEqual(lines(quad('a'), quad('c')));
  } finally {
    await reopened.close();
  }
}

describe('rollback', () => {
  it('leaves the dictionary and label table at their sizes, and their ids to the next commit', async () => {
    const store = await openStore({});
    await store.transaction((tx) => tx.add(quad('a'), 'employee'));
    const before = sizes(store);
    await expect(
      store.transaction((tx) => {
        tx.add(quad('b'), 'a & b');
        tx.setLabel(quad('c'), 'clearance=TS');
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(sizes(store)).toEqual(before);
    expect(store.lookup(namedNode('http://ex/b'))).toBeUndefined();
    // A transaction that changes nothing keeps nothing either.
    await store.transaction((tx) => {
      tx.add(quad('d'), 'nationality != GBR');
      tx.delete(quad('d'));
    });
    expect(sizes(store)).toEqual(before);
    // The ids are handed out again, to other terms.
    await store.transaction((tx) => tx.add(quad('e'), 'a | c'));
    expect(sizes(store)).toEqual({ terms: before.terms + 3, labels: before.labels + 1, quads: 2 });
    expect(store.labelOf(quad('e'))).toBe('a | c');
    expect(quadsOf(store)).toEqual(lines(quad('a'), quad('e')));
    await store.close();
  });

  it('a snapshot never answers ids of a transaction that has not committed', async () => {
    const store = await openStore({});
    await store.transaction((tx) => tx.add(quad('a')));
    let inside: number | undefined = -1;
    const refused = store.transaction((tx) => {
      tx.add(quad('new'));
      // The term is in the dictionary now, but the state readers see has no row of it.
      inside = store.snapshot().lookup(namedNode('http://ex/new'));
      throw new Error('refused');
    });
    await expect(refused).rejects.toThrow('refused');
    expect(inside).toBeUndefined();
    await store.close();
  });

  it('a refused big load whose terms were logged ahead leaves nothing, also after a reopen', async () => {
    const dir = await tempDir();
    const counted = new LogFaults();
    let store = await openStore({ dir, fsync: false, logFiles: counted.open });
    await store.transaction((tx) => tx.add(quad('a'), 'employee'));
    const before = { ...sizes(store), logBytes: store.stats().logBytes };
    const written = counted.bytesWritten;
    // 70 000 triples, 140 000 new terms: the loader reports progress every 65 536 quads, and the
    // store then writes the terms so far ahead of the commit (at least 64 000 of them).
    await expect(store.load(refusedUpload(70_000, 'big'), { format: 'application/n-triples', label: 'a & b' })).rejects.toThrow();
    expect(counted.bytesWritten - written).toBeGreaterThan(1_000_000);
    expect({ ...sizes(store), logBytes: store.stats().logBytes }).toEqual(before);
    // Two refused loads in a row, then a commit that creates terms at the same ids.
    await expect(store.load(refusedUpload(70_000, 'again'), { format: 'application/n-triples' })).rejects.toThrow();
    await store.transaction((tx) => tx.add(quad('b'), 'clearance=S'));
    const ids = ['http://ex/b', 'http://ex/graph-b'].map((iri) => store.lookup(namedNode(iri)));
    const after = sizes(store);
    expect(after.terms).toBe(before.terms + 3);
    await store.close();

    store = await openStore({ dir, fsync: false });
    expect(sizes(store)).toEqual(after);
    expect(['http://ex/b', 'http://ex/graph-b'].map((iri) => store.lookup(namedNode(iri)))).toEqual(ids);
    expect(quadsOf(store)).toEqual(lines(quad('a'), quad('b')));
    expect(store.labelOf(quad('b'))).toBe('clearance=S');
    await store.close();
  });

  it('when the log cannot be cut back after such a load, the next commit waits for it and ids still match', async () => {
    const dir = await tempDir();
    const faults = new LogFaults();
    const store = await openStore({ dir, fsync: false, logFiles: faults.open });
    await store.transaction((tx) => tx.add(quad('a')));
    const written = faults.bytesWritten;
    faults.truncates = true;
    await expect(store.load(refusedUpload(70_000, 'big'), { format: 'application/n-triples' })).rejects.toThrow();
    expect(faults.bytesWritten - written).toBeGreaterThan(1_000_000);
    // Terms written ahead are still in the file: a commit now would follow them with other ids.
    await expect(store.transaction((tx) => tx.add(quad('b')))).rejects.toMatchObject({ code: 'STORE_IO' });
    faults.truncates = false;
    await store.transaction((tx) => tx.add(quad('c')));
    await expectSameAfterReopen(store, dir);
  });

  it('after a stop before the cut-back, the abandoned terms are unused entries and ids still agree', async () => {
    const dir = await tempDir();
    const faults = new LogFaults();
    let store = await openStore({ dir, fsync: false, logFiles: faults.open });
    await store.transaction((tx) => tx.add(quad('a')));
    const before = sizes(store);
    faults.truncates = true;
    await expect(store.load(refusedUpload(70_000, 'big'), { format: 'application/n-triples' })).rejects.toThrow();
    expect(sizes(store)).toEqual(before);
    await store.close(); // as a crash would: the terms written ahead are still in the log

    store = await openStore({ dir, fsync: false });
    const replayed = sizes(store);
    expect(replayed.terms).toBeGreaterThan(before.terms); // the abandoned terms, used by no row
    expect(quadsOf(store)).toEqual(lines(quad('a')));
    expect(store.lookup(namedNode('http://ex/big/s0'))).toBeUndefined(); // no committed state knows it
    await store.transaction((tx) => tx.add(quad('c')));
    await expectSameAfterReopen(store, dir);
  });
});
