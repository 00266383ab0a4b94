export * from './api.js';
export { SparqlError, ExpressionError, isStackOverflow, type SparqlErrorCode } from './errors.js';
export { parseQuery, unescapeCodepoints, type ParsedQuery, type ParseOptions } from './algebra/parse.js';
export { executeQuery, executeAlgebra, explainQuery } from './engine/execute.js';
export * from './results/index.js';
export * from './update/index.js';
