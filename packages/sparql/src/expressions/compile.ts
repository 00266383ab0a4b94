/**
 * Compiles sparqlalgebrajs expressions (SPARQL 1.1 §17) into closures, once per query: operator
 * names and function IRIs are looked up here, never per evaluation. Calls of pure functions
 * whose arguments are all constants are evaluated at compile time.
 *
 * - `term`: a variable reads its slot (unbound is an error, except under BOUND / COALESCE /
 *   IF's unchosen branch, which never evaluate it); other terms are constants.
 * - `operator`: built-ins and operators, by sparqlalgebrajs' lower-cased name.
 * - `named`: function calls by IRI (the XSD casts); an unknown IRI evaluates to an error.
 * - `existence`: EXISTS / NOT EXISTS call `ctx.exists(pattern)`.
 * - `aggregate` and `wildcard` are not expressions of a solution: the evaluator handles them
 *   (see aggregates.ts); compiling one is a TypeError.
 */
import type { Algebra } from 'sparqlalgebrajs';
import type { Term } from '@ianode/rdf';
import type { CompileExpression, CompiledExpression, ExpressionContext } from './api.js';
import { arithmeticFunctions } from './arithmetic.js';
import { castFunctions } from './casts.js';
import { comparisonFunctions } from './comparison.js';
import { dateTimeFunctions } from './datetime-functions.js';
import type { Evaluator, FunctionDef, FunctionTable } from './functions.js';
import { constant, constantOf } from './functions.js';
import { hashFunctions } from './hash.js';
import { bool, expressionError, fail, FALSE, TRUE } from './literals.js';
import { isExpressionError, logicalFunctions } from './logical.js';
import { regexFunctions } from './regex.js';
import { stringFunctions } from './strings.js';
import { termFunctions } from './terms.js';

const BUILT_INS: FunctionTable = {
  ...logicalFunctions,
  ...comparisonFunctions,
  ...arithmeticFunctions,
  ...termFunctions,
  ...stringFunctions,
  ...regexFunctions,
  ...dateTimeFunctions,
  ...hashFunctions,
};

/** A context for folding constants: pure functions never touch it. */
const NO_CONTEXT: ExpressionContext = {
  value: () => undefined,
  exists: () => {
    throw new TypeError('EXISTS during constant folding');
  },
  now: new Date(0),
  baseIRI: undefined,
  bnode: () => {
    throw new TypeError('BNODE during constant folding');
  },
};

function failing(message: string): Evaluator {
  return () => fail(message);
}

function variable(name: string, slotOf: (name: string) => number): Evaluator {
  const slot = slotOf(name);
  // One error object per variable, thrown for every solution that leaves it unbound.
  const unbound = expressionError(`unbound variable ?${name}`);
  const raise = (): never => {
    throw unbound;
  };
  if (slot < 0) return raise;
  return (ctx) => ctx.value(slot) ?? raise();
}

function bound(arg: Algebra.Expression | undefined, slotOf: (name: string) => number): Evaluator {
  if (arg?.expressionType !== 'term' || arg.term.termType !== 'Variable') {
    throw new TypeError('BOUND takes a variable');
  }
  const slot = slotOf(arg.term.value);
  if (slot < 0) return constant(FALSE);
  return (ctx) => bool(ctx.value(slot) !== undefined);
}

function call(def: FunctionDef | undefined, name: string, args: Evaluator[]): Evaluator {
  if (def === undefined) return failing(`unknown function ${name}`);
  if (args.length < def.min || args.length > def.max) return failing(`${name}: wrong number of arguments (${args.length})`);
  const evaluator = def.build(args);
  if (!def.pure || !args.every((arg) => constantOf(arg) !== undefined)) return evaluator;
  try {
    return constant(evaluator(NO_CONTEXT));
  } catch (error) {
    if (isExpressionError(error)) return evaluator; // stays an error at run time
    throw error;
  }
}

function compile(expr: Algebra.Expression, slotOf: (name: string) => number): Evaluator {
  switch (expr.expressionType) {
    case 'term': {
      const term = (expr as Algebra.TermExpression).term;
      if (term.termType === 'Variable') return variable(term.value, slotOf);
      return constant(term as Term);
    }
    case 'operator': {
      const op = expr as Algebra.OperatorExpression;
      const name = op.operator.toLowerCase();
      if (name === 'bound') return bound(op.args[0], slotOf);
      const args = op.args.map((arg) => compile(arg, slotOf));
      return call(BUILT_INS[name], name.toUpperCase(), args);
    }
    case 'named': {
      const named = expr as Algebra.NamedExpression;
      const args = named.args.map((arg) => compile(arg, slotOf));
      return call(castFunctions[named.name.value], `<${named.name.value}>`, args);
    }
    case 'existence': {
      const { input, not } = expr as Algebra.ExistenceExpression;
      return not ? (ctx) => (ctx.exists(input) ? FALSE : TRUE) : (ctx) => (ctx.exists(input) ? TRUE : FALSE);
    }
    case 'aggregate':
      throw new TypeError('aggregate expressions are evaluated by the group operator, not compiled');
    case 'wildcard':
      throw new TypeError('a wildcard is only an argument of COUNT(*)');
    default:
      throw new TypeError(`unknown expression type ${String((expr as { expressionType: unknown }).expressionType)}`);
  }
}

/** Compiles an expression; see the module comment. */
export const compileExpression: CompileExpression = (expr, slotOf): CompiledExpression => compile(expr, slotOf);
