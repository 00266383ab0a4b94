export * from './terms.js';
export * from './dictionary.js';
export * from './dataset.js';
