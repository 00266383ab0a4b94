export type { QuadSerialiser, QuadSerialiserOptions } from './quad-serialiser.js';
export { createQuadSerialiser, serialiseQuads } from './quad-serialiser.js';
export { iriToNTriples, keyToNTriples, termToNTriples } from './n-triples-terms.js';
export { memoTermText, TERM_MEMO_LIMIT } from './term-memo.js';
