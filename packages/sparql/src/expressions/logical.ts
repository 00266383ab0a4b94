/**
 * Logical forms (SPARQL 1.1 §17.4.1, §17.2 error-tolerant three-valued logic): `||`, `&&`, `!`,
 * IF and COALESCE. Only ExpressionError counts as SPARQL's "error"; anything else (a timeout
 * raised inside EXISTS) propagates untouched.
 */
import { ExpressionError } from '../errors.js';
import { effectiveBooleanValue } from './ebv.js';
import { bool, fail, FALSE, TRUE } from './literals.js';
import type { Evaluator, FunctionTable } from './functions.js';
import { fn1, special } from './functions.js';

export function isExpressionError(error: unknown): error is ExpressionError {
  return error instanceof ExpressionError;
}

/** `A || B`: true if either is true, false if both are false, an error otherwise. */
function or(a: Evaluator, b: Evaluator): Evaluator {
  return (ctx) => {
    let leftError: ExpressionError | undefined;
    try {
      if (effectiveBooleanValue(a(ctx))) return TRUE;
    } catch (error) {
      if (!isExpressionError(error)) throw error;
      leftError = error;
    }
    if (effectiveBooleanValue(b(ctx))) return TRUE;
    if (leftError) throw leftError;
    return FALSE;
  };
}

/** `A && B`: false if either is false, true if both are true, an error otherwise. */
function and(a: Evaluator, b: Evaluator): Evaluator {
  return (ctx) => {
    let leftError: ExpressionError | undefined;
    try {
      if (!effectiveBooleanValue(a(ctx))) return FALSE;
    } catch (error) {
      if (!isExpressionError(error)) throw error;
      leftError = error;
    }
    if (!effectiveBooleanValue(b(ctx))) return FALSE;
    if (leftError) throw leftError;
    return TRUE;
  };
}

export const logicalFunctions: FunctionTable = {
  '||': special(2, 2, (args) => or(args[0]!, args[1]!)),
  '&&': special(2, 2, (args) => and(args[0]!, args[1]!)),
  '!': fn1((a) => bool(!effectiveBooleanValue(a))),
  /** §17.4.1.2 IF: evaluates only the chosen branch. */
  if: special(3, 3, (args) => {
    const [cond, then, otherwise] = args as [Evaluator, Evaluator, Evaluator];
    return (ctx) => (effectiveBooleanValue(cond(ctx)) ? then(ctx) : otherwise(ctx));
  }),
  /** §17.4.1.4 COALESCE: the first argument that evaluates without error. */
  coalesce: special(0, Infinity, (args) => (ctx) => {
    for (const arg of args) {
      try {
        return arg(ctx);
      } catch (error) {
        if (!isExpressionError(error)) throw error;
      }
    }
    return fail('COALESCE: no argument has a value');
  }),
};
