import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuadStore } from '@ianode/store';
import { select, storeWith } from './support.js';

let store: QuadStore;
beforeAll(async () => {
  store = await storeWith(`
    :a :p 1 ; :name "A" .
    :b :p 2.5 ; :name "B"@en .
    :c :p "x" .
    :d :p 1.0e1 .
    :e :p "12345678901234567890"^^xsd:integer .
    :f :p "abc"^^xsd:integer .
    :a :q :b .
  `);
});
afterAll(() => store.close());

describe('FILTER', () => {
  it('keeps rows whose expression is true; errors count as false', () => {
    expect(select(store, 'SELECT ?s { ?s :p ?o FILTER(?o > 2) }')).toEqual(['?s=:b', '?s=:d', '?s=:e']);
    expect(select(store, 'SELECT ?s { ?s :p ?o FILTER(?o <= 2) }')).toEqual(['?s=:a']);
  });

  it('gives the numeric fast path the same answers as the general path', () => {
    const q = (op: string, c: string): string[] => select(store, `SELECT ?s { ?s :p ?o FILTER(?o ${op} ${c}) }`);
    const general = (op: string, c: string): string[] => select(store, `SELECT ?s { ?s :p ?o FILTER(?o ${op} ${c} || false) }`);
    for (const op of ['<', '>', '<=', '>=', '=', '!=']) {
      for (const c of ['1', '2.5', '1e1', '"x"', '12345678901234567890']) expect(q(op, c), `${op} ${c}`).toEqual(general(op, c));
    }
  });

  it('fails on unbound variables', () => {
    expect(select(store, 'SELECT ?s { ?s :p ?o OPTIONAL { ?s :zzz ?z } FILTER(?z = 1) }')).toEqual([]);
    expect(select(store, 'SELECT ?s { ?s :p ?o OPTIONAL { ?s :zzz ?z } FILTER(!BOUND(?z) && ?o = 1) }')).toEqual(['?s=:a']);
  });

  it('evaluates EXISTS and NOT EXISTS with the row substituted', () => {
    expect(select(store, 'SELECT ?s { ?s :p ?o FILTER EXISTS { ?s :name ?n } }')).toEqual(['?s=:a', '?s=:b']);
    expect(select(store, 'SELECT ?s { ?s :p ?o FILTER NOT EXISTS { ?s :name ?n } }')).toEqual(['?s=:c', '?s=:d', '?s=:e', '?s=:f']);
    expect(select(store, 'SELECT ?s { ?s :p ?o FILTER EXISTS { ?x :q ?y FILTER(?y = ?s) } }')).toEqual(['?s=:b']);
  });

  it('drops everything for a constant false filter and nothing for a constant true one', () => {
    expect(select(store, 'SELECT ?s { ?s :name ?n FILTER(1 > 2) }')).toEqual([]);
    expect(select(store, 'SELECT ?s { ?s :name ?n FILTER(1 < 2) }')).toEqual(['?s=:a', '?s=:b']);
  });
});

describe('BIND and SELECT expressions (Extend)', () => {
  it('binds computed values, joinable with stored ones', () => {
    expect(select(store, 'SELECT ?s ?v { ?s :p ?o FILTER(isNumeric(?o) && ?o < 3) BIND(?o * 2 AS ?v) }')).toEqual(['?s=:a ?v=2', '?s=:b ?v=5.0']);
    // The computed 1 is the stored 1: the join on ?o finds :a.
    expect(select(store, 'SELECT ?s { BIND(1 AS ?o) ?s :p ?o }')).toEqual(['?s=:a']);
  });

  it('leaves the variable unbound when the expression errors', () => {
    expect(select(store, 'SELECT ?s ?v { ?s :p ?o FILTER(?s = :c) BIND(?o + 1 AS ?v) }')).toEqual(['?s=:c']);
  });

  it('gives BNODE(label) one blank node per solution across expressions', () => {
    const r = select(store, 'SELECT ?same { ?s :name ?n BIND(BNODE("x") AS ?b1) BIND(BNODE("x") AS ?b2) BIND(sameTerm(?b1, ?b2) AS ?same) }');
    expect(r).toEqual(['?same=true', '?same=true']);
    const distinct = select(store, 'SELECT (COUNT(DISTINCT ?b) AS ?n) { ?s :name ?x BIND(BNODE("x") AS ?b) }');
    expect(distinct).toEqual(['?n=2']);
  });

  it('projects expressions in SELECT', () => {
    expect(select(store, 'SELECT (STR(?n) AS ?t) { ?s :name ?n }')).toEqual(['?t="A"', '?t="B"']);
  });
});
