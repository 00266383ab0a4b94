/**
 * Comparison (SPARQL 1.1 §17.3 operator mapping, §17.4.1.7 RDFterm-equal): `=`, `!=`, `<`, `>`,
 * `<=`, `>=`, IN and NOT IN.
 *
 * `=` compares by value within a type family (numerics with promotion, strings, booleans,
 * dateTime / date / time with the XSD timezone rule, durations). Literals of known, disjoint
 * value spaces are unequal (`1 = "1"` is false; a language-tagged string equals only the same
 * language-tagged string); a literal of an unknown datatype or with an ill-typed lexical form is
 * equal to the same term and otherwise an error (the open-world assumption). IRIs and blank
 * nodes are equal only to themselves. Ordering is defined within the same families; across them
 * it is an error.
 */
import type { Literal, Term } from '@ianode/rdf';
import { compareTemporal, parseDuration, parseTemporal } from './datetime.js';
import type { Duration, DurationKind, Temporal, TemporalKind } from './datetime.js';
import type { Evaluator, FunctionTable } from './functions.js';
import { constantOf, special } from './functions.js';
import { isExpressionError } from './logical.js';
import { bool, compareCodepoints, datatypeOf, describe, fail, FALSE, sameLanguage, termEquals, TRUE } from './literals.js';
import { compareNumeric, parseDoubleLexical, parseNumeric } from './numeric.js';
import type { Numeric } from './numeric.js';
import { numericTypeOf, RDF_LANG_STRING, XSD_BOOLEAN, XSD_DECIMAL, XSD_DOUBLE, XSD_INTEGER, XSD_STRING } from './xsd.js';

/** A literal's value, classified by the family its operators work within. */
export type LiteralValue =
  | { readonly family: 'numeric'; readonly v: Numeric }
  | { readonly family: 'string'; readonly v: string }
  | { readonly family: 'langString'; readonly v: string; readonly lang: string }
  | { readonly family: 'boolean'; readonly v: boolean }
  | { readonly family: 'temporal'; readonly kind: TemporalKind; readonly v: Temporal }
  | { readonly family: 'duration'; readonly kind: DurationKind; readonly v: Duration }
  /** An unknown datatype, or a known one with an ill-typed lexical form. */
  | { readonly family: 'other' };

const OTHER: LiteralValue = { family: 'other' };

export function parseBoolean(lexical: string): boolean | undefined {
  const text = lexical.trim();
  return text === 'true' || text === '1' ? true : text === 'false' || text === '0' ? false : undefined;
}

export function classify(lit: Literal, datatype: string = datatypeOf(lit)): LiteralValue {
  if (datatype === XSD_STRING) return { family: 'string', v: lit.value };
  if (datatype === RDF_LANG_STRING) return { family: 'langString', v: lit.value, lang: lit.language };
  if (numericTypeOf(datatype) !== undefined) {
    const v = parseNumeric(lit, datatype);
    return v === undefined ? OTHER : { family: 'numeric', v };
  }
  if (datatype === XSD_BOOLEAN) {
    const v = parseBoolean(lit.value);
    return v === undefined ? OTHER : { family: 'boolean', v };
  }
  const temporal = parseTemporal(lit, datatype);
  if (temporal) return { family: 'temporal', kind: temporal.kind, v: temporal.value };
  const duration = parseDuration(lit, datatype);
  if (duration) return { family: 'duration', kind: duration.kind, v: duration.value };
  return OTHER;
}

const SHORT_DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * The fast path for the common numeric comparisons: a JS number that orders the literal exactly
 * as the spec's promotion would, or undefined. xsd:integer and xsd:decimal qualify up to 15
 * characters (at most 15 significant digits, which doubles keep distinct and in order), and
 * xsd:double always (promotion to double is what the spec does); floats and long values take
 * the exact path.
 */
function fastNumber(lit: Literal, datatype: string): number | undefined {
  if (datatype === XSD_INTEGER || datatype === XSD_DECIMAL) {
    const text = lit.value;
    if (text.length > 15 || !SHORT_DECIMAL.test(text) || (datatype === XSD_INTEGER && text.includes('.'))) return undefined;
    return Number(text);
  }
  return datatype === XSD_DOUBLE ? parseDoubleLexical(lit.value) : undefined;
}

/** Value equality (`=`); throws ExpressionError where the spec gives an error. */
export function valueEquals(a: Term, b: Term): boolean {
  if (a.termType !== 'Literal' || b.termType !== 'Literal') return termEquals(a, b);
  const da = datatypeOf(a);
  const db = datatypeOf(b);
  if (da === XSD_STRING && db === XSD_STRING) return a.value === b.value;
  const fa = fastNumber(a, da);
  if (fa !== undefined) {
    const fb = fastNumber(b, db);
    if (fb !== undefined) return fa === fb;
  }
  const x = classify(a, da);
  const y = classify(b, db);
  if (x.family === 'langString' || y.family === 'langString') {
    return x.family === 'langString' && y.family === 'langString' && x.v === y.v && sameLanguage(x.lang, y.lang);
  }
  if (x.family === 'other' || y.family === 'other') {
    if (termEquals(a, b)) return true;
    return fail(`cannot compare ${describe(a)} and ${describe(b)} for equality`);
  }
  if (x.family !== y.family) return false;
  switch (x.family) {
    case 'numeric':
      return compareNumeric(x.v, (y as typeof x).v) === 0;
    case 'string':
    case 'boolean':
      return x.v === (y as typeof x).v;
    case 'temporal': {
      const other = y as typeof x;
      if (x.kind !== other.kind) return false;
      const c = compareTemporal(x.v, other.v);
      return c === undefined ? fail(`indeterminate comparison of ${describe(a)} and ${describe(b)}`) : c === 0;
    }
    case 'duration': {
      const other = y as typeof x;
      return x.v.months === other.v.months && x.v.seconds === other.v.seconds;
    }
  }
}

/** Order (`<` and friends): negative, 0, positive, or NaN for unordered NaN; throws when the two
 * are not comparable. */
export function compareValues(a: Term, b: Term): number {
  if (a.termType === 'Literal' && b.termType === 'Literal') {
    const da = datatypeOf(a);
    const db = datatypeOf(b);
    const fa = fastNumber(a, da);
    if (fa !== undefined) {
      const fb = fastNumber(b, db);
      if (fb !== undefined) return fa < fb ? -1 : fa > fb ? 1 : fa === fb ? 0 : NaN;
    }
    const x = classify(a, da);
    const y = classify(b, db);
    if (x.family === y.family) {
      switch (x.family) {
        case 'numeric':
          return compareNumeric(x.v, (y as typeof x).v);
        case 'string':
          return compareCodepoints(x.v, (y as typeof x).v);
        case 'boolean':
          return Number(x.v) - Number((y as typeof x).v);
        case 'temporal': {
          const other = y as typeof x;
          if (x.kind !== other.kind) break;
          const c = compareTemporal(x.v, other.v);
          if (c === undefined) return fail(`indeterminate comparison of ${describe(a)} and ${describe(b)}`);
          return c;
        }
        case 'duration': {
          const other = y as typeof x;
          if (x.kind === 'dayTimeDuration' && other.kind === 'dayTimeDuration') return x.v.seconds - other.v.seconds;
          if (x.kind === 'yearMonthDuration' && other.kind === 'yearMonthDuration') return x.v.months - other.v.months;
          break;
        }
        default:
          break;
      }
    }
  }
  return fail(`cannot order ${describe(a)} and ${describe(b)}`);
}

type Relation = (a: Term, b: Term) => number;

const equality: Relation = (a, b) => (valueEquals(a, b) ? 0 : 1);

function compareNumbers(x: number, y: number): number {
  return x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN;
}

function fastOf(term: Term): number | undefined {
  return term.termType === 'Literal' ? fastNumber(term, datatypeOf(term)) : undefined;
}

/** A binary comparison; a constant numeric operand (`?price < 500`) is parsed once, here. */
function relation(test: (c: number) => boolean, general: Relation): ReturnType<typeof special> {
  return special(2, 2, (args) => {
    const [a, b] = args as [Evaluator, Evaluator];
    const ca = constantOf(a);
    const cb = constantOf(b);
    const fb = cb && fastOf(cb);
    if (cb !== undefined && fb !== undefined) {
      return (ctx) => {
        const x = a(ctx);
        const fx = fastOf(x);
        return bool(test(fx !== undefined ? compareNumbers(fx, fb) : general(x, cb)));
      };
    }
    const fa = ca && fastOf(ca);
    if (ca !== undefined && fa !== undefined) {
      return (ctx) => {
        const y = b(ctx);
        const fy = fastOf(y);
        return bool(test(fy !== undefined ? compareNumbers(fa, fy) : general(ca, y)));
      };
    }
    return (ctx) => bool(test(general(a(ctx), b(ctx))));
  });
}

/** `A IN (...)` / `A NOT IN (...)`: like a chain of `=` joined by `||` (resp. `!=` by `&&`). */
function membership(negated: boolean): ReturnType<typeof special> {
  return special(1, Infinity, (args) => {
    const [lhs, ...list] = args as [Evaluator, ...Evaluator[]];
    return (ctx) => {
      const value = lhs(ctx);
      let error: unknown;
      for (const item of list) {
        try {
          if (valueEquals(value, item(ctx))) return negated ? FALSE : TRUE;
        } catch (e) {
          if (!isExpressionError(e)) throw e;
          error = e;
        }
      }
      if (error !== undefined) throw error;
      return negated ? TRUE : FALSE;
    };
  });
}

export const comparisonFunctions: FunctionTable = {
  '=': relation((c) => c === 0, equality),
  '!=': relation((c) => c !== 0, equality),
  '<': relation((c) => c < 0, compareValues),
  '>': relation((c) => c > 0, compareValues),
  '<=': relation((c) => c <= 0, compareValues),
  '>=': relation((c) => c >= 0, compareValues),
  in: membership(false),
  notin: membership(true),
};
