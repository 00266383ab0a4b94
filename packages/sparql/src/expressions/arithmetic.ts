/**
 * Arithmetic (SPARQL 1.1 §17.3: op:numeric-add/subtract/multiply/divide, unary plus and minus)
 * and the numeric functions of §17.4.4: ABS, ROUND, CEIL, FLOOR, RAND.
 *
 * Results are canonical literals of the promoted type: `1 + 2.0` is `"3.0"^^xsd:decimal`,
 * `1 / 2` is `"0.5"^^xsd:decimal`, `1 / 0` is an error, `1.0e0 / 0` is `"INF"^^xsd:double`.
 */
import type { Term } from '@ianode/rdf';
import type { Evaluator, FunctionTable } from './functions.js';
import { fn0, fn1, special } from './functions.js';
import { datatypeOf } from './literals.js';
import { arithmetic, doubleLiteral, integerLiteral, negate, numericArg, numericLiteral, roundNumeric } from './numeric.js';
import { XSD_INTEGER } from './xsd.js';
import type { Rounding } from './numeric.js';

const SHORT_INTEGER = /^[+-]?\d{1,15}$/;

/** An xsd:integer small enough for exact double arithmetic, as a number; else undefined. */
function smallInteger(term: Term): number | undefined {
  if (term.termType !== 'Literal' || datatypeOf(term) !== XSD_INTEGER) return undefined;
  const text = term.value;
  return SHORT_INTEGER.test(text) ? Number(text) : undefined;
}

function binary(op: '+' | '-' | '*' | '/'): ReturnType<typeof special> {
  const name = `operator ${op}`;
  return special(2, 2, (args) => {
    const [a, b] = args as [Evaluator, Evaluator];
    return (ctx) => {
      const x = a(ctx);
      const y = b(ctx);
      if (op !== '/') {
        // Fast path: small integers, while the result stays a safe integer.
        const sx = smallInteger(x);
        const sy = sx === undefined ? undefined : smallInteger(y);
        if (sx !== undefined && sy !== undefined) {
          const r = op === '+' ? sx + sy : op === '-' ? sx - sy : sx * sy;
          if (Number.isSafeInteger(r)) return integerLiteral(r === 0 ? 0 : r);
        }
      }
      return numericLiteral(arithmetic(op, numericArg(x, name), numericArg(y, name)));
    };
  });
}

function rounding(kind: Rounding, name: string): ReturnType<typeof fn1> {
  return fn1((a: Term) => numericLiteral(roundNumeric(kind, numericArg(a, name))));
}

export const arithmeticFunctions: FunctionTable = {
  '+': binary('+'),
  '-': binary('-'),
  '*': binary('*'),
  '/': binary('/'),
  uminus: fn1((a) => numericLiteral(negate(numericArg(a, 'unary -')))),
  uplus: fn1((a) => numericLiteral(numericArg(a, 'unary +'))),
  abs: rounding('abs', 'ABS'),
  ceil: rounding('ceil', 'CEIL'),
  floor: rounding('floor', 'FLOOR'),
  round: rounding('round', 'ROUND'),
  rand: fn0(() => doubleLiteral(Math.random())),
};
