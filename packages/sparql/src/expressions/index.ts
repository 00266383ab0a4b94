/**
 * The SPARQL 1.1 expression library (§17 functions and operators, §18.5 set functions): compile
 * expressions to closures, effective boolean values, ORDER BY / MIN / MAX ordering, aggregators.
 */
export type { Aggregator, CompileExpression, CompiledExpression, ExpressionContext } from './api.js';
export { compileExpression } from './compile.js';
export { effectiveBooleanValue } from './ebv.js';
export { compareForMinMax, compareForOrderBy } from './order.js';
export { createAggregator } from './aggregates.js';
export { valueEquals, compareValues } from './comparison.js';
