/**
 * MIN, MAX, SUM and AVG of a variable (SPARQL 1.1 §18.5.1) over ids, on the value fast path of
 * numeric.ts: no term is decoded for a value the cache can order or add exactly. They give what the
 * expression library's aggregators (expressions/aggregates.ts) give, which stay the definition:
 *
 * - MIN / MAX keep the best id per group; two values are ordered by `orderOf` when it can tell,
 *   else by compareForMinMax on the terms. Ties keep the first, as the library does.
 * - SUM / AVG add xsd:integer and short xsd:decimal values (SCALED: mantissa / 10^scale) exactly, as
 *   an integer count of 10^-scale units held in a double while it stays a safe integer. The first
 *   value that does not fit (a long decimal, a float, an overflow) turns the group's sum into the
 *   library's exact Numeric, and from then on values are added by its `arithmetic`, term by term.
 *   Exact decimal addition is associative, so the order of the switch does not change the answer.
 *   An xsd:double makes the sum a double (type promotion): the library adds it once, and from then
 *   on every numeric value is promoted to its double, which is the cached value (integers and
 *   decimals correctly rounded, floats as singles), so the sum is a plain `+=` in the same order.
 */
import type { Term } from '@ianode/rdf';
import { ExpressionError } from '../errors.js';
import type { QueryContext } from './context.js';
import { arithmetic, compareForMinMax, makeDecimal, numericLiteral, parseNumeric, type Numeric } from './expression-library.js';
import { DOUBLE, FLOAT, INTEGER, NONE, NUMERIC, orderOf, SCALED, valueFastPath } from './numeric.js';

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/** An aggregate over one slot, for every group: `add` a row's id (0 = unbound), `result` as an id. */
export interface IdAggregate {
  add(group: number, id: number): void;
  result(group: number): number;
}

export function idAggregate(aggregator: string, q: QueryContext): IdAggregate | undefined {
  if (!valueFastPath.enabled) return undefined;
  switch (aggregator) {
    case 'min':
      return extreme(q, -1);
    case 'max':
      return extreme(q, 1);
    case 'sum':
      return sumOrAvg(q, false);
    case 'avg':
      return sumOrAvg(q, true);
    default:
      return undefined;
  }
}

function extreme(q: QueryContext, sign: 1 | -1): IdAggregate {
  const values = q.values;
  const best: number[] = [];
  const bestCls: number[] = [];
  const bestValue: number[] = [];
  return {
    add(g, id) {
      if (id === 0) return; // unbound: skipped
      const cur = best[g];
      const cls = values.get(id);
      const v = cls === NONE ? 0 : values.value;
      if (cur !== undefined && cur !== 0) {
        if (cur === id) return;
        let c = orderOf(cls, v, bestCls[g]!, bestValue[g]!);
        if (Number.isNaN(c)) c = compareForMinMax(q.terms.term(id), q.terms.term(cur));
        if (sign * c <= 0) return;
      }
      best[g] = id;
      bestCls[g] = cls;
      bestValue[g] = v;
    },
    result: (g) => best[g] ?? 0,
  };
}

/** Per group: a fast sum (units of 10^-scale), a double sum, the library's Numeric, or an error. */
interface Sum {
  mode: 'fast' | 'double' | 'exact' | 'error';
  double: number;
  units: number;
  scale: number;
  integerOnly: boolean;
  exact: Numeric | undefined;
  n: number;
}

const ZERO: Numeric = { type: 'integer', value: 0n };

function sumOrAvg(q: QueryContext, average: boolean): IdAggregate {
  const values = q.values;
  const sums: (Sum | undefined)[] = [];
  const toExact = (s: Sum): void => {
    s.exact = s.integerOnly ? { type: 'integer', value: BigInt(s.units) } : { type: 'decimal', value: makeDecimal(BigInt(s.units), s.scale) };
    s.mode = 'exact';
  };
  const addFast = (s: Sum, mantissa: number, scale: number, integer: boolean): boolean => {
    let units = s.units;
    let total = s.scale;
    if (scale > total) {
      units *= POW10[scale - total]!;
      if (!Number.isSafeInteger(units)) return false;
      total = scale;
    }
    const add = scale < total ? mantissa * POW10[total - scale]! : mantissa;
    if (!Number.isSafeInteger(add)) return false;
    units += add;
    if (!Number.isSafeInteger(units)) return false;
    s.units = units;
    s.scale = total;
    if (!integer) s.integerOnly = false;
    return true;
  };
  return {
    add(g, id) {
      let s = sums[g];
      if (s === undefined) {
        s = { mode: 'fast', double: 0, units: 0, scale: 0, integerOnly: true, exact: undefined, n: 0 };
        sums[g] = s;
      }
      if (s.mode === 'error') return;
      s.n++;
      if (id === 0) {
        s.mode = 'error'; // an unbound value makes SUM and AVG an error
        return;
      }
      const cls = values.get(id);
      if (s.mode === 'double') {
        if (cls === NUMERIC || cls === FLOAT) {
          s.double += values.value;
          return;
        }
        s.exact = { type: 'double', value: s.double };
        s.mode = 'exact';
      } else if (s.mode === 'fast') {
        const flags = values.flags;
        if ((flags & SCALED) !== 0 && addFast(s, values.mantissa, values.scale, (flags & INTEGER) !== 0)) return;
        toExact(s);
      }
      if (s.mode === 'exact' && cls === NUMERIC && (values.flags & DOUBLE) !== 0) {
        const sum = arithmetic('+', s.exact!, { type: 'double', value: values.value });
        s.double = sum.value as number;
        s.mode = 'double';
        return;
      }
      const t: Term = q.terms.term(id);
      const n = t.termType === 'Literal' ? parseNumeric(t) : undefined;
      if (n === undefined) {
        s.mode = 'error';
        s.exact = undefined;
        return;
      }
      s.exact = arithmetic('+', s.exact!, n);
    },
    result(g) {
      const s = sums[g];
      let total: Numeric;
      let n = 0;
      if (s === undefined) total = ZERO;
      else if (s.mode === 'error') return 0;
      else {
        if (s.mode === 'fast') toExact(s);
        total = s.mode === 'double' ? { type: 'double', value: s.double } : s.exact!;
        n = s.n;
      }
      if (!average) return q.terms.idOf(numericLiteral(total));
      if (n === 0) return q.terms.idOf(numericLiteral(ZERO));
      try {
        return q.terms.idOf(numericLiteral(arithmetic('/', total, { type: 'integer', value: BigInt(n) })));
      } catch (error) {
        if (error instanceof ExpressionError) return 0;
        throw error;
      }
    },
  };
}
