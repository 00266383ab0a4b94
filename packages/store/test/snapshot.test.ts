/**
 * Snapshot isolation and atomicity: a reader keeps the state it started with while commits land,
 * nobody sees a transaction before it commits, and a failed transaction leaves no quads, labels or
 * pending labels behind.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LabelSyntaxError } from '@ianode/abac';
import type { IdQuad } from '@ianode/rdf';
import { openStore, type KeyQuad, type QuadStore } from '@ianode/store';
import { holds, lines, quadsOf } from './support/quads.js';
import { tempDirs } from '@ianode/testkit';

const tempDir = tempDirs('snapshot');

const DEFAULT_LABEL = '!';

function quad(s: string, p: string, o: string, g = ''): KeyQuad {
  return { s: `<http://ex/${s}`, p: `<http://ex/${p}`, o, g: g && `<http://ex/${g}` };
}

const A = quad('a', 'p', '"1"');
const B = quad('b', 'p', '"2"');
const C = quad('c', 'p', '"3"', 'g1');
const NEW = quad('new-subject', 'new-predicate', '"new object"', 'new-graph');

/** `n` quads with subjects `<http://ex/{prefix}{i}`. */
function many(prefix: string, n: number): KeyQuad[] {
  return Array.from({ length: n }, (_, i) => quad(`${prefix}${i}`, 'p', `"${i}"`, i % 3 === 0 ? 'g2' : ''));
}

async function add(store: QuadStore, quads: KeyQuad[], label = '*'): Promise<void> {
  await store.transaction((tx) => {
    for (const q of quads) tx.add(q, label);
  });
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

/** Consumes up to `n` items of an iterator. */
function take<T>(it: Iterator<T>, n: number): T[] {
  const out: T[] = [];
  for (let r = it.next(); !r.done; r = it.next()) {
    out.push(r.value);
    if (out.length === n) break;
  }
  return out;
}

const kinds = [
  { kind: 'memory', open: () => openStore({ defaultLabel: DEFAULT_LABEL }) },
  { kind: 'durable', open: async () => openStore({ dir: await tempDir(), defaultLabel: DEFAULT_LABEL }) },
];

describe.each(kinds)('$kind store', ({ open }) => {
  let store: QuadStore;
  beforeEach(async () => {
    store = await open();
  });
  afterEach(async () => {
    await store.close();
  });

  describe('snapshot isolation', () => {
    it('a snapshot never sees later adds, deletes or re-labels', async () => {
      await add(store, [A, B]);
      const before = store.snapshot();
      await store.transaction((tx) => {
        tx.delete(A);
        tx.add(B, 'employee');
        tx.add(C, '*');
      });

      expect(quadsOf(before)).toEqual(lines(A, B));
      expect(before.count({})).toBe(2);
      expect(before.graphs()).toEqual([]);
      expect(quadsOf(before.view((label) => label === '*'))).toEqual(lines(A, B));

      expect(quadsOf(store)).toEqual(lines(B, C));
      expect(store.graphs().map((g) => store.key(g))).toEqual([C.g]);
      expect(quadsOf(store.view((label) => label === '*'))).toEqual(lines(C));
    });

    it('a snapshot keeps labels that setLabel and a labels graph later replace', async () => {
      await add(store, [A, B]);
      const before = store.snapshot();
      await store.transaction((tx) => tx.setLabel(A, 'employee'));
      const entry = `[ authz:pattern '${B.s}> ${B.p}> ${B.o}' ; authz:label "employee" ]`;
      await store.load(`PREFIX authz: <http://ndtp.co.uk/security#>\nGRAPH authz:labels { ${entry} }\n`, { format: 'application/trig' });
      expect([store.labelOf(A), store.labelOf(B)]).toEqual(['employee', 'employee']);
      expect(quadsOf(before.view((label) => label === '*'))).toEqual(lines(A, B));
      expect(quadsOf(store.view((label) => label === '*'))).toEqual([]);
    });

    it('a match iterated across a concurrent commit yields the state it started from', async () => {
      const old = many('old', 100);
      await add(store, old);
      const snapshot = store.snapshot();
      const readers = {
        snapshot: { it: snapshot.match({})[Symbol.iterator](), seen: [] as IdQuad[] },
        store: { it: store.match({})[Symbol.iterator](), seen: [] as IdQuad[] },
        view: { it: store.view(() => true).match({})[Symbol.iterator](), seen: [] as IdQuad[] },
      };
      const batches = snapshot.matchBatches({}, 7)[Symbol.iterator]();
      let batched = 0;
      const step = (n: number) => {
        for (const r of Object.values(readers)) r.seen.push(...take(r.it, n));
        const b = batches.next();
        if (!b.done) batched += b.value.length;
      };

      step(10);
      const commit = store.transaction(async (tx) => {
        for (const q of old) tx.delete(q);
        await tick();
        for (const q of many('young', 100)) tx.add(q, '*');
      });
      step(10);
      await tick(); // the body has deleted and is waiting
      step(10);
      await commit;
      expect(store.count({})).toBe(100);
      step(Infinity);
      for (let b = batches.next(); !b.done; b = batches.next()) batched += b.value.length;

      const expected = old.map((q) => q.s).sort();
      for (const [name, r] of Object.entries(readers)) {
        expect(r.seen.map((q) => store.key(q.s)).sort(), `${name} reader`).toEqual(expected);
      }
      expect(batched).toBe(100);
    });

    it('nobody sees a transaction before it commits', async () => {
      await add(store, [A]);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const commit = store.transaction(async (tx) => {
        tx.add(B, '*');
        tx.delete(A);
        await gate;
        tx.add(C, '*');
      });
      await tick();
      expect(quadsOf(store)).toEqual(lines(A));
      expect(store.stats().quads).toBe(1);
      release();
      await commit;
      expect(quadsOf(store)).toEqual(lines(B, C));
    });

    it('concurrent transactions both commit, one after the other', async () => {
      await Promise.all([
        store.transaction(async (tx) => {
          tx.add(A, '*');
          await tick();
          tx.add(B, '*');
        }),
        store.transaction((tx) => tx.add(C, '*')),
      ]);
      expect(quadsOf(store)).toEqual(lines(A, B, C));
    });
  });

  describe('failed transactions', () => {
    beforeEach(async () => {
      await add(store, [A, B]);
    });

    /** The state the beforeEach left, checked after every failure. */
    function expectUntouched(): void {
      expect(quadsOf(store)).toEqual(lines(A, B));
      expect(store.count({})).toBe(2);
      expect(store.stats().quads).toBe(2);
      expect(store.graphs()).toEqual([]);
      expect(store.labelOf(A)).toBe('*');
      expect(store.labelOf(NEW)).toBeUndefined();
      expect(holds(store, NEW)).toBe(false);
    }

    it('a body that throws leaves nothing behind', async () => {
      const snapshot = store.snapshot();
      await expect(
        store.transaction((tx) => {
          tx.add(NEW, '*');
          tx.delete(A);
          tx.add(B, 'employee');
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expectUntouched();
      expect(store.labelOf(B)).toBe('*');
      expect(quadsOf(snapshot)).toEqual(lines(A, B));
    });

    it('an async body that rejects after an await leaves nothing behind', async () => {
      await expect(
        store.transaction(async (tx) => {
          tx.add(NEW, '*');
          await tick();
          tx.setLabel(A, 'employee');
          throw new Error('late boom');
        }),
      ).rejects.toThrow('late boom');
      expectUntouched();
    });

    it('a malformed label fails the transaction with LabelSyntaxError', async () => {
      await expect(
        store.transaction((tx) => {
          tx.add(NEW, '*');
          tx.add(quad('x', 'p', '"bad"'), 'a & (');
        }),
      ).rejects.toBeInstanceOf(LabelSyntaxError);
      await expect(store.transaction((tx) => tx.setLabel(A, 'employee |'))).rejects.toBeInstanceOf(LabelSyntaxError);
      expectUntouched();
      expect(holds(store, quad('x', 'p', '"bad"'))).toBe(false);
    });

    it('a pending label set by a failed transaction is forgotten', async () => {
      await expect(
        store.transaction((tx) => {
          tx.setLabel(NEW, 'employee');
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      await store.transaction((tx) => tx.add(NEW));
      expect(store.labelOf(NEW)).toBe(DEFAULT_LABEL);
    });

    it('the store commits normally after a failure', async () => {
      await expect(store.transaction(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      await add(store, [C]);
      expect(quadsOf(store)).toEqual(lines(A, B, C));
      expect(store.labelOf(C)).toBe('*');
    });
  });
});

describe('durable store: failed transactions stay failed after reopening', () => {
  it('reopens with exactly the committed quads and labels', async () => {
    const dir = await tempDir();
    const first = await openStore({ dir, defaultLabel: DEFAULT_LABEL });
    await add(first, [A, B]);
    await expect(
      first.transaction((tx) => {
        tx.add(NEW, '*');
        tx.delete(A);
        tx.setLabel(C, 'employee');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await first.transaction((tx) => tx.add(C));
    await first.close();

    const reopened = await openStore({ dir, defaultLabel: DEFAULT_LABEL });
    try {
      expect(quadsOf(reopened)).toEqual(lines(A, B, C));
      expect(reopened.labelOf(C)).toBe(DEFAULT_LABEL);
      expect(holds(reopened, NEW)).toBe(false);
    } finally {
      await reopened.close();
    }
  });
});
