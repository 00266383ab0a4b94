/**
 * Numeric fast paths over ids. Comparing `?price > 1000` through terms means decoding a literal
 * object per row; here the literal's key string is read once per id and its value kept as a
 * double — only when that double orders and equates exactly like the XSD value: xsd:integer and
 * xsd:decimal with at most 15 significant digits, and xsd:double. Anything else (other datatypes,
 * ill-typed literals, long decimals, xsd:float) answers `null` and callers take the general path.
 */
import { Algebra } from 'sparqlalgebrajs';
import { termToKey } from '@ianode/rdf';
import type { PlanExpression } from '../algebra/plan.js';
import type { QueryContext } from './context.js';
import { LOCAL_ID_BASE } from './term-table.js';

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const INTEGER_SUFFIX = '"^^' + XSD + 'integer';
const DECIMAL_SUFFIX = '"^^' + XSD + 'decimal';
const DOUBLE_SUFFIX = '"^^' + XSD + 'double';
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/** The double standing exactly for a literal key's value, or null (see the module comment).
 * Hand-written scanning: this runs once per row of a numeric filter. An integer or decimal of at
 * most 15 significant digits is mantissa / 10^k with both exact doubles, so the division gives
 * the correctly rounded value, like Number() would. */
export function numericOfKey(key: string): number | null {
  if (key.charCodeAt(0) !== 34 /* " */) return null;
  let end: number;
  let double = false;
  let integer = false;
  if (key.endsWith(DECIMAL_SUFFIX)) end = key.length - DECIMAL_SUFFIX.length;
  else if (key.endsWith(INTEGER_SUFFIX)) {
    end = key.length - INTEGER_SUFFIX.length;
    integer = true;
  } else if (key.endsWith(DOUBLE_SUFFIX)) {
    end = key.length - DOUBLE_SUFFIX.length;
    double = true;
  } else return null;
  let i = 1;
  let c = key.charCodeAt(i);
  let negative = false;
  if (c === 43 || c === 45) {
    negative = c === 45;
    c = key.charCodeAt(++i);
  }
  let digits = 0;
  let significant = 0;
  let fraction = -1;
  let mantissa = 0;
  for (; i < end; c = key.charCodeAt(++i)) {
    if (c >= 48 && c <= 57) {
      digits++;
      if (fraction >= 0) fraction++;
      if (significant > 0 || c !== 48) {
        significant++;
        mantissa = mantissa * 10 + (c - 48);
      }
    } else if (c === 46 && fraction < 0 && !integer) fraction = 0;
    else break;
  }
  if (digits === 0) {
    if (double && i === 1) {
      const lex = key.slice(1, end);
      if (lex === 'INF' || lex === '+INF') return Infinity;
      if (lex === '-INF') return -Infinity;
    }
    return null; // NaN and ill-typed forms: the general path
  }
  if (i < end) {
    if (!double || (c !== 101 && c !== 69)) return null;
    c = key.charCodeAt(++i);
    if (c === 43 || c === 45) c = key.charCodeAt(++i);
    let expDigits = 0;
    for (; i < end && c >= 48 && c <= 57; c = key.charCodeAt(++i)) expDigits++;
    if (expDigits === 0 || i < end) return null;
    return Number(key.slice(1, end));
  }
  if (double || significant > 15) return double ? Number(key.slice(1, end)) : null;
  // Fractional digits counted include leading zeros after the point (e.g. 0.05: mantissa 5, k 2).
  const k = fraction < 0 ? 0 : fraction;
  if (k > 22) return null;
  const v = mantissa / POW10[k]!;
  return negative ? -v : v;
}

const CACHE_BITS = 12;
const CACHE_MASK = (1 << CACHE_BITS) - 1;

/** Per-query cache id -> numeric value or null: direct-mapped (the last 4096 distinct ids by
 * their low bits), so repeated ids are cheap and memory stays fixed. */
export class NumericCache {
  private readonly ids = new Uint32Array(1 << CACHE_BITS);
  private readonly values = new Float64Array(1 << CACHE_BITS);
  /** 0 = empty, 1 = numeric, 2 = not usable */
  private readonly state = new Uint8Array(1 << CACHE_BITS);
  constructor(private readonly q: QueryContext) {}

  get(id: number): number | null {
    const i = id & CACHE_MASK;
    const st = this.state[i]!;
    if (st !== 0 && this.ids[i] === id) return st === 1 ? this.values[i]! : null;
    const key = id >= LOCAL_ID_BASE ? termToKey(this.q.terms.term(id)) : this.q.dataset.key(id);
    const v = numericOfKey(key);
    this.ids[i] = id;
    this.state[i] = v === null ? 2 : 1;
    if (v !== null) this.values[i] = v;
    return v;
  }
}

const RELATIONS: Record<string, (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b,
  '>': (a, b) => a > b,
  '<=': (a, b) => a <= b,
  '>=': (a, b) => a >= b,
  '=': (a, b) => a === b,
  '!=': (a, b) => a !== b,
};
const MIRRORED: Record<string, string> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '=': '=', '!=': '!=' };

/**
 * For a filter `?v op c` or `c op ?v` (c a numeric constant): a row test that returns the
 * filter's outcome, or undefined when the row needs the general path. undefined when the
 * expression has another shape.
 */
export function numericComparison(e: PlanExpression, q: QueryContext, cache: NumericCache): ((data: Uint32Array, base: number) => boolean | undefined) | undefined {
  const x = e.expr;
  if (x.expressionType !== Algebra.expressionTypes.OPERATOR || x.args.length !== 2) return undefined;
  let op = x.operator;
  if (RELATIONS[op] === undefined) return undefined;
  let [a, b] = x.args as [Algebra.Expression, Algebra.Expression];
  if (a.expressionType === Algebra.expressionTypes.TERM && a.term.termType !== 'Variable') {
    [a, b] = [b, a];
    op = MIRRORED[op]!;
  }
  if (a.expressionType !== Algebra.expressionTypes.TERM || a.term.termType !== 'Variable') return undefined;
  if (b.expressionType !== Algebra.expressionTypes.TERM || b.term.termType !== 'Literal') return undefined;
  const c = numericOfKey(termToKey(b.term));
  const slot = e.slots.get(a.term.value);
  if (c === null || slot === undefined) return undefined;
  const rel = RELATIONS[op]!;
  void q;
  return (data, base) => {
    const id = data[base + slot]!;
    if (id === 0) return false; // unbound: an error, so the filter fails
    const v = cache.get(id);
    return v === null ? undefined : rel(v, c);
  };
}
