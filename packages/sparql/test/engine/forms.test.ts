import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuadStore } from '@ianode/store';
import { ask, triples, storeWith } from './support.js';

let store: QuadStore;
beforeAll(async () => {
  store = await storeWith(`
    :a :p 1 ; :q [ :r 2 ; :s [ :t 3 ] ] .
    :b :p "lit" .
    :c :knows :a .
  `);
});
afterAll(() => store.close());

describe('query forms', () => {
  it('ASK stops at the first solution', () => {
    expect(ask(store, 'ASK { ?s :p 1 }')).toBe(true);
    expect(ask(store, 'ASK { ?s :p 2 }')).toBe(false);
    expect(ask(store, 'ASK {}')).toBe(true);
  });

  it('CONSTRUCT instantiates the template with fresh blank nodes per solution', () => {
    expect(triples(store, 'CONSTRUCT { ?s :value [ :is ?o ] } WHERE { ?s :p ?o }')).toEqual([
      ':a :value _:',
      ':b :value _:',
      '_: :is "lit"',
      '_: :is 1',
    ]);
  });

  it('CONSTRUCT skips triples with unbound or invalid positions and removes duplicates', () => {
    expect(triples(store, 'CONSTRUCT { ?o :inverse ?s . ?s :maybe ?z } WHERE { ?s :p ?o OPTIONAL { ?s :zz ?z } }')).toEqual([]);
    expect(triples(store, 'CONSTRUCT { :x :y :z } WHERE { ?s :p ?o }')).toEqual([':x :y :z']);
    expect(triples(store, 'CONSTRUCT WHERE { ?s :knows ?o }')).toEqual([':c :knows :a']);
  });

  it('DESCRIBE gives the resource triples and its blank-node closure', () => {
    expect(triples(store, 'DESCRIBE :a')).toEqual([':a :p 1', ':a :q _:', '_: :r 2', '_: :s _:', '_: :t 3']);
    expect(triples(store, 'DESCRIBE ?x WHERE { ?x :knows :a }')).toEqual([':c :knows :a']);
  });
});
