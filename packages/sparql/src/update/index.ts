export * from './api.js';
export { parseUpdate, type ParsedUpdate } from './parse.js';
export { executeUpdate } from './execute.js';
export { createFileLoader } from './load.js';
