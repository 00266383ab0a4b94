import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuadStore } from '@ianode/store';
import { select, storeWith } from '../engine/support.js';

let store: QuadStore;
beforeAll(async () => {
  store = await storeWith(`
    :a :next :b . :b :next :c . :c :next :a .
    :c :next :d .
    :x :sub :y . :y :sub :z .
    :a :p :m1 . :a :p :m2 . :m1 :q :e . :m2 :q :e .
    :a :label "A" .
    GRAPH :g { :y :sub :w . }
  `);
});
afterAll(() => store.close());

describe('property paths', () => {
  it('follows sequences with multiset semantics', () => {
    expect(select(store, 'SELECT ?o { :a :p/:q ?o }')).toEqual(['?o=:e', '?o=:e']);
  });

  it('follows inverse links and alternatives', () => {
    expect(select(store, 'SELECT ?s { :b ^:next ?s }')).toEqual(['?s=:a']);
    expect(select(store, 'SELECT ?o { :a (:next|:label) ?o }')).toEqual(['?o="A"', '?o=:b']);
  });

  it('gives distinct ends for one-or-more, including cycles', () => {
    expect(select(store, 'SELECT ?o { :a :next+ ?o }')).toEqual(['?o=:a', '?o=:b', '?o=:c', '?o=:d']);
    expect(select(store, 'SELECT ?s { ?s :next+ :d }')).toEqual(['?s=:a', '?s=:b', '?s=:c']);
  });

  it('includes the start for zero-or-more and zero-or-one', () => {
    expect(select(store, 'SELECT ?o { :x :sub* ?o }')).toEqual(['?o=:x', '?o=:y', '?o=:z']);
    expect(select(store, 'SELECT ?o { :x :sub? ?o }')).toEqual(['?o=:x', '?o=:y']);
    expect(select(store, 'SELECT ?o { :nowhere :sub* ?o }')).toEqual(['?o=:nowhere']);
  });

  it('checks reachability with both ends bound', () => {
    expect(select(store, 'SELECT * { :x :sub* :z }')).toEqual(['']);
    expect(select(store, 'SELECT * { :z :sub* :x }')).toEqual([]);
  });

  it('ranges zero-length paths with both ends unbound over the graph nodes', () => {
    const r = select(store, 'SELECT ?s ?o { ?s :sub* ?o }');
    expect(r).toContain('?o=:y ?s=:x');
    expect(r).toContain('?o=:e ?s=:e');
    expect(r).not.toContain('?o=:w ?s=:y'); // :w is only in the named graph
  });

  it('does not invent nodes for variables bound elsewhere (zero-length)', () => {
    expect(select(store, 'SELECT ?v { VALUES ?v { 1 } ?v :sub? ?v }')).toEqual([]);
  });

  it('matches negated property sets, forwards and inverse', () => {
    expect(select(store, 'SELECT ?o { :a !(:next|:p) ?o }')).toEqual(['?o="A"']);
    expect(select(store, 'SELECT ?s { :e !^:p ?s }')).toEqual(['?s=:m1', '?s=:m2']);
  });

  it('evaluates paths per named graph under GRAPH ?g', () => {
    expect(select(store, 'SELECT ?g ?o { GRAPH ?g { :y :sub+ ?o } }')).toEqual(['?g=:g ?o=:w']);
  });

  it('joins a path with bound subjects from other patterns', () => {
    expect(select(store, 'SELECT ?s ?o { ?s :label "A" . ?s :next/:next ?o }')).toEqual(['?o=:c ?s=:a']);
  });
});
