/**
 * Test helpers: load TriG into an in-memory store (every quad visible), run a query, and read the
 * answer as a sorted list of compact solution strings (`?o=1 ?s=<http://example/a>`), so tests
 * compare multisets of solutions.
 */
import { termToKey, type Quad, type Term } from '@ianode/rdf';
import { openStore, type QuadStore } from '@ianode/store';
import { executeQuery } from '../../src/engine/execute.js';
import type { QueryOptions, QueryResult } from '../../src/api.js';

export const PREFIXES = 'PREFIX : <http://example/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n';

export async function storeWith(trig: string): Promise<QuadStore> {
  const store = await openStore({ defaultLabel: '*' });
  await store.load('@prefix : <http://example/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n' + trig, { format: 'application/trig' });
  return store;
}

/** Compact form of a term: <iri>, "lex", "lex"@l, "lex"^^<dt> shortened for xsd integer/decimal,
 * true/false for xsd:boolean, _: for any blank node (labels are not stable). */
export function show(t: Term): string {
  if (t.termType === 'BlankNode') return '_:';
  if (t.termType === 'Literal') {
    const dt = t.datatype.value;
    if (dt === 'http://www.w3.org/2001/XMLSchema#integer') return t.value;
    if (dt === 'http://www.w3.org/2001/XMLSchema#decimal') return t.value;
    if (dt === 'http://www.w3.org/2001/XMLSchema#boolean') return t.value;
  }
  return termToKey(t).replace(/^<(.*)$/, '<$1>').replace('http://example/', ':').replace(/^<:(.*)>$/, ':$1');
}

export function rows(result: QueryResult): string[] {
  if (result.type !== 'bindings') throw new Error(`expected bindings, got ${result.type}`);
  const out: string[] = [];
  for (const s of result.solutions) {
    out.push(
      [...s]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => `?${k}=${show(v)}`)
        .join(' '),
    );
  }
  return out.sort();
}

/** The sorted solutions of a SELECT over the store. */
export function select(store: QuadStore | Parameters<typeof executeQuery>[0], query: string, options?: QueryOptions): string[] {
  return rows(executeQuery(store, PREFIXES + query, options));
}

/** Solutions in result order (for ORDER BY tests). */
export function selectOrdered(store: Parameters<typeof executeQuery>[0], query: string, options?: QueryOptions): string[] {
  const r = executeQuery(store, PREFIXES + query, options);
  if (r.type !== 'bindings') throw new Error('expected bindings');
  return [...r.solutions].map((s) =>
    [...s]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `?${k}=${show(v)}`)
      .join(' '),
  );
}

export function ask(store: Parameters<typeof executeQuery>[0], query: string, options?: QueryOptions): boolean {
  const r = executeQuery(store, PREFIXES + query, options);
  if (r.type !== 'boolean') throw new Error('expected a boolean');
  return r.value;
}

/** Triples of a CONSTRUCT / DESCRIBE result, compact and sorted. */
export function triples(store: Parameters<typeof executeQuery>[0], query: string, options?: QueryOptions): string[] {
  const r = executeQuery(store, PREFIXES + query, options);
  if (r.type !== 'quads') throw new Error('expected quads');
  return [...r.quads].map((q: Quad) => `${show(q.subject)} ${show(q.predicate)} ${show(q.object)}`).sort();
}
