/**
 * ABAC lives below the evaluator (SPEC §3): the same query over `store.view(predicate)` answers
 * only from the quads the predicate lets through — in patterns, counts, paths, EXISTS, GRAPH and
 * DESCRIBE alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type QuadStore } from '@ianode/store';
import { ask, select, triples } from './support.js';

let store: QuadStore;
beforeAll(async () => {
  store = await openStore({ defaultLabel: '!' });
  const data = `@prefix : <http://example/> .
    :p1 :phone "0400" ; :empId 1 ; :knows :p2 .
    :p2 :empId 2 ; :knows :p3 .
    GRAPH :hr { :p1 :salary 100 . }`;
  await store.load(data, { format: 'application/trig', label: 'employee' });
  await store.load('@prefix : <http://example/> . :p1 :phone "0400" . :p2 :knows :p3 .', { format: 'text/turtle', label: '*' });
});
afterAll(() => store.close());

const everyone = (label: string): boolean => label === '*';
const employee = (label: string): boolean => label === '*' || label === 'employee';

describe('views', () => {
  it('change the answers of the same query', () => {
    expect(select(store.view(employee), 'SELECT ?s ?id { ?s :empId ?id }')).toEqual(['?id=1 ?s=:p1', '?id=2 ?s=:p2']);
    expect(select(store.view(everyone), 'SELECT ?s ?id { ?s :empId ?id }')).toEqual([]);
    expect(select(store.view(everyone), 'SELECT ?s { ?s :phone ?x }')).toEqual(['?s=:p1']);
  });

  it('apply to aggregates, paths, EXISTS, GRAPH and DESCRIBE', () => {
    const pub = store.view(everyone);
    const emp = store.view(employee);
    expect(select(pub, 'SELECT (COUNT(*) AS ?n) { ?s ?p ?o }')).toEqual(['?n=2']);
    expect(select(emp, 'SELECT (COUNT(*) AS ?n) { ?s ?p ?o }')).toEqual(['?n=5']);
    expect(select(pub, 'SELECT ?o { :p1 :knows+ ?o }')).toEqual([]);
    expect(select(emp, 'SELECT ?o { :p1 :knows+ ?o }')).toEqual(['?o=:p2', '?o=:p3']);
    expect(ask(pub, 'ASK { FILTER EXISTS { ?s :empId ?x } }')).toBe(false);
    expect(select(pub, 'SELECT ?g { GRAPH ?g { } }')).toEqual([]);
    expect(select(emp, 'SELECT ?g { GRAPH ?g { } }')).toEqual(['?g=:hr']);
    expect(triples(pub, 'DESCRIBE :p1')).toEqual([':p1 :phone "0400"']);
  });
});
