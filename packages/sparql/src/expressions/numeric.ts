/**
 * Numeric values (SPARQL 1.1 §17.3 operator mapping, XPath 2.0 F&O §6): parsing typed literals,
 * type promotion integer → decimal → float → double, arithmetic and canonical result literals.
 * Integers are bigints and decimals exact, so `"01"^^xsd:integer = 1` and `0.1 + 0.2 = 0.3`.
 */
import { literal } from '@ianode/rdf';
import type { Literal, Term } from '@ianode/rdf';
import {
  decimalAdd,
  decimalCeil,
  decimalCompare,
  decimalDivide,
  decimalFloor,
  decimalFromBigint,
  decimalMultiply,
  decimalNegate,
  decimalRound,
  decimalSubtract,
  decimalToNumber,
  formatDecimal,
  parseDecimal,
} from './decimal.js';
import type { Decimal } from './decimal.js';
import { datatypeOf, describe, fail } from './literals.js';
import { INTEGER_RANGES, numericNode, numericTypeOf } from './xsd.js';
import type { NumericType } from './xsd.js';

export type Numeric =
  | { readonly type: 'integer'; readonly value: bigint }
  | { readonly type: 'decimal'; readonly value: Decimal }
  | { readonly type: 'float' | 'double'; readonly value: number };

const INTEGER_LEXICAL = /^[+-]?\d+$/;
const DOUBLE_LEXICAL = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?INF|NaN)$/;

export function parseIntegerLexical(lexical: string): bigint | undefined {
  const text = lexical.trim();
  return INTEGER_LEXICAL.test(text) ? BigInt(text) : undefined;
}

/** An xsd:double / xsd:float lexical form (`1.5e3`, `INF`, `-INF`, `NaN`) as a JS number. */
export function parseDoubleLexical(lexical: string): number | undefined {
  const text = lexical.trim();
  if (!DOUBLE_LEXICAL.test(text)) return undefined;
  if (text.endsWith('INF')) return text.startsWith('-') ? -Infinity : Infinity;
  return Number(text);
}

/** The value of a numeric literal; undefined when not numeric or ill-typed (e.g. `"x"^^xsd:int`). */
export function parseNumeric(lit: Literal, datatype: string = datatypeOf(lit)): Numeric | undefined {
  const type = numericTypeOf(datatype);
  switch (type) {
    case undefined:
      return undefined;
    case 'integer': {
      const value = parseIntegerLexical(lit.value);
      if (value === undefined) return undefined;
      const range = INTEGER_RANGES.get(datatype);
      if (range && ((range[0] !== undefined && value < range[0]) || (range[1] !== undefined && value > range[1]))) {
        return undefined;
      }
      return { type, value };
    }
    case 'decimal': {
      const value = parseDecimal(lit.value);
      return value === undefined ? undefined : { type, value };
    }
    default: {
      const value = parseDoubleLexical(lit.value);
      if (value === undefined) return undefined;
      return { type, value: type === 'float' ? Math.fround(value) : value };
    }
  }
}

/** The numeric value of an argument; an error for anything but a valid numeric literal. */
export function numericArg(term: Term, fn: string): Numeric {
  const value = term.termType === 'Literal' ? parseNumeric(term) : undefined;
  return value ?? fail(`${fn}: expected a numeric literal, got ${describe(term)}`);
}

export function isNumericTerm(term: Term): boolean {
  return term.termType === 'Literal' && parseNumeric(term) !== undefined;
}

const RANK: Record<NumericType, number> = { integer: 0, decimal: 1, float: 2, double: 3 };

export function promote(a: NumericType, b: NumericType): NumericType {
  return RANK[a] >= RANK[b] ? a : b;
}

export function toNumber(n: Numeric): number {
  switch (n.type) {
    case 'integer':
      return Number(n.value);
    case 'decimal':
      return decimalToNumber(n.value);
    default:
      return n.value;
  }
}

/** The value promoted to float (rounded to single precision) or double. */
function toFloating(n: Numeric, type: NumericType): number {
  const x = toNumber(n);
  return type === 'float' ? Math.fround(x) : x;
}

/** The value as a decimal; only for integer and decimal values. */
function toDecimal(n: Numeric): Decimal {
  if (n.type === 'integer') return decimalFromBigint(n.value);
  if (n.type === 'decimal') return n.value;
  throw new TypeError('toDecimal of a floating-point value');
}

type Op = '+' | '-' | '*' | '/';

/** op:numeric-add / subtract / multiply / divide with type promotion. */
export function arithmetic(op: Op, a: Numeric, b: Numeric): Numeric {
  const type = promote(a.type, b.type);
  if (type === 'integer' && op !== '/') {
    const x = a.value as bigint;
    const y = b.value as bigint;
    return { type, value: op === '+' ? x + y : op === '-' ? x - y : x * y };
  }
  if (type === 'integer' || type === 'decimal') {
    const x = toDecimal(a);
    const y = toDecimal(b);
    switch (op) {
      case '+':
        return { type: 'decimal', value: decimalAdd(x, y) };
      case '-':
        return { type: 'decimal', value: decimalSubtract(x, y) };
      case '*':
        return { type: 'decimal', value: decimalMultiply(x, y) };
      case '/':
        return { type: 'decimal', value: decimalDivide(x, y) ?? fail('division by zero') };
    }
  }
  const x = toFloating(a, type);
  const y = toFloating(b, type);
  const r = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : x / y;
  return { type, value: type === 'float' ? Math.fround(r) : r };
}

/** Compares two numerics: negative, 0, positive, or NaN when either is NaN (unordered). */
export function compareNumeric(a: Numeric, b: Numeric): number {
  if (a.type === 'integer' && b.type === 'integer') return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  const type = promote(a.type, b.type);
  if (type === 'decimal') return decimalCompare(toDecimal(a), toDecimal(b));
  const x = toFloating(a, type);
  const y = toFloating(b, type);
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  return x < y ? -1 : x > y ? 1 : 0;
}

export function negate(n: Numeric): Numeric {
  switch (n.type) {
    case 'integer':
      return { type: n.type, value: -n.value };
    case 'decimal':
      return { type: n.type, value: decimalNegate(n.value) };
    default:
      return { type: n.type, value: -n.value };
  }
}

export type Rounding = 'abs' | 'ceil' | 'floor' | 'round';

/** fn:abs, fn:ceiling, fn:floor, fn:round; the result keeps the (primitive) numeric type. */
export function roundNumeric(kind: Rounding, n: Numeric): Numeric {
  switch (n.type) {
    case 'integer':
      return kind === 'abs' && n.value < 0n ? { type: n.type, value: -n.value } : n;
    case 'decimal': {
      const v = n.value;
      const value =
        kind === 'abs' ? (v.m < 0n ? decimalNegate(v) : v) : kind === 'ceil' ? decimalCeil(v) : kind === 'floor' ? decimalFloor(v) : decimalRound(v);
      return { type: n.type, value };
    }
    default: {
      const v = n.value;
      const r = kind === 'abs' ? Math.abs(v) : kind === 'ceil' ? Math.ceil(v) : kind === 'floor' ? Math.floor(v) : Math.round(v);
      return { type: n.type, value: r };
    }
  }
}

/** Canonical xsd:double form (XSD 1.0): `1.0E1`, `2.5E0`, `-1.5E-3`, `INF`, `NaN`. */
export function formatDouble(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'INF' : '-INF';
  if (x === 0) return Object.is(x, -0) ? '-0.0E0' : '0.0E0';
  return exponential(x.toExponential());
}

/** Canonical xsd:float form: the shortest digits that read back as the same single. */
export function formatFloat(x: number): string {
  if (Number.isNaN(x) || !Number.isFinite(x) || x === 0) return formatDouble(x);
  for (let digits = 0; digits < 9; digits++) {
    const text = x.toExponential(digits);
    if (Math.fround(Number(text)) === x) return exponential(text);
  }
  return exponential(x.toExponential(8));
}

function exponential(text: string): string {
  const e = text.indexOf('e');
  let mantissa = text.slice(0, e);
  if (!mantissa.includes('.')) mantissa += '.0';
  return `${mantissa}E${Number(text.slice(e + 1))}`;
}

/** The canonical lexical form of a numeric value in its own type. */
export function formatNumeric(n: Numeric): string {
  switch (n.type) {
    case 'integer':
      return n.value.toString();
    case 'decimal':
      return formatDecimal(n.value);
    case 'float':
      return formatFloat(n.value);
    case 'double':
      return formatDouble(n.value);
  }
}

export function numericLiteral(n: Numeric): Literal {
  return literal(formatNumeric(n), numericNode(n.type));
}

export function integerLiteral(value: bigint | number): Literal {
  return literal(String(value), numericNode('integer'));
}

export function doubleLiteral(value: number): Literal {
  return literal(formatDouble(value), numericNode('double'));
}
