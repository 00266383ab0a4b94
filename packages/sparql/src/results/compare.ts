/**
 * Whether two query results are the same, the way the W3C SPARQL test suites compare them:
 * solutions as a multiset (or, for the ORDER BY keys, as a sequence); blank nodes up to one
 * consistent renaming across the whole result (a bijection between the labels of both sides);
 * IRIs and literals as RDF terms (lexical form, datatype, language tag compared case-insensitively
 * as RDF 1.1 §3.3 allows; `"a"^^xsd:string` is the simple literal `"a"`).
 *
 * Option `numericValues` compares literals of the same XSD numeric datatype by value instead:
 * the suites' expected results write computed numbers in varying lexical forms ("3"^^xsd:decimal
 * for CEIL, "1050"^^xsd:double for an AVG, "2.0E-1" beside "2E-1"), which no single canonical
 * form matches. The datatype still has to be the same.
 */
import { termToNTriples, XSD, XSD_STRING, type Term } from '@ianode/rdf';
import type { QueryResult, Solution } from '../api.js';

export interface CompareOptions {
  /** The ORDER BY keys of the query: after the multiset test, the sequence of their values must
   * be the same on both sides, position by position. Absent or empty: no order. */
  orderBy?: readonly string[] | undefined;
  /** `mf:LaxCardinality` (REDUCED): a solution may occur fewer times than expected, but at least
   * once. */
  laxCardinality?: boolean | undefined;
  /** Also require the same variables (as sets); default true. */
  variables?: boolean | undefined;
  /** Compare literals of the same XSD numeric datatype by value (see the module comment). */
  numericValues?: boolean | undefined;
  /** Steps the blank-node matching may take before it gives up (default 1,000,000). */
  budget?: number | undefined;
}

const DECIMAL_TYPES = new Set(
  ['decimal', 'integer', 'nonPositiveInteger', 'negativeInteger', 'long', 'int', 'short', 'byte', 'nonNegativeInteger', 'unsignedLong', 'unsignedInt', 'unsignedShort', 'unsignedByte', 'positiveInteger'].map((t) => XSD + t),
);
const DECIMAL_LEXICAL = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/;
const FLOAT_LEXICAL = /^(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?INF|NaN)$/;

/** The value of a numeric literal as a string, or undefined when it is not a valid one. */
function numericValue(lexical: string, datatype: string): string | undefined {
  if (DECIMAL_TYPES.has(datatype)) {
    const m = DECIMAL_LEXICAL.exec(lexical);
    if (!m || (m[2] === '' && (m[3] ?? '') === '') || (m[3] !== undefined && datatype !== XSD + 'decimal')) return undefined;
    const whole = m[2]!.replace(/^0+/, '') || '0';
    const fraction = (m[3] ?? '').replace(/0+$/, '');
    const magnitude = fraction ? `${whole}.${fraction}` : whole;
    return m[1] === '-' && magnitude !== '0' ? '-' + magnitude : magnitude;
  }
  if (datatype === XSD + 'double' || datatype === XSD + 'float') {
    if (!FLOAT_LEXICAL.test(lexical)) return undefined;
    const n = Number(lexical.replace('INF', 'Infinity'));
    return String(datatype === XSD + 'float' ? Math.fround(n) : n);
  }
  return undefined;
}

/** The comparable key of a term; blank nodes by label (matched separately). With
 * `numericValues`, a valid numeric literal's key is its datatype and value. */
export function termKey(term: Term, numericValues = false): string {
  switch (term.termType) {
    case 'NamedNode':
      return '<' + term.value + '>';
    case 'BlankNode':
      return '_:' + term.value;
    case 'Literal': {
      if (term.language) return JSON.stringify(term.value) + '@' + term.language.toLowerCase();
      const dt = term.datatype.value;
      if (dt === XSD_STRING) return JSON.stringify(term.value);
      const value = numericValues ? numericValue(term.value, dt) : undefined;
      return value !== undefined ? `=${value}^^<${dt}>` : JSON.stringify(term.value) + '^^<' + dt + '>';
    }
    default:
      return term.termType;
  }
}

interface Row {
  solution: Solution;
  /** Variables bound, sorted. */
  names: string[];
  /** The key with every blank node label replaced by `_:`. */
  signature: string;
  /** The key with labels. */
  key: string;
  ground: boolean;
}

function row(solution: Solution, numericValues: boolean): Row {
  const names = [...solution.keys()].sort();
  let signature = '';
  let key = '';
  let ground = true;
  for (const name of names) {
    const term = solution.get(name)!;
    const blank = term.termType === 'BlankNode';
    if (blank) ground = false;
    const k = termKey(term, numericValues);
    signature += `?${name}=${blank ? '_:' : k} `;
    key += `?${name}=${k} `;
  }
  return { solution, names, signature, key, ground };
}

/** `{?x=<a> ?y="1"}` for messages. */
export function showSolution(solution: Solution): string {
  const parts = [...solution.keys()].sort().map((name) => `?${name}=${showTerm(solution.get(name)!)}`);
  const text = `{${parts.join(' ')}}`;
  return text.length > 200 ? text.slice(0, 197) + '...' : text;
}

function showTerm(term: Term): string {
  try {
    return termToNTriples(term);
  } catch {
    return termKey(term);
  }
}

function counts(rows: readonly Row[], by: (r: Row) => string): Map<string, Row[]> {
  const map = new Map<string, Row[]>();
  for (const r of rows) {
    const k = by(r);
    const list = map.get(k);
    if (list) list.push(r);
    else map.set(k, [r]);
  }
  return map;
}

/** Rows in `a` that `b` lacks (by `by`, with multiplicity), at most `limit`. */
function surplus(a: Map<string, Row[]>, b: Map<string, Row[]>, limit: number): Row[] {
  const out: Row[] = [];
  for (const [k, rows] of a) {
    const extra = rows.length - (b.get(k)?.length ?? 0);
    for (let i = 0; i < extra && out.length < limit; i++) out.push(rows[i]!);
  }
  return out;
}

function describeMismatch(actual: readonly Row[], expected: readonly Row[], by: (r: Row) => string): string {
  const a = counts(actual, by);
  const e = counts(expected, by);
  const missing = surplus(e, a, 2);
  const extra = surplus(a, e, 2);
  let reason = `${actual.length} solutions, expected ${expected.length}`;
  if (missing.length > 0) reason += `; missing ${missing.map((r) => showSolution(r.solution)).join(', ')}`;
  if (extra.length > 0) reason += `; unexpected ${extra.map((r) => showSolution(r.solution)).join(', ')}`;
  return reason;
}

type Matching = { ok: true; blankNodes: Map<string, string> } | { ok: false; reason: string };

/** Matches the rows as multisets, blank nodes up to a bijection. */
function matchRows(actual: readonly Row[], expected: readonly Row[], budget: number): Matching {
  const aGround = actual.filter((r) => r.ground);
  const eGround = expected.filter((r) => r.ground);
  const aBlank = actual.filter((r) => !r.ground);
  const eBlank = expected.filter((r) => !r.ground);
  const fail = (): Matching => ({ ok: false, reason: describeMismatch(actual, expected, (r) => r.signature) });
  if (actual.length !== expected.length || aGround.length !== eGround.length) return fail();
  const aKeys = counts(aGround, (r) => r.key);
  const eKeys = counts(eGround, (r) => r.key);
  for (const [k, rows] of eKeys) if (aKeys.get(k)?.length !== rows.length) return fail();
  // Rows with blank nodes: same signatures with the same multiplicities, then a search for a
  // consistent renaming, most constrained rows first.
  const aBySignature = counts(aBlank, (r) => r.signature);
  const eBySignature = counts(eBlank, (r) => r.signature);
  for (const [k, rows] of eBySignature) if (aBySignature.get(k)?.length !== rows.length) return fail();
  const order = [...eBlank].sort((x, y) => eBySignature.get(x.signature)!.length - eBySignature.get(y.signature)!.length);
  const a2e = new Map<string, string>();
  const e2a = new Map<string, string>();
  const used = new Set<Row>();
  let steps = 0;
  let gaveUp = false;

  const extend = (a: Row, e: Row, added: string[]): boolean => {
    for (const name of e.names) {
      const et = e.solution.get(name)!;
      if (et.termType !== 'BlankNode') continue;
      const at = a.solution.get(name)!;
      const mapped = a2e.get(at.value);
      if (mapped === undefined) {
        if (e2a.has(et.value)) return false;
        a2e.set(at.value, et.value);
        e2a.set(et.value, at.value);
        added.push(at.value);
      } else if (mapped !== et.value) {
        return false;
      }
    }
    return true;
  };
  const undo = (added: string[]): void => {
    for (const label of added) {
      e2a.delete(a2e.get(label)!);
      a2e.delete(label);
    }
  };
  const search = (i: number): boolean => {
    if (i === order.length) return true;
    const e = order[i]!;
    for (const a of aBySignature.get(e.signature)!) {
      if (used.has(a)) continue;
      if (++steps > budget) {
        gaveUp = true;
        return false;
      }
      const added: string[] = [];
      if (extend(a, e, added)) {
        used.add(a);
        if (search(i + 1)) return true;
        used.delete(a);
      }
      undo(added);
      if (gaveUp) return false;
    }
    return false;
  };
  if (search(0)) return { ok: true, blankNodes: a2e };
  if (gaveUp) return { ok: false, reason: `gave up matching blank nodes after ${budget} steps` };
  return { ok: false, reason: `${actual.length} solutions as expected, but no consistent renaming of blank nodes makes them equal` };
}

function distinct(rows: readonly Row[]): Row[] {
  const seen = new Set<string>();
  return rows.filter((r) => !seen.has(r.key) && (seen.add(r.key), true));
}

/**
 * Why `actual` is not the `expected` result, in one line, or undefined when they are the same.
 * Bindings are materialised (the actual result's iterable is consumed).
 */
export function compareResults(actual: QueryResult, expected: QueryResult, options: CompareOptions = {}): string | undefined {
  if (actual.type !== expected.type) return `a ${actual.type} result, expected ${expected.type}`;
  if (actual.type === 'boolean' && expected.type === 'boolean') {
    return actual.value === expected.value ? undefined : `${actual.value}, expected ${expected.value}`;
  }
  if (actual.type !== 'bindings' || expected.type !== 'bindings') return 'compareResults compares solutions and booleans only';
  if (options.variables ?? true) {
    const a = [...new Set(actual.variables)].sort();
    const e = [...new Set(expected.variables)].sort();
    if (a.join(' ') !== e.join(' ')) return `variables ?${a.join(' ?')}, expected ?${e.join(' ?')}`;
  }
  const budget = options.budget ?? 1_000_000;
  const numericValues = options.numericValues ?? false;
  const aRows = Array.from(actual.solutions, (s) => row(s, numericValues));
  const eRows = Array.from(expected.solutions, (s) => row(s, numericValues));
  let matching: Matching;
  if (options.laxCardinality) {
    matching = matchRows(distinct(aRows), distinct(eRows), budget);
    if (matching.ok) {
      const aKeys = counts(aRows, (r) => r.signature);
      const eKeys = counts(eRows, (r) => r.signature);
      for (const [k, rows] of aKeys) {
        if (rows.length > (eKeys.get(k)?.length ?? 0)) return `${showSolution(rows[0]!.solution)} occurs ${rows.length} times, more than the ${eKeys.get(k)?.length ?? 0} expected`;
      }
    }
  } else {
    matching = matchRows(aRows, eRows, budget);
  }
  if (!matching.ok) return matching.reason;
  const orderBy = options.orderBy ?? [];
  if (orderBy.length > 0 && !options.laxCardinality) {
    for (let i = 0; i < aRows.length; i++) {
      const a = aRows[i]!.solution;
      const e = eRows[i]!.solution;
      for (const v of orderBy) {
        const at = a.get(v);
        const et = e.get(v);
        let same: boolean;
        if (at === undefined || et === undefined) same = at === et;
        else if (at.termType === 'BlankNode' && et.termType === 'BlankNode') same = matching.blankNodes.get(at.value) === et.value;
        else same = termKey(at, numericValues) === termKey(et, numericValues);
        if (!same) {
          return `solution ${i + 1} is out of order: ?${v}=${at ? showTerm(at) : 'unbound'}, expected ${et ? showTerm(et) : 'unbound'}`;
        }
      }
    }
  }
  return undefined;
}
