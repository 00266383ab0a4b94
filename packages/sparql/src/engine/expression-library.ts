/**
 * The one place the evaluator imports the expression library from (SPARQL 1.1 §17 operators and
 * functions, §18.5 set functions).
 */
export { compileExpression, effectiveBooleanValue, compareForOrderBy, compareForMinMax, createAggregator } from '../expressions/index.js';
export { arithmetic, numericLiteral, parseNumeric, type Numeric } from '../expressions/numeric.js';
export { makeDecimal } from '../expressions/decimal.js';
export { daysFromCivil, daysInMonth, parseDate, parseDateTime } from '../expressions/datetime.js';
