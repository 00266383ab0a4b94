import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuadStore } from '@ianode/store';
import { select, selectOrdered, storeWith } from './support.js';

let store: QuadStore;
beforeAll(async () => {
  const lines = [':x :v 5 . :y :v 5 . :z :v "b" . :w :v :iri . :u :v 1.5 . :t :n 1 .'];
  for (let i = 0; i < 2000; i++) lines.push(`:r${i} :k ${(i * 7919) % 2000} .`);
  store = await storeWith(lines.join('\n'));
});
afterAll(() => store.close());

describe('ORDER BY', () => {
  it('sorts unbound < IRIs < literals, numbers by value, stably', () => {
    expect(selectOrdered(store, 'SELECT ?s ?o { ?s :v ?o OPTIONAL { ?s :n ?m } } ORDER BY ?o ?m')).toEqual([
      '?o=:iri ?s=:w',
      '?o=1.5 ?s=:u',
      '?o=5 ?s=:x',
      '?o=5 ?s=:y',
      '?o="b" ?s=:z',
    ]);
  });

  it('sorts descending by expressions', () => {
    expect(selectOrdered(store, 'SELECT ?s { ?s :v ?o FILTER(isNumeric(?o)) } ORDER BY DESC(?o * -1) ?s')).toEqual(['?s=:u', '?s=:x', '?s=:y']);
  });

  it('keeps only the top rows under a LIMIT, with OFFSET', () => {
    expect(selectOrdered(store, 'SELECT ?k { ?r :k ?k } ORDER BY DESC(?k) LIMIT 3')).toEqual(['?k=1999', '?k=1998', '?k=1997']);
    expect(selectOrdered(store, 'SELECT ?k { ?r :k ?k } ORDER BY ?k OFFSET 10 LIMIT 2')).toEqual(['?k=10', '?k=11']);
    const all = selectOrdered(store, 'SELECT ?k { ?r :k ?k } ORDER BY ?k');
    expect(all).toHaveLength(2000);
    expect(all[1999]).toBe('?k=1999');
  });
});

describe('DISTINCT, REDUCED, LIMIT / OFFSET, projection', () => {
  it('removes duplicate solutions', () => {
    expect(select(store, 'SELECT DISTINCT ?o { ?s :v ?o }')).toEqual(['?o="b"', '?o=1.5', '?o=5', '?o=:iri']);
    expect(select(store, 'SELECT REDUCED ?o { ?s :v ?o }')).toEqual(['?o="b"', '?o=1.5', '?o=5', '?o=:iri']);
  });

  it('slices the solution sequence', () => {
    expect(select(store, 'SELECT ?r { ?r :k ?k } LIMIT 5')).toHaveLength(5);
    expect(select(store, 'SELECT ?r { ?r :k ?k } OFFSET 1995')).toHaveLength(5);
    expect(select(store, 'SELECT ?r { ?r :k ?k } LIMIT 0')).toEqual([]);
  });

  it('projects the selected variables only', () => {
    expect(select(store, 'SELECT ?o { :x :v ?o }')).toEqual(['?o=5']);
  });
});
