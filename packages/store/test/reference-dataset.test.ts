/** Runs the Dataset contract against the reference itself, so the suite is known to pass on a correct dataset. */
import { buildReference } from './support/reference-dataset.js';
import { describeDatasetContract } from './support/dataset-contract.js';

describeDatasetContract('reference dataset', async ({ quads, defaultLabel }) => ({
  dataset: buildReference(quads, defaultLabel),
  close: async () => {},
}));
