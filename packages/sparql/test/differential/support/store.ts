/** The store of a random data set: its transactions applied in order (adds with their labels,
 * deletes), one store transaction each. */
import { openStore, type QuadStore } from '@ianode/store';
import type { KeyQuad, RandomData } from './data.js';

export async function storeWith(data: RandomData): Promise<QuadStore> {
  const store = await openStore({ defaultLabel: data.defaultLabel });
  for (const ops of data.transactions) {
    await store.transaction((tx) => {
      for (const op of ops) {
        if (op.kind === 'add') tx.add(op.quad, op.label);
        else tx.delete(op.quad);
      }
    });
  }
  return store;
}

/** The reference store of a user: exactly the quads given (in that order), every one visible. */
export async function referenceStore(quads: readonly KeyQuad[]): Promise<QuadStore> {
  const store = await openStore({ defaultLabel: '*' });
  await store.transaction((tx) => {
    for (const q of quads) tx.add({ s: q.s, p: q.p, o: q.o, g: q.g });
  });
  return store;
}
