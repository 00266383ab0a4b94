export * from './api.js';
export { parseUpdate, type ParsedUpdate } from './parse.js';
export { executeUpdate } from './execute.js';
export { createFileLoader, type LoadConverters } from './load.js';
