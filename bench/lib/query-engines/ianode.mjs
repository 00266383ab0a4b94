/** ianode without access control: the whole file in one load, default label `*`, and each query
 * run on a snapshot of the store (no view, so no per-quad label check). */
import { openIanode } from './ianode-common.mjs';

/** @param {import('./engine.mjs').QueryEngineConfig} config */
export function open(config) {
  return openIanode({ loads: [{ file: config.file }], describe: { abac: 'off', loads: 1 } });
}
