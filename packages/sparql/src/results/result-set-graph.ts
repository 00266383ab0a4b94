/**
 * Result sets written as RDF graphs in the DAWG result-set vocabulary
 * (http://www.w3.org/2001/sw/DataAccess/tests/result-set#), used by the SPARQL 1.0 test suite for
 * expected results in Turtle and RDF/XML:
 *
 *   [] a rs:ResultSet ; rs:resultVariable "x" ;
 *      rs:solution [ rs:index 1 ; rs:binding [ rs:variable "x" ; rs:value <...> ] ] .
 *   [] a rs:ResultSet ; rs:boolean true .
 *
 * Solutions with rs:index come in index order, others after them in document order.
 */
import type { Quad, Term } from '@ianode/rdf';
import type { Solution } from '../api.js';
import { ResultsSyntaxError } from './errors.js';
import type { ParsedResults } from './types.js';

export const RS = 'http://www.w3.org/2001/sw/DataAccess/tests/result-set#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const FORMAT = 'result-set graph';

const keyOf = (t: Term): string => `${t.termType}:${t.value}`;

/** Reads the one rs:ResultSet of a graph (the graph's format is the caller's business). */
export function parseResultSetGraph(quads: Iterable<Quad>): ParsedResults {
  const fail = (detail: string): never => {
    throw new ResultsSyntaxError(FORMAT, detail);
  };
  const bySubject = new Map<string, Quad[]>();
  const resultSets: Term[] = [];
  for (const q of quads) {
    const k = keyOf(q.subject);
    let list = bySubject.get(k);
    if (!list) bySubject.set(k, (list = []));
    list.push(q);
    if (q.predicate.value === RDF_TYPE && q.object.termType === 'NamedNode' && q.object.value === RS + 'ResultSet') resultSets.push(q.subject);
  }
  if (resultSets.length !== 1) return fail(`expected one rs:ResultSet, found ${resultSets.length}`);
  const objects = (subject: Term, property: string): Term[] =>
    (bySubject.get(keyOf(subject)) ?? []).filter((q) => q.predicate.value === RS + property).map((q) => q.object);
  const one = (subject: Term, property: string): Term | undefined => {
    const found = objects(subject, property);
    if (found.length > 1) fail(`more than one rs:${property}`);
    return found[0];
  };
  const rs = resultSets[0]!;
  const boolean = one(rs, 'boolean');
  if (boolean !== undefined) {
    if (boolean.termType !== 'Literal' || (boolean.value !== 'true' && boolean.value !== 'false')) return fail('rs:boolean must be true or false');
    return { type: 'boolean', value: boolean.value === 'true' };
  }
  const variables = objects(rs, 'resultVariable').map((v) => v.value);
  const indexed: { index: number; order: number; solution: Solution }[] = [];
  objects(rs, 'solution').forEach((s, order) => {
    const solution: Solution = new Map();
    for (const b of objects(s, 'binding')) {
      const variable = one(b, 'variable');
      const value = one(b, 'value');
      if (variable === undefined || value === undefined) return fail('an rs:binding needs an rs:variable and an rs:value');
      if (solution.has(variable.value)) return fail(`?${variable.value} is bound twice in one solution`);
      solution.set(variable.value, value);
      if (!variables.includes(variable.value)) variables.push(variable.value);
    }
    const index = one(s, 'index');
    indexed.push({ index: index === undefined ? Number.POSITIVE_INFINITY : Number(index.value), order, solution });
  });
  indexed.sort((a, b) => a.index - b.index || a.order - b.order);
  return { type: 'bindings', variables, solutions: indexed.map((x) => x.solution) };
}
