export * from './errors.js';
export * from './ast.js';
export * from './parser.js';
export * from './hierarchy.js';
export * from './attributes.js';
export * from './compile.js';
export * from './evaluator.js';
export { isWord, quote, TRUE, FALSE } from './words.js';
export * from './legacy.js';
