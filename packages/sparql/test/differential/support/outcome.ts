/**
 * Running a query to a fully materialised outcome (errors included) and comparing two outcomes:
 * solutions with the W3C-style `compareResults` (multisets, blank nodes up to renaming, the ORDER BY
 * keys as a sequence), booleans by value, CONSTRUCT / DESCRIBE graphs by isomorphism.
 */
import { isomorphic } from 'rdf-isomorphic';
import { termToNTriples, type Dataset, type Quad } from '@ianode/rdf';
import { executeQuery } from '../../../src/engine/execute.js';
import { compareResults, showSolution } from '../../../src/results/compare.js';
import type { QueryOptions, Solution } from '../../../src/api.js';

export type Outcome =
  | { type: 'bindings'; variables: string[]; solutions: Solution[] }
  | { type: 'boolean'; value: boolean }
  | { type: 'quads'; quads: Quad[] }
  | { type: 'error'; message: string };

/** Execute and materialise. Errors are part of the outcome: a query that fails on one side only
 * is a difference (and an error message must not depend on hidden data either). */
export function run(dataset: Dataset, query: string, options: QueryOptions = {}): Outcome {
  try {
    const result = executeQuery(dataset, query, options);
    switch (result.type) {
      case 'bindings':
        return { type: 'bindings', variables: result.variables, solutions: [...result.solutions] };
      case 'boolean':
        return result;
      case 'quads':
        return { type: 'quads', quads: dedupe([...result.quads]) };
    }
  } catch (err) {
    return { type: 'error', message: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

const showQuad = (q: Quad): string => `${termToNTriples(q.subject)} ${termToNTriples(q.predicate)} ${termToNTriples(q.object)}`;

/** A graph is a set: drop repeated triples (same blank node labels included). */
function dedupe(quads: Quad[]): Quad[] {
  const seen = new Set<string>();
  return quads.filter((q) => {
    const k = showQuad(q) + (q.graph.termType === 'DefaultGraph' ? '' : ' ' + termToNTriples(q.graph));
    return !seen.has(k) && (seen.add(k), true);
  });
}

export function size(o: Outcome): number {
  switch (o.type) {
    case 'bindings':
      return o.solutions.length;
    case 'quads':
      return o.quads.length;
    case 'boolean':
      return o.value ? 1 : 0;
    default:
      return 0;
  }
}

/** Why `actual` differs from `expected`, with the differing rows / triples, or undefined. */
export function compareOutcomes(actual: Outcome, expected: Outcome, orderBy: readonly string[] = []): string | undefined {
  if (actual.type === 'error' || expected.type === 'error') {
    if (actual.type === 'error' && expected.type === 'error') {
      return actual.message === expected.message ? undefined : `error "${actual.message}", expected error "${expected.message}"`;
    }
    return actual.type === 'error' ? `error "${actual.message}", expected a ${expected.type} result` : `a ${actual.type} result, expected error "${(expected as { message: string }).message}"`;
  }
  if (actual.type !== expected.type) return `a ${actual.type} result, expected ${expected.type}`;
  if (actual.type === 'quads' && expected.type === 'quads') {
    if (isomorphic(actual.quads, expected.quads)) return undefined;
    const a = new Set(actual.quads.map(showQuad));
    const e = new Set(expected.quads.map(showQuad));
    const extra = [...a].filter((t) => !e.has(t) && !t.includes('_:'));
    const missing = [...e].filter((t) => !a.has(t) && !t.includes('_:'));
    return (
      `graphs not isomorphic: ${actual.quads.length} triples, expected ${expected.quads.length}` +
      (extra.length ? `; unexpected ${extra.slice(0, 6).join(' | ')}` : '') +
      (missing.length ? `; missing ${missing.slice(0, 6).join(' | ')}` : '') +
      (extra.length + missing.length === 0 ? '; ground triples agree, blank-node structure differs' : '')
    );
  }
  if (actual.type === 'bindings' && expected.type === 'bindings') {
    return compareResults({ ...actual }, { ...expected }, { orderBy });
  }
  return compareResults(actual as never, expected as never);
}

/** An outcome in a few lines, for failure messages. */
export function showOutcome(o: Outcome, limit = 12): string {
  switch (o.type) {
    case 'error':
      return `error: ${o.message}`;
    case 'boolean':
      return String(o.value);
    case 'quads': {
      const lines = o.quads.map(showQuad).sort();
      return `${lines.length} triples\n    ${lines.slice(0, limit).join('\n    ')}${lines.length > limit ? '\n    ...' : ''}`;
    }
    case 'bindings': {
      const lines = o.solutions.map(showSolution).sort();
      return `${lines.length} solutions\n    ${lines.slice(0, limit).join('\n    ')}${lines.length > limit ? '\n    ...' : ''}`;
    }
  }
}
