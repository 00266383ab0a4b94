/**
 * The Dataset contract against the store in every state a reader can meet it in: in memory,
 * durable after several commits, a snapshot overtaken by later commits, and reopened from disk
 * (log replay, checkpoint + log, automatic checkpoints).
 */
import { openStore, type QuadStore, type StoreOptions } from '@ianode/store';
import { describeDatasetContract, type ContractInput, type KeyQuad, type LabelledKeyQuad, tempDirs } from '@ianode/testkit';

const tempDir = tempDirs('store-contract');

/** Quads that are added in the first commit and deleted in the last, so replay must apply deletes. */
const NOISE: KeyQuad[] = Array.from({ length: 20 }, (_, i) => ({
  s: `<http://ex/noise/s${i}`,
  p: '<http://ex/p0',
  o: `"noise ${i}"`,
  g: i % 2 === 0 ? '' : '<http://ex/noise-graph',
}));

async function addAll(store: QuadStore, quads: readonly LabelledKeyQuad[], noise: 'add' | 'delete' | 'none' = 'none'): Promise<void> {
  await store.transaction((tx) => {
    if (noise === 'add') for (const q of NOISE) tx.add(q, '*');
    for (const { label, ...q } of quads) tx.add(q, label);
    if (noise === 'delete') for (const q of NOISE) tx.delete(q);
  });
}

/** One transaction per third of the data (three commits), with noise added then deleted. */
async function addInThirds(store: QuadStore, quads: readonly LabelledKeyQuad[], afterFirst?: () => Promise<void>): Promise<void> {
  const third = Math.ceil(quads.length / 3);
  await addAll(store, quads.slice(0, third), 'add');
  await afterFirst?.();
  await addAll(store, quads.slice(third, 2 * third));
  await addAll(store, quads.slice(2 * third), 'delete');
}

function durable(dir: string, input: ContractInput, extra: StoreOptions = {}): Promise<QuadStore> {
  return openStore({ dir, defaultLabel: input.defaultLabel, ...extra });
}

const served = (store: QuadStore) => ({ dataset: store, close: () => store.close() });

describeDatasetContract('memory store, one transaction', async (input) => {
  const store = await openStore({ defaultLabel: input.defaultLabel });
  await addAll(store, input.quads);
  return served(store);
});

describeDatasetContract('memory store, one transaction per quad', async (input) => {
  const store = await openStore({ defaultLabel: input.defaultLabel });
  for (const q of input.quads) await addAll(store, [q]);
  return served(store);
});

describeDatasetContract('durable store, three commits', async (input) => {
  const store = await durable(await tempDir(), input);
  await addInThirds(store, input.quads);
  return served(store);
});

describeDatasetContract('snapshot of a durable store, overtaken by later commits', async (input) => {
  const store = await durable(await tempDir(), input);
  await addInThirds(store, input.quads);
  const snapshot = store.snapshot();
  await store.transaction((tx) => {
    for (const q of input.quads.slice(0, input.quads.length / 2)) tx.delete(q);
    for (const q of NOISE) tx.add(q, '*');
  });
  return { dataset: snapshot, close: () => store.close() };
});

describeDatasetContract('durable store reopened (checkpoint + log replay)', async (input) => {
  const dir = await tempDir();
  const writer = await durable(dir, input);
  await addInThirds(writer, input.quads, () => writer.checkpoint());
  await writer.close();
  return served(await durable(dir, input));
});

describeDatasetContract('durable store reopened after checkpoint()', async (input) => {
  const dir = await tempDir();
  const writer = await durable(dir, input);
  await addInThirds(writer, input.quads);
  await writer.checkpoint();
  await writer.close();
  return served(await durable(dir, input));
});

describeDatasetContract('durable store with small checkpointBytes, reopened', async (input) => {
  const dir = await tempDir();
  const writer = await durable(dir, input, { checkpointBytes: 4096 });
  await addInThirds(writer, input.quads);
  await writer.close();
  return served(await durable(dir, input, { checkpointBytes: 4096 }));
});
