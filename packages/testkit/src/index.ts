/**
 * @ianode/testkit: what the packages' tests share (dev only; no service depends on it).
 * - random.ts: the seeded PRNG (`mulberry32`, `Rng`)
 * - clock.ts: fake clocks for expiries and deadlines
 * - fixtures.ts: data several suites load (the SPEC §3 example)
 * - rdf-xml.ts: RDF/XML read back with an independent parser
 * - temp-dirs.ts: temporary folders removed after a test file
 * - reference-dataset.ts, random-data.ts: the naive reference Dataset and seeded labelled data
 * - dataset-contract.ts: the Dataset contract suite, run on every Dataset implementation
 */
export * from './random.js';
export * from './clock.js';
export * from './fixtures.js';
export * from './rdf-xml.js';
export * from './temp-dirs.js';
export * from './reference-dataset.js';
export * from './random-data.js';
export * from './dataset-contract.js';
