/**
 * The check for ianode-abac: a plain store (default label `*`, no view) holding only the slices
 * the ABAC caller may see. Its answers must equal ianode-abac's, row for row.
 */
import { visibleSlices } from './engine.mjs';
import { openIanode } from './ianode-common.mjs';

/** @param {import('./engine.mjs').QueryEngineConfig} config */
export function open(config) {
  const files = visibleSlices(config);
  return openIanode({ loads: files.map((file) => ({ file })), describe: { abac: 'off', loads: files.length, slices: 'visible only' } });
}
