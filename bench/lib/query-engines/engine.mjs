/**
 * The shape every query adapter in this folder exports as `open(config)`: load the benchmark data
 * once, then answer SPARQL texts, counting (and optionally digesting) the complete answer.
 *
 * @typedef {object} QueryEngineConfig
 * @property {string} file the whole data set (N-Triples)
 * @property {string[]} slices the label slices of `file` (slices.mjs), slice k labelled `l<k>`
 * @property {string[]} attributes the ABAC caller's attributes, e.g. ['l0', 'l2', ...]
 *
 * @typedef {object} RunOptions
 * @property {number} timeoutMs stop the query after this long (engines that cannot be
 *   interrupted report the overrun after the fact)
 * @property {import('../results.mjs').Digest} [digest] receives every row's canonical key
 *
 * @typedef {object} QueryEngine
 * @property {() => Promise<{ quads: number }>} load load the data (timed by the caller)
 * @property {(text: string, options: RunOptions) => Promise<number>} run evaluate and consume the
 *   whole answer; resolves to the number of solutions / quads (1 for ASK); rejects with
 *   QueryTimeout after `timeoutMs`
 * @property {() => Record<string, unknown>} info version and setup facts for the report
 * @property {() => Promise<void>} close
 */

/** Engines compared in the report, in their default order. */
export const QUERY_ENGINES = ['ianode', 'ianode-abac', 'oxigraph', 'comunica'];

/** Engines run only to check another one's answers: ianode-abac against a store that physically
 * holds only the slices its caller may see. */
export const CHECK_ENGINES = { 'ianode-abac': 'ianode-filtered' };

export class QueryTimeout extends Error {
  /** @param {number} ms */
  constructor(ms) {
    super(`timed out after ${ms / 1000} s`);
    this.name = 'QueryTimeout';
  }
}

/** The slice k of `config.slices` the ABAC caller may see (label `l<k>` among its attributes). */
export function visibleSlices(/** @type {QueryEngineConfig} */ config) {
  return config.slices.filter((_, k) => config.attributes.includes(`l${k}`));
}
