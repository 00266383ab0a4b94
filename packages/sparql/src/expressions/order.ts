/**
 * ORDER BY (SPARQL 1.1 §15.1) and MIN / MAX (§18.5.1.5, defined by the same ordering): a total
 * order over terms and "no value".
 *
 *   unbound / error  <  blank nodes  <  IRIs  <  literals
 *
 * Blank nodes compare by label and IRIs by code point. Literals compare by value within a family
 * (what `<` does: numerics with promotion, strings, booleans, dateTime / date / time read as UTC
 * when without timezone, durations) and families in a fixed order: numeric, boolean, simple
 * string, language-tagged string (text, then tag), dateTime, date, time, duration, then the rest
 * (unknown datatypes and ill-typed literals, by datatype IRI then lexical form). Equal values
 * with different terms (`1` and `1.0`) are ordered by datatype and lexical form so the order is
 * total and deterministic.
 */
import type { Literal, Term } from '@ianode/rdf';
import { classify } from './comparison.js';
import type { LiteralValue } from './comparison.js';
import { compareTemporalTotal } from './datetime.js';
import { compareCodepoints, datatypeOf } from './literals.js';
import { compareNumeric } from './numeric.js';

function termRank(term: Term | undefined): number {
  if (term === undefined) return 0;
  switch (term.termType) {
    case 'BlankNode':
      return 1;
    case 'NamedNode':
      return 2;
    case 'Literal':
      return 3;
    default:
      return 4;
  }
}

const FAMILY_RANK: Record<LiteralValue['family'], number> = {
  numeric: 0,
  boolean: 1,
  string: 2,
  langString: 3,
  temporal: 4,
  duration: 5,
  other: 6,
};

const TEMPORAL_RANK = { dateTime: 0, date: 1, time: 2 } as const;

function sign(n: number): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

function compareValuesTotal(x: LiteralValue, y: LiteralValue): number {
  const rank = FAMILY_RANK[x.family] - FAMILY_RANK[y.family];
  if (rank !== 0) return sign(rank);
  switch (x.family) {
    case 'numeric': {
      const other = (y as typeof x).v;
      const c = compareNumeric(x.v, other);
      if (!Number.isNaN(c)) return c;
      // NaN sorts before every other number.
      const xNaN = (x.v.type === 'float' || x.v.type === 'double') && Number.isNaN(x.v.value);
      const yNaN = (other.type === 'float' || other.type === 'double') && Number.isNaN(other.value);
      return xNaN === yNaN ? 0 : xNaN ? -1 : 1;
    }
    case 'boolean':
      return Number(x.v) - Number((y as typeof x).v);
    case 'string':
      return compareCodepoints(x.v, (y as typeof x).v);
    case 'langString': {
      const other = y as typeof x;
      return compareCodepoints(x.v, other.v) || compareCodepoints(x.lang.toLowerCase(), other.lang.toLowerCase());
    }
    case 'temporal': {
      const other = y as typeof x;
      return sign(TEMPORAL_RANK[x.kind] - TEMPORAL_RANK[other.kind]) || compareTemporalTotal(x.v, other.v);
    }
    case 'duration': {
      const other = y as typeof x;
      return sign(x.v.months - other.v.months) || sign(x.v.seconds - other.v.seconds);
    }
    case 'other':
      return 0;
  }
}

function compareLiterals(a: Literal, b: Literal): number {
  const c = compareValuesTotal(classify(a), classify(b));
  if (c !== 0) return c;
  // Same value (or both "other"): fall back to the term itself for a total order.
  return compareCodepoints(datatypeOf(a), datatypeOf(b)) || compareCodepoints(a.value, b.value) || compareCodepoints(a.language, b.language);
}

/** Compares two terms for ORDER BY ascending; undefined (unbound or error) comes first. */
export function compareForOrderBy(a: Term | undefined, b: Term | undefined): number {
  const ra = termRank(a);
  const rb = termRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (a === undefined || b === undefined) return 0;
  if (a.termType === 'Literal' && b.termType === 'Literal') return compareLiterals(a, b);
  return compareCodepoints(a.value, b.value);
}

/** The order MIN and MAX choose by (the same as ORDER BY). */
export const compareForMinMax: (a: Term | undefined, b: Term | undefined) => number = compareForOrderBy;
