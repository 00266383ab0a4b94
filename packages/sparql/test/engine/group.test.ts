import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuadStore } from '@ianode/store';
import { select, storeWith } from './support.js';

let store: QuadStore;
beforeAll(async () => {
  store = await storeWith(`
    :o1 :product :a ; :price 10 .
    :o2 :product :a ; :price 20 .
    :o3 :product :b ; :price 5 .
    :o4 :product :b .
    :o5 :product :c ; :price "n/a" .
  `);
});
afterAll(() => store.close());

describe('GROUP BY and aggregates', () => {
  it('counts rows and bound values per group', () => {
    expect(select(store, 'SELECT ?p (COUNT(*) AS ?n) (COUNT(?x) AS ?m) { ?o :product ?p OPTIONAL { ?o :price ?x } } GROUP BY ?p')).toEqual([
      '?m=1 ?n=1 ?p=:c',
      '?m=1 ?n=2 ?p=:b',
      '?m=2 ?n=2 ?p=:a',
    ]);
  });

  it('sums, averages and finds extremes; errors make SUM unbound', () => {
    expect(select(store, 'SELECT ?p (SUM(?x) AS ?s) (MIN(?x) AS ?lo) (MAX(?x) AS ?hi) { ?o :product ?p ; :price ?x } GROUP BY ?p')).toEqual([
      '?hi="n/a" ?lo="n/a" ?p=:c',
      '?hi=20 ?lo=10 ?p=:a ?s=30',
      '?hi=5 ?lo=5 ?p=:b ?s=5',
    ]);
  });

  it('aggregates the whole input as one group without GROUP BY, even when empty', () => {
    expect(select(store, 'SELECT (COUNT(*) AS ?n) { ?o :price ?x }')).toEqual(['?n=4']);
    expect(select(store, 'SELECT (COUNT(*) AS ?n) (SUM(?x) AS ?s) { ?o :nothing ?x }')).toEqual(['?n=0 ?s=0']);
    expect(select(store, 'SELECT ?o (COUNT(*) AS ?n) { ?o :nothing ?x } GROUP BY ?o')).toEqual([]);
  });

  it('counts distinct values and distinct solutions', () => {
    expect(select(store, 'SELECT (COUNT(DISTINCT ?p) AS ?n) { ?o :product ?p }')).toEqual(['?n=3']);
    expect(select(store, 'SELECT (COUNT(DISTINCT *) AS ?n) { { ?o :product ?p } UNION { ?o :product ?p } }')).toEqual(['?n=5']);
  });

  it('filters groups with HAVING and groups by expressions', () => {
    expect(select(store, 'SELECT ?p { ?o :product ?p } GROUP BY ?p HAVING (COUNT(*) > 1)')).toEqual(['?p=:a', '?p=:b']);
    expect(select(store, 'SELECT ?k (COUNT(*) AS ?n) { ?o :price ?x } GROUP BY (isNumeric(?x) AS ?k)')).toEqual([
      '?k=false ?n=1',
      '?k=true ?n=3',
    ]);
  });

  it('concatenates and samples', () => {
    expect(select(store, 'SELECT (GROUP_CONCAT(?x; SEPARATOR="|") AS ?g) { :o1 :price ?x }')).toEqual(['?g="10"']);
    expect(select(store, 'SELECT (SAMPLE(?x) AS ?s) { :o3 :price ?x }')).toEqual(['?s=5']);
  });
});
