/**
 * Resolving a transaction's operations quad by quad (transaction.ts): an operation on one quad
 * must never be applied to another.
 */
import { describe, expect, it } from 'vitest';
import { openStore, type KeyQuad } from '@ianode/store';

function quad(s: string): KeyQuad {
  return { s: `<http://ex/${s}`, p: '<http://ex/p', o: '"o"', g: '' };
}

describe('transaction resolution', () => {
  it('a label set on a later quad, before an add of a stored quad, stays with its own quad', async () => {
    const store = await openStore({});
    const a = quad('a');
    const b = quad('b'); // interned after a: sorts after it
    await store.transaction((tx) => {
      tx.add(a, 'employee');
      tx.add(b, 'employee');
    });
    await store.transaction((tx) => {
      tx.setLabel(b, 'clearance=TS'); // an op recorded before the add below
      tx.add(a); // no label: keeps 'employee'
    });
    expect(store.labelOf(a)).toBe('employee');
    expect(store.labelOf(b)).toBe('clearance=TS');
    await store.close();
  });

  it('the same for a delete of a later quad', async () => {
    const store = await openStore({});
    const a = quad('a');
    const b = quad('b');
    await store.transaction((tx) => {
      tx.add(a, 'employee');
      tx.add(b, 'employee');
    });
    await store.transaction((tx) => {
      tx.delete(b);
      tx.add(a);
    });
    expect(store.labelOf(a)).toBe('employee');
    expect(store.labelOf(b)).toBeUndefined();
    expect(store.stats().quads).toBe(1);
    await store.close();
  });
});
