export * from './terms.js';
export * from './dictionary.js';
export * from './dataset.js';
export * from './iri.js';
export * from './errors.js';
export * from './parse/index.js';
export * from './serialise/index.js';
