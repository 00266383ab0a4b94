/**
 * LIMIT and OFFSET on CONSTRUCT and DESCRIBE (SPARQL 1.1 §16.2, §15): they limit the solutions the
 * template is instantiated from (or the resources described), in ORDER BY order. Issue 15 item 1:
 * these answered 501 "unexpected query form slice".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type QuadStore } from '@ianode/store';
import { executeQuery } from '../../src/engine/execute.js';

let store: QuadStore;
beforeAll(async () => {
  store = await openStore({ defaultLabel: '*' });
  await store.load(
    '<http://x/a> <http://x/p> 1 . <http://x/b> <http://x/p> 2 . <http://x/c> <http://x/p> 3 . <http://x/c> <http://x/q> "c" .\n' +
      'GRAPH <http://x/g> { <http://x/d> <http://x/p> 4 }',
    { format: 'application/trig' },
  );
});
afterAll(() => store.close());

function triples(query: string): string[] {
  const result = executeQuery(store, query, {});
  if (result.type !== 'quads') throw new Error(`expected quads, got ${result.type}`);
  return [...result.quads].map((q) => `${q.subject.value} ${q.predicate.value} ${q.object.value}`);
}

describe('CONSTRUCT and DESCRIBE with LIMIT / OFFSET', () => {
  it('CONSTRUCT … ORDER BY … LIMIT … OFFSET instantiates the template for the chosen solutions only', () => {
    expect(triples('CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } ORDER BY ?s ?p LIMIT 2 OFFSET 1')).toEqual([
      'http://x/b http://x/p 2',
      'http://x/c http://x/p 3',
    ]);
  });

  it('the short form, LIMIT 0, and a template that makes two triples a solution', () => {
    expect(triples('CONSTRUCT WHERE { ?s <http://x/p> ?o } LIMIT 0')).toEqual([]);
    expect(triples('CONSTRUCT WHERE { ?s <http://x/p> ?o } ORDER BY DESC(?o) LIMIT 1')).toEqual(['http://x/c http://x/p 3']);
    expect(triples('CONSTRUCT { ?s <http://x/r> ?o . ?s <http://x/t> "seen" } WHERE { ?s <http://x/p> ?o } ORDER BY ?o LIMIT 1')).toHaveLength(2);
  });

  it('with FROM / FROM NAMED the slice still applies to the solutions', () => {
    expect(triples('CONSTRUCT { ?s ?p ?o } FROM <http://x/g> WHERE { ?s ?p ?o } LIMIT 5')).toEqual(['http://x/d http://x/p 4']);
    expect(triples('CONSTRUCT { ?s ?p ?o } FROM <http://x/none> WHERE { ?s ?p ?o } LIMIT 5')).toEqual([]);
  });

  it('DESCRIBE … LIMIT describes the first resources only', () => {
    expect(triples('DESCRIBE ?s WHERE { ?s <http://x/p> ?o } ORDER BY DESC(?s) LIMIT 1').sort()).toEqual([
      'http://x/c http://x/p 3',
      'http://x/c http://x/q c',
    ]);
    expect(triples('DESCRIBE ?s WHERE { ?s <http://x/p> ?o } ORDER BY ?s OFFSET 2').sort()).toEqual([
      'http://x/c http://x/p 3',
      'http://x/c http://x/q c',
    ]);
  });
});
