/**
 * Golden plans: query in, optimised plan out (printed by algebra/print.ts). Counts in the data
 * make the join order visible: :rare has 1 quad, :some 10, :many 100.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuadStore } from '@ianode/store';
import { explainQuery } from '../../src/engine/execute.js';
import { PREFIXES, storeWith } from '../engine/support.js';

let store: QuadStore;
beforeAll(async () => {
  const lines = [':s0 :rare 1 .'];
  for (let i = 0; i < 10; i++) lines.push(`:s${i} :some ${i} .`);
  for (let i = 0; i < 100; i++) lines.push(`:s${i} :many ${i} . :s${i} :next :s${i + 1} .`);
  store = await storeWith(lines.join('\n'));
});
afterAll(() => store.close());

const plan = (q: string): string => explainQuery(store, PREFIXES + q).replaceAll('http://example/', ':');

describe('golden plans', () => {
  it('orders the right side of an OPTIONAL by what the left side binds', () => {
    // On its own, :rare is the cheapest pattern; but every row reaching the OPTIONAL has ?s bound,
    // so the pattern joining on ?s must come first (else :rare is rescanned for every row).
    expect(plan('SELECT * { ?s :some ?x OPTIONAL { ?y :rare ?r . ?s :next ?y } }')).toBe(
      `select ?r ?s ?x ?y
  project ?r ?s ?x ?y
    leftJoin
      bgp
        ?s <:some> ?x
      bgp
        ?s <:next> ?y
        ?y <:rare> ?r`,
    );
  });

  it('orders a star by the counts of its patterns', () => {
    expect(plan('SELECT * { ?s :many ?m . ?s :some ?x . ?s :rare ?r }')).toBe(
      `select ?m ?r ?s ?x
  project ?m ?r ?s ?x
    bgp
      ?s <:rare> ?r
      ?s <:some> ?x
      ?s <:many> ?m`,
    );
  });

  it('keeps the placed patterns connected in a chain', () => {
    expect(plan('SELECT * { ?a :next ?b . ?c :rare ?r . ?b :next ?c }')).toBe(
      `select ?a ?b ?c ?r
  project ?a ?b ?c ?r
    bgp
      ?c <:rare> ?r
      ?b <:next> ?c
      ?a <:next> ?b`,
    );
  });

  it('merges BGPs across group boundaries', () => {
    expect(plan('SELECT * { { ?s :many ?m } { ?s :rare ?r } }')).toBe(
      `select ?m ?r ?s
  project ?m ?r ?s
    bgp
      ?s <:rare> ?r
      ?s <:many> ?m`,
    );
  });

  it('splits conjunctions and places each filter where its variables are bound', () => {
    expect(plan('SELECT * { ?s :many ?m . ?s :some ?x . FILTER(?x > 2 && ?m < 50 && NOT EXISTS { ?s :rare 1 }) }')).toBe(
      `select ?m ?s ?x
  project ?m ?s ?x
    filter not exists {...}
      filter (?m < 50)
        join
          filter (?x > 2)
            bgp
              ?s <:some> ?x
          bgp
            ?s <:many> ?m`,
    );
  });

  it('pushes filters into one side of a join and below OPTIONAL', () => {
    expect(plan('SELECT * { ?s :some ?x OPTIONAL { ?s :many ?m } FILTER(?x = 3) }')).toBe(
      `select ?m ?s ?x
  project ?m ?s ?x
    leftJoin
      filter (?x = 3)
        bgp
          ?s <:some> ?x
      bgp
        ?s <:many> ?m`,
    );
  });

  it('folds constant filters', () => {
    expect(plan('SELECT * { ?s :some ?x FILTER(1 + 1 = 3) }')).toBe(
      `select ?s ?x
  empty`,
    );
    expect(plan('SELECT * { ?s :some ?x FILTER(true) }')).toBe(
      `select ?s ?x
  project ?s ?x
    bgp
      ?s <:some> ?x`,
    );
  });

  it('turns ORDER BY + LIMIT into a top-k sort', () => {
    expect(plan('SELECT ?s { ?s :many ?m } ORDER BY DESC(?m) OFFSET 5 LIMIT 10')).toBe(
      `select ?s
  slice 5 10
    project ?s
      orderBy desc(?m) top 15
        bgp
          ?s <:many> ?m`,
    );
  });

  it('starts from a path with a constant end', () => {
    expect(plan('SELECT * { ?x :many ?m . ?x :next* :s50 }')).toBe(
      `select ?m ?x
  project ?m ?x
    join
      path ?x <:next>* <:s50>
      bgp
        ?x <:many> ?m`,
    );
  });

  it('pushes a variable graph name into the patterns it reads, or loops over graphs', () => {
    expect(plan('SELECT * { GRAPH ?g { ?s :some ?x } }')).toBe(
      `select ?g ?s ?x
  project ?g ?s ?x
    bgp
      ?s <:some> ?x @?g`,
    );
    expect(plan('SELECT * { GRAPH ?g { } }')).toBe(
      `select ?g
  project ?g
    graph ?g
      bgp {}`,
    );
  });

  it('lowers aggregates, OPTIONAL and MINUS', () => {
    expect(plan('SELECT ?x (COUNT(*) AS ?n) { ?x :many ?m OPTIONAL { ?x :next ?y } MINUS { ?x :rare ?r } } GROUP BY ?x')).toBe(
      `select ?x ?n
  project ?x ?n
    extend ?n := ?var0
      group (?x) ?var0 := count(*)
        minus
          leftJoin
            bgp
              ?x <:many> ?m
            bgp
              ?x <:next> ?y
          bgp
            ?x <:rare> ?r`,
    );
  });
});
