import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuadStore } from '@ianode/store';
import { select, storeWith } from './support.js';

let store: QuadStore;
beforeAll(async () => {
  store = await storeWith(`
    :a :p 1 ; :q :b ; :name "A" .
    :b :p 2 ; :q :c ; :name "B" .
    :c :p 3 ; :q :c .
    :d :knows :d .
    GRAPH :g1 { :a :p 10 . }
  `);
});
afterAll(() => store.close());

describe('basic graph patterns', () => {
  it('matches one pattern in the default graph only', () => {
    expect(select(store, 'SELECT * { ?s :p ?o }')).toEqual(['?o=1 ?s=:a', '?o=2 ?s=:b', '?o=3 ?s=:c']);
  });

  it('joins patterns on shared variables', () => {
    expect(select(store, 'SELECT ?s ?o2 { ?s :q ?t . ?t :p ?o2 }')).toEqual(['?o2=2 ?s=:a', '?o2=3 ?s=:b', '?o2=3 ?s=:c']);
  });

  it('checks a variable repeated within one pattern', () => {
    expect(select(store, 'SELECT ?x { ?x :q ?x }')).toEqual(['?x=:c']);
    expect(select(store, 'SELECT ?x ?p { ?x ?p ?x }')).toEqual(['?p=:knows ?x=:d', '?p=:q ?x=:c']);
  });

  it('treats a blank node in the query as an unprojected variable', () => {
    expect(select(store, 'SELECT ?o { _:x :q ?o . _:x :name "A" }')).toEqual(['?o=:b']);
  });

  it('answers constants the dataset does not know with nothing', () => {
    expect(select(store, 'SELECT * { ?s :nothing ?o }')).toEqual([]);
    expect(select(store, 'SELECT * { ?s :p 99 }')).toEqual([]);
  });

  it('gives the empty pattern one empty solution', () => {
    expect(select(store, 'SELECT * {}')).toEqual(['']);
  });

  it('agrees between probing and hashing a pattern (many rows)', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) lines.push(`:s${i} :type :T ; :v ${i % 7} .`);
    for (let i = 0; i < 3000; i += 3) lines.push(`:s${i} :w ${i} .`);
    const big = await storeWith(lines.join('\n'));
    // 3000 rows reach `?s :w ?w` (1000 quads): the stage switches to a hash join.
    const hashed = select(big, 'SELECT ?s ?w { ?s :type :T . ?s :w ?w }');
    expect(hashed).toHaveLength(1000);
    // One row at a time (VALUES feeds single rows): probing.
    const probed = select(big, 'SELECT ?s ?w { VALUES ?s { :s0 :s3 :s4 } ?s :w ?w }');
    expect(probed).toEqual(['?s=:s0 ?w=0', '?s=:s3 ?w=3']);
    const count = select(big, 'SELECT (COUNT(*) AS ?n) { ?s :type :T . ?s :v ?v . ?s :w ?w }');
    expect(count).toEqual(['?n=1000']);
    await big.close();
  });
});
