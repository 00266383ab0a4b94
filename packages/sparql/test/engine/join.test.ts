import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuadStore } from '@ianode/store';
import { select, storeWith } from './support.js';

let store: QuadStore;
beforeAll(async () => {
  store = await storeWith(`
    :a :p 1 ; :name "A" ; :mail "a@x" .
    :b :p 2 ; :name "B" .
    :c :p 3 .
    :a :q :b .
  `);
});
afterAll(() => store.close());

describe('OPTIONAL (LeftJoin)', () => {
  it('keeps rows without a match', () => {
    expect(select(store, 'SELECT ?s ?n { ?s :p ?o OPTIONAL { ?s :name ?n } }')).toEqual(['?n="A" ?s=:a', '?n="B" ?s=:b', '?s=:c']);
  });

  it('evaluates the OPTIONAL filter on the merged row', () => {
    expect(select(store, 'SELECT ?s ?n { ?s :p ?o OPTIONAL { ?s :name ?n FILTER(?o > 1) } }')).toEqual(['?n="B" ?s=:b', '?s=:a', '?s=:c']);
  });

  it('joins a multi-pattern optional group', () => {
    expect(select(store, 'SELECT ?s ?n ?m { ?s :p ?o OPTIONAL { ?s :name ?n . ?s :mail ?m } }')).toEqual(['?m="a@x" ?n="A" ?s=:a', '?s=:b', '?s=:c']);
  });

  it('scopes a filter inside a nested group of an OPTIONAL to that group', () => {
    // ?o is not bound inside the inner group, so the filter fails there (SPARQL 1.1 §18.2.2).
    expect(select(store, 'SELECT ?s ?n { ?s :p ?o OPTIONAL { { ?s :name ?n FILTER(?o > 1) } } }')).toEqual(['?s=:a', '?s=:b', '?s=:c']);
  });

  it('treats possibly-unbound variables as compatible in a later join', () => {
    // ?n is unbound for :c; joining with a pattern that binds ?n must not drop compatible rows.
    const r = select(store, 'SELECT ?s ?n { { ?s :p ?o OPTIONAL { ?s :name ?n } } { SELECT ?n { ?x :name ?n } } }');
    expect(r).toEqual(['?n="A" ?s=:a', '?n="A" ?s=:c', '?n="B" ?s=:b', '?n="B" ?s=:c']);
  });
});

describe('UNION and MINUS', () => {
  it('concatenates branches', () => {
    expect(select(store, 'SELECT ?s { { ?s :p 1 } UNION { ?s :p 3 } UNION { ?s :p 1 } }')).toEqual(['?s=:a', '?s=:a', '?s=:c']);
  });

  it('removes compatible rows that share a variable', () => {
    expect(select(store, 'SELECT ?s { ?s :p ?o MINUS { ?s :name ?n } }')).toEqual(['?s=:c']);
  });

  it('removes nothing when the domains are disjoint', () => {
    expect(select(store, 'SELECT ?s { ?s :p ?o MINUS { ?x :name ?n } }')).toEqual(['?s=:a', '?s=:b', '?s=:c']);
  });

  it('compares only variables bound on both sides', () => {
    const r = select(store, 'SELECT ?s ?n { ?s :p ?o OPTIONAL { ?s :name ?n } MINUS { ?s :mail ?m } }');
    expect(r).toEqual(['?n="B" ?s=:b', '?s=:c']);
  });
});

describe('joins of sub-patterns', () => {
  it('hash-joins a sub-select with a pattern', () => {
    expect(select(store, 'SELECT ?s ?t { ?s :q ?t { SELECT ?t (COUNT(*) AS ?c) { ?t ?p ?v } GROUP BY ?t } }')).toEqual(['?s=:a ?t=:b']);
  });

  it('keeps sub-select variables that are not projected out of the outer scope', () => {
    expect(select(store, 'SELECT ?s ?o { ?s :p ?o { SELECT ?s { ?s :name ?o } } }')).toEqual(['?o=1 ?s=:a', '?o=2 ?s=:b']);
  });

  it('forms a cross product when nothing is shared', () => {
    expect(select(store, 'SELECT ?a ?b { ?a :q ?x . { SELECT ?b { ?b :mail ?m } } }')).toEqual(['?a=:a ?b=:a']);
  });

  it('joins VALUES with UNDEF', () => {
    expect(select(store, 'SELECT ?s ?n { ?s :name ?n VALUES (?s ?n) { (:a UNDEF) (UNDEF "B") (:c "C") } }')).toEqual(['?n="A" ?s=:a', '?n="B" ?s=:b']);
  });
});
