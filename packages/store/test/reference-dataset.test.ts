/** Runs the Dataset contract against the reference itself, so the suite is known to pass on a correct dataset. */
import { buildReference, describeDatasetContract } from '@ianode/testkit';

describeDatasetContract('reference dataset', async ({ quads, defaultLabel }) => ({
  dataset: buildReference(quads, defaultLabel),
  close: async () => {},
}));
