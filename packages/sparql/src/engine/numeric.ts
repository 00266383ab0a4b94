/**
 * Value fast paths over ids. Comparing `?price > 1000` or sorting by a dateTime through terms
 * means decoding a literal object and parsing its lexical form (regular expressions, bigints) on
 * every comparison; here a literal's key string is read once per id and its value kept as a
 * double, with a class and an exactness flag, in a per-query cache:
 *
 * - numeric (xsd:integer, xsd:decimal, xsd:double): the double value. Exact when it orders and
 *   equates like the XSD value: integers and decimals of at most 15 significant digits (and at most
 *   22 fractional digits), doubles always. Longer integers and decimals keep their correctly rounded
 *   double, flagged inexact: rounding is monotonic, so two *different* doubles still order their
 *   exact values, and only equal doubles go to the exact comparison.
 * - float (xsd:float): its single-precision value; compared on the fast path only with floats
 *   (promotion of an integer or decimal to float rounds it, so mixed comparisons go the general way).
 * - dateTime, date (xsd:dateTime, xsd:date): milliseconds since 1970-01-01T00:00:00Z, the local
 *   reading for values without timezone (flagged), fractional seconds truncated to milliseconds
 *   (flagged inexact when digits were dropped: again only equal values need the exact path). A
 *   value with and one without timezone compare only when more than 14 hours apart (XSD's rule:
 *   closer ones may be indeterminate, an error the general path raises); ORDER BY's total order
 *   reads values without timezone as UTC, as the general comparator does.
 *
 * Anything else (other datatypes, ill-typed or whitespace-padded forms, NaN, years past the safe
 * range) has class NONE, and callers take the general path (the expression library), which stays
 * the definition of the semantics: every fast answer here is one it would give.
 */
import { Algebra } from 'sparqlalgebrajs';
import { termToKey, type Dataset } from '@ianode/rdf';
import { daysFromCivil, daysInMonth, parseDate, parseDateTime } from './expression-library.js';
import type { PlanExpression } from '../algebra/plan.js';
import { LOCAL_ID_BASE, type TermTable } from './term-table.js';

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const INTEGER_SUFFIX = '"^^' + XSD + 'integer';
const DECIMAL_SUFFIX = '"^^' + XSD + 'decimal';
const DOUBLE_SUFFIX = '"^^' + XSD + 'double';
const FLOAT_SUFFIX = '"^^' + XSD + 'float';
const DATE_TIME_SUFFIX = '"^^' + XSD + 'dateTime';
const DATE_SUFFIX = '"^^' + XSD + 'date';
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/** Value classes: values compare on the fast path only within one class. */
export const NONE = 0;
export const NUMERIC = 1;
export const FLOAT = 2;
export const DATE_TIME = 3;
export const DATE = 4;

/** Flags. */
/** The double orders and equates exactly like the value (else only different doubles decide). */
export const EXACT = 1;
/** A dateTime or date without timezone (the double is its local reading). */
export const NO_TZ = 2;
/** An xsd:integer (for SUM / AVG's result type). */
export const INTEGER = 4;
/** `mantissa / 10^scale` is the exact value, with a mantissa of at most 15 digits. */
export const SCALED = 8;
/** An xsd:double (for SUM / AVG: a sum that meets one is a double from then on). */
export const DOUBLE = 16;

/** What `readKey` found: class, flags, the value, and for SCALED values the mantissa and scale. */
export interface KeyValue {
  cls: number;
  flags: number;
  value: number;
  mantissa: number;
  scale: number;
}

export function newKeyValue(): KeyValue {
  return { cls: NONE, flags: 0, value: 0, mantissa: 0, scale: 0 };
}

/** Reads a literal key into `out` (see the module comment). Hand-written scanning for numerics:
 * this runs once per distinct id of a filter or sort. */
export function readKey(key: string, out: KeyValue): void {
  out.cls = NONE;
  out.flags = 0;
  if (key.charCodeAt(0) !== 34 /* " */) return;
  let end: number;
  let double = false;
  let integer = false;
  let float = false;
  // Dispatch on the datatype's last letter, then one suffix test.
  switch (key.charCodeAt(key.length - 1)) {
    case 108 /* l: decimal */:
      if (!key.endsWith(DECIMAL_SUFFIX)) return;
      end = key.length - DECIMAL_SUFFIX.length;
      break;
    case 114 /* r: integer */:
      if (!key.endsWith(INTEGER_SUFFIX)) return;
      end = key.length - INTEGER_SUFFIX.length;
      integer = true;
      break;
    case 116 /* t: float */:
      if (!key.endsWith(FLOAT_SUFFIX)) return;
      end = key.length - FLOAT_SUFFIX.length;
      double = true;
      float = true;
      break;
    case 101 /* e: double, dateTime, date */:
      if (key.endsWith(DOUBLE_SUFFIX)) {
        end = key.length - DOUBLE_SUFFIX.length;
        double = true;
        break;
      }
      if (key.endsWith(DATE_TIME_SUFFIX)) return readTemporal(key.slice(1, key.length - DATE_TIME_SUFFIX.length), DATE_TIME, out);
      if (key.endsWith(DATE_SUFFIX)) return readTemporal(key.slice(1, key.length - DATE_SUFFIX.length), DATE, out);
      return;
    default:
      return;
  }
  const cls = float ? FLOAT : NUMERIC;
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
      const inf = lex === 'INF' || lex === '+INF' ? Infinity : lex === '-INF' ? -Infinity : 0;
      if (inf !== 0) set(out, cls, float ? EXACT : EXACT | DOUBLE, inf);
    }
    return; // NaN and ill-typed forms: the general path
  }
  if (i < end) {
    if (!double || (c !== 101 && c !== 69)) return;
    c = key.charCodeAt(++i);
    if (c === 43 || c === 45) c = key.charCodeAt(++i);
    let expDigits = 0;
    for (; i < end && c >= 48 && c <= 57; c = key.charCodeAt(++i)) expDigits++;
    if (expDigits === 0 || i < end) return;
    const v = Number(key.slice(1, end));
    set(out, cls, float ? EXACT : EXACT | DOUBLE, float ? Math.fround(v) : v);
    return;
  }
  if (double) {
    const v = Number(key.slice(1, end));
    set(out, cls, float ? EXACT : EXACT | DOUBLE, float ? Math.fround(v) : v);
    return;
  }
  // Fractional digits counted include leading zeros after the point (e.g. 0.05: mantissa 5, k 2).
  const k = fraction < 0 ? 0 : fraction;
  const typeFlag = integer ? INTEGER : 0;
  if (significant > 15 || k > 22) {
    // Number() rounds the decimal string correctly: monotonic, but not exact.
    set(out, NUMERIC, typeFlag, Number(key.slice(1, end)));
    return;
  }
  const v = mantissa / POW10[k]!;
  set(out, NUMERIC, EXACT | SCALED | typeFlag, negative ? -v : v);
  out.mantissa = negative ? -mantissa : mantissa;
  out.scale = k;
}

function set(out: KeyValue, cls: number, flags: number, value: number): void {
  out.cls = cls;
  out.flags = flags;
  out.value = value;
}

/** A dateTime / date lexical form to milliseconds. The common shape (`YYYY-MM-DD`, then for a
 * dateTime `Thh:mm:ss` with hour below 24 and optional fraction, then an optional timezone) is
 * scanned here; anything else (other year widths, negative years, 24:00:00, malformed text) goes
 * through the expression library's own parser, so validity is always its rules. */
function readTemporal(lexical: string, cls: number, out: KeyValue): void {
  if (scanTemporal(lexical, cls, out)) return;
  // The general parsers trim; a padded form is rare and stays on the general path.
  if (lexical.length === 0 || lexical.charCodeAt(0) <= 32 || lexical.charCodeAt(lexical.length - 1) <= 32) return;
  const t = cls === DATE_TIME ? parseDateTime(lexical) : parseDate(lexical);
  if (t === undefined) return;
  const frac = t.fraction;
  const ms = (t.local - (t.tz ?? 0) * 60) * 1000 + (frac === '' ? 0 : Number((frac + '00').slice(0, 3)));
  if (!Number.isSafeInteger(ms) || Math.abs(ms) > 2 ** 52) return;
  set(out, cls, (frac.length <= 3 ? EXACT : 0) | (t.tz === undefined ? NO_TZ : 0), ms);
}

/** Two ASCII digits at i as a number, or -1. */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** The common shape of readTemporal; false when the text has another shape or is not valid. */
function scanTemporal(s: string, cls: number, out: KeyValue): boolean {
  const y1 = two(s, 0);
  const y2 = two(s, 2);
  if (y1 < 0 || y2 < 0 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
  const year = y1 * 100 + y2;
  const month = two(s, 5);
  const day = two(s, 8);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  let seconds = daysFromCivil(year, month, day) * 86400;
  let i = 10;
  let fracMs = 0;
  let exact = true;
  if (cls === DATE_TIME) {
    if (s.charCodeAt(10) !== 84 /* T */ || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return false;
    const h = two(s, 11);
    const mi = two(s, 14);
    const sec = two(s, 17);
    if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) return false;
    seconds += h * 3600 + mi * 60 + sec;
    i = 19;
    if (s.charCodeAt(i) === 46 /* . */) {
      let n = 0;
      let lastNonZero = 0;
      for (i++; i < s.length; i++) {
        const d = s.charCodeAt(i) - 48;
        if (d < 0 || d > 9) break;
        n++;
        if (d !== 0) lastNonZero = n;
        if (n <= 3) fracMs += d * (n === 1 ? 100 : n === 2 ? 10 : 1);
      }
      if (n === 0) return false;
      exact = lastNonZero <= 3;
    }
  }
  let flags = exact ? EXACT : 0;
  if (i === s.length) flags |= NO_TZ;
  else if (s.charCodeAt(i) === 90 /* Z */ && i + 1 === s.length) {
    // UTC
  } else {
    const sign = s.charCodeAt(i);
    const th = two(s, i + 1);
    const tm = two(s, i + 4);
    if ((sign !== 43 && sign !== 45) || s.charCodeAt(i + 3) !== 58 || i + 6 !== s.length || th < 0 || tm < 0 || tm > 59 || th * 60 + tm > 14 * 60) return false;
    seconds -= (sign === 45 ? -1 : 1) * (th * 3600 + tm * 60);
  }
  set(out, cls, flags, seconds * 1000 + fracMs);
  return true;
}

/** Test seam: with `enabled` false every id reads as class NONE and the id aggregates are not
 * used, so tests can run a query on the general path alone and compare. Never set elsewhere. */
export const valueFastPath = { enabled: true };

/** Direct-mapped id -> value slots (the last id seen in each slot, by its low bits). */
class ValueTable {
  readonly mask: number;
  /** Slots taken over from another id: when they pass the table's size, the next query gets a
   * table twice as large (see ValueCache). */
  evictions = 0;
  readonly ids: Uint32Array;
  /** class + 1 (0 = empty slot) */
  readonly classes: Uint8Array;
  readonly flagBits: Uint8Array;
  readonly values: Float64Array;
  readonly mantissas: Float64Array;
  readonly scales: Uint8Array;

  constructor(readonly bits: number) {
    const n = 1 << bits;
    this.mask = n - 1;
    this.ids = new Uint32Array(n);
    this.classes = new Uint8Array(n);
    this.flagBits = new Uint8Array(n);
    this.values = new Float64Array(n);
    this.mantissas = new Float64Array(n);
    this.scales = new Uint8Array(n);
  }
}

/** Slots for the dataset's ids: shared by every query over one term scope (TermLookup.termScope:
 * the same ids name the same terms, so their values never change), 23 bytes a slot: 1.5 MB at
 * first, doubled (up to MAX_SHARED_BITS, 24 MB) while queries keep evicting each other's values
 * (a range filter over 100,000 distinct prices would otherwise re-read most of them each time). */
const SHARED_BITS = 16;
const MAX_SHARED_BITS = 20;
/** Slots when the dataset makes no such promise: this query's own. */
const QUERY_BITS = 12;
/** Slots for the ids a query makes up (BIND results, aggregates, unknown constants). */
const LOCAL_BITS = 8;
const sharedTables = new WeakMap<object, ValueTable>();

/** Per-query cache id -> KeyValue (QueryContext.values), used by its filters, sorts and
 * aggregates. The dataset's ids go to a table shared across queries when the dataset has a term
 * scope; the query's own ids (≥ LOCAL_ID_BASE) to a small table of this query's. It is given the
 * query's dataset and term table, not the QueryContext that owns it (context.ts imports this
 * module: the other way round would be an import cycle). */
export class ValueCache {
  private readonly data: ValueTable;
  private readonly local = new ValueTable(LOCAL_BITS);
  private readonly scratch = newKeyValue();
  /** The last `get`'s answer (valid until the next `get`). */
  cls = NONE;
  flags = 0;
  value = 0;
  mantissa = 0;
  scale = 0;

  constructor(
    private readonly dataset: Dataset,
    private readonly terms: TermTable,
  ) {
    const scope = valueFastPath.enabled ? dataset.termScope?.() : undefined;
    let table = scope === undefined ? undefined : sharedTables.get(scope);
    if (table !== undefined && table.evictions > table.mask && table.bits < MAX_SHARED_BITS) table = undefined;
    if (table === undefined) {
      const previous = scope === undefined ? undefined : sharedTables.get(scope);
      table = new ValueTable(scope === undefined ? QUERY_BITS : previous === undefined ? SHARED_BITS : previous.bits + 1);
      if (scope !== undefined) sharedTables.set(scope, table);
    }
    this.data = table;
  }

  /** Looks `id` up (not 0) and leaves its class, flags, value (and for SCALED values mantissa and
   * scale) in this object's fields; returns the class. */
  get(id: number): number {
    const local = id >= LOCAL_ID_BASE;
    const t = local ? this.local : this.data;
    const i = id & t.mask;
    if (t.classes[i] === 0 || t.ids[i] !== id) {
      if (t.classes[i] !== 0) t.evictions++;
      const key = local ? termToKey(this.terms.term(id)) : this.dataset.key(id);
      const out = this.scratch;
      if (valueFastPath.enabled) readKey(key, out);
      else out.cls = NONE;
      const scaled = (out.flags & SCALED) !== 0;
      // The id last: a slot is only ever read whole after its id matches.
      t.classes[i] = out.cls + 1;
      t.flagBits[i] = out.flags;
      t.values[i] = out.cls === NONE ? 0 : out.value;
      t.mantissas[i] = scaled ? out.mantissa : 0;
      t.scales[i] = scaled ? out.scale : 0;
      t.ids[i] = id;
    }
    this.cls = t.classes[i]! - 1;
    this.flags = t.flagBits[i]!;
    this.value = t.values[i]!;
    this.mantissa = t.mantissas[i]!;
    this.scale = t.scales[i]!;
    return this.cls;
  }
}

/**
 * ORDER BY / MIN / MAX on the fast path: the sign of compareForOrderBy for two literals already
 * read, or NaN when only the general comparator can tell (different classes, or equal doubles:
 * equal values of different terms are ordered by datatype and lexical form there).
 */
export function orderOf(clsA: number, a: number, clsB: number, b: number): number {
  if (clsA === NONE || clsA !== clsB || a === b) return NaN;
  return a < b ? -1 : 1;
}

const FOURTEEN_HOURS_MS = 14 * 3600 * 1000;

/**
 * The sign of the `<`-style comparison of two values of the same class, or NaN when only the
 * general path can tell (equal inexact values; a dateTime with and one without timezone within
 * 14 hours of each other).
 */
export function compareOf(a: number, flagsA: number, b: number, flagsB: number): number {
  if (((flagsA ^ flagsB) & NO_TZ) !== 0) {
    // One side has no timezone: it may lie anywhere within ±14:00 (XSD 1.1 §3.3.7). The margin
    // of a millisecond covers fractions truncated to milliseconds.
    if (a < b - FOURTEEN_HOURS_MS - 1) return -1;
    if (a > b + FOURTEEN_HOURS_MS + 1) return 1;
    return NaN;
  }
  if (a === b) return (flagsA & flagsB & EXACT) !== 0 ? 0 : NaN;
  return a < b ? -1 : 1;
}

const RELATIONS: Record<string, (c: number) => boolean> = {
  '<': (c) => c < 0,
  '>': (c) => c > 0,
  '<=': (c) => c <= 0,
  '>=': (c) => c >= 0,
  '=': (c) => c === 0,
  '!=': (c) => c !== 0,
};
const MIRRORED: Record<string, string> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '=': '=', '!=': '!=' };

/** A row test: the expression's value, null for an error (an unbound variable), or undefined
 * when the row needs the general path. */
type RowTest = (data: Uint32Array, base: number) => boolean | null | undefined;

/**
 * For a filter `?v op c` or `c op ?v` (c a numeric, dateTime or date constant), and `&&`, `||` and
 * `!` of those (a range `?p >= a && ?p < b`): a row test that returns the filter's outcome, or
 * undefined when the row needs the general path. undefined when the expression has another shape.
 *
 * The connectives keep SPARQL's error rules (§17.2): `false && error` is false and
 * `true || error` is true, so a side that decides alone answers; otherwise (a side needs the
 * general path) the whole filter goes to the general path.
 */
export function valueComparison(e: PlanExpression, cache: ValueCache): ((data: Uint32Array, base: number) => boolean | undefined) | undefined {
  const test = rowTest(e.expr, e, cache);
  if (test === undefined) return undefined;
  return (data, base) => {
    const v = test(data, base);
    return v === null ? false : v; // an error: the filter fails
  };
}

function rowTest(x: Algebra.Expression, e: PlanExpression, cache: ValueCache): RowTest | undefined {
  if (x.expressionType !== Algebra.expressionTypes.OPERATOR) return undefined;
  if ((x.operator === '&&' || x.operator === '||') && x.args.length === 2) {
    const left = rowTest(x.args[0]!, e, cache);
    const right = left === undefined ? undefined : rowTest(x.args[1]!, e, cache);
    if (left === undefined || right === undefined) return undefined;
    const decides = x.operator === '&&' ? false : true;
    return (data, base) => {
      const l = left(data, base);
      if (l === decides) return decides;
      const r = right(data, base);
      if (r === decides) return decides;
      if (l === undefined || r === undefined) return undefined;
      return l === null || r === null ? null : !decides;
    };
  }
  if (x.operator === '!' && x.args.length === 1) {
    const inner = rowTest(x.args[0]!, e, cache);
    if (inner === undefined) return undefined;
    return (data, base) => {
      const v = inner(data, base);
      return v === undefined || v === null ? v : !v;
    };
  }
  return comparisonTest(x, e, cache);
}

function comparisonTest(x: Algebra.OperatorExpression, e: PlanExpression, cache: ValueCache): RowTest | undefined {
  if (x.args.length !== 2) return undefined;
  let op = x.operator;
  if (RELATIONS[op] === undefined) return undefined;
  let [a, b] = x.args as [Algebra.Expression, Algebra.Expression];
  if (a.expressionType === Algebra.expressionTypes.TERM && a.term.termType !== 'Variable') {
    [a, b] = [b, a];
    op = MIRRORED[op]!;
  }
  if (a.expressionType !== Algebra.expressionTypes.TERM || a.term.termType !== 'Variable') return undefined;
  if (b.expressionType !== Algebra.expressionTypes.TERM || b.term.termType !== 'Literal') return undefined;
  const constant = newKeyValue();
  if (valueFastPath.enabled) readKey(termToKey(b.term), constant);
  const slot = e.slots.get(a.term.value);
  if (constant.cls === NONE || slot === undefined) return undefined;
  const rel = RELATIONS[op]!;
  const { cls, flags, value } = constant;
  return (data, base) => {
    const id = data[base + slot]!;
    if (id === 0) return null; // unbound: an error
    if (cache.get(id) !== cls) return undefined;
    const c = compareOf(cache.value, cache.flags, value, flags);
    return Number.isNaN(c) ? undefined : rel(c);
  };
}
