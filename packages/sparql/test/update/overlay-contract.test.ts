/**
 * The Dataset contract (@ianode/testkit) on the update overlay: what an operation of an update
 * request reads (the caller's view plus the request's earlier adds and deletes). It holds no labels,
 * so the suite checks that it refuses to be narrowed instead of comparing views.
 */
import { openStore, type QuadStore } from '@ianode/store';
import { buildReference, describeDatasetContract, type ContractInput, type KeyQuad } from '@ianode/testkit';
import { OverlayDataset } from '../../src/update/overlay.js';

/** Quads the overlay adds and then deletes again within the "request". */
const NOISE: KeyQuad[] = Array.from({ length: 10 }, (_, i) => ({
  s: `<http://ex/overlay-noise/s${i}`,
  p: i % 2 === 0 ? '<http://ex/p0' : `<http://ex/overlay-noise/p${i}`,
  o: `"overlay noise ${i}"`,
  g: i % 3 === 0 ? '' : '<http://ex/overlay-noise-graph',
}));

function ids(overlay: OverlayDataset, q: KeyQuad) {
  return { s: overlay.idOfKey(q.s), p: overlay.idOfKey(q.p), o: overlay.idOfKey(q.o), g: overlay.idOfKey(q.g) };
}

async function storeWith(input: ContractInput, quads: ContractInput['quads']): Promise<QuadStore> {
  const store = await openStore({ defaultLabel: input.defaultLabel });
  await store.transaction((tx) => {
    for (const { label, ...q } of quads) tx.add(q, label);
  });
  return store;
}

describeDatasetContract(
  'update overlay, clean, over a store view',
  async (input) => {
    const store = await storeWith(input, input.quads);
    return { dataset: new OverlayDataset(store.view(() => true)), close: () => store.close() };
  },
  { views: false },
);

describeDatasetContract(
  'update overlay over a store holding half the data: the rest added, noise added and deleted, base quads deleted and added back',
  async (input) => {
    const half = Math.floor(input.quads.length / 2);
    const store = await storeWith(input, input.quads.slice(0, half));
    const overlay = new OverlayDataset(store.view(() => true));
    for (const q of NOISE) overlay.add(ids(overlay, q), true);
    for (const q of input.quads.slice(half)) overlay.add(ids(overlay, q), true);
    for (const q of NOISE) {
      const id = ids(overlay, q);
      if (overlay.has(id)) overlay.delete(id);
    }
    // Every third stored quad deleted and then added back: the overlay must show it once.
    for (const q of input.quads.slice(0, half).filter((_, i) => i % 3 === 0)) {
      const id = ids(overlay, q);
      if (overlay.has(id)) overlay.delete(id);
      overlay.add(id, true);
    }
    return { dataset: overlay, close: () => store.close() };
  },
  { views: false },
);

describeDatasetContract(
  'update overlay over the reference dataset, every quad added by the overlay',
  async (input) => {
    const overlay = new OverlayDataset(buildReference([], input.defaultLabel));
    for (const q of input.quads) overlay.add(ids(overlay, q), true);
    return { dataset: overlay, close: async () => {} };
  },
  { views: false },
);
