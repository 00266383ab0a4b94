/**
 * OPTIONAL and FILTER (NOT) EXISTS as tagged pipelines (engine/tagged.ts): many rows, duplicate
 * rows, filters on the merged row, and agreement with the row-at-a-time answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuadStore } from '@ianode/store';
import { select, storeWith } from './support.js';

let store: QuadStore;
beforeAll(async () => {
  const lines: string[] = [];
  for (let i = 0; i < 3000; i++) {
    lines.push(`:s${i} :type :T .`);
    if (i % 3 === 0) lines.push(`:s${i} :name "n${i}" ; :age ${i % 50} .`);
    if (i % 5 === 0) lines.push(`:s${i} :friend :s${(i + 1) % 3000} .`);
  }
  store = await storeWith(lines.join('\n'));
});
afterAll(() => store.close());

describe('tagged OPTIONAL', () => {
  it('keeps every row and extends those with matches (multi-pattern, many rows)', () => {
    const r = select(store, 'SELECT ?s ?n ?a { ?s :type :T OPTIONAL { ?s :name ?n . ?s :age ?a } }');
    expect(r).toHaveLength(3000);
    expect(r.filter((x) => x.includes('?n=')).length).toBe(1000);
    expect(r).toContain('?a=3 ?n="n3" ?s=:s3');
    expect(r).toContain('?s=:s1');
  });

  it('applies the OPTIONAL filter to the merged row', () => {
    const r = select(store, 'SELECT ?s ?n { ?s :type :T OPTIONAL { ?s :name ?n . ?s :age ?a FILTER(?a < 10) } }');
    expect(r).toHaveLength(3000);
    expect(r.filter((x) => x.includes('?n=')).length).toBe(200);
  });

  it('evaluates EXISTS inside the OPTIONAL filter on the merged row', () => {
    const r = select(store, 'SELECT ?s ?n { ?s :type :T OPTIONAL { ?s :name ?n FILTER EXISTS { ?s :friend ?f } } }');
    expect(r).toHaveLength(3000);
    expect(r.filter((x) => x.includes('?n=')).length).toBe(200);
  });

  it('keeps duplicate left rows apart', () => {
    const r = select(store, 'SELECT ?s ?n { { ?s :friend ?f } UNION { ?s :friend ?f } OPTIONAL { ?s :name ?n . ?s :age ?a } } ');
    expect(r).toHaveLength(1200);
    expect(r.filter((x) => x === '?n="n0" ?s=:s0')).toHaveLength(2);
    expect(r.filter((x) => x === '?s=:s5')).toHaveLength(2);
  });
});

describe('tagged EXISTS', () => {
  it('keeps rows with (without) a match', () => {
    expect(select(store, 'SELECT ?s { ?s :type :T FILTER EXISTS { ?s :name ?n . ?s :friend ?f } }')).toHaveLength(200);
    expect(select(store, 'SELECT ?s { ?s :type :T FILTER NOT EXISTS { ?s :name ?n } }')).toHaveLength(2000);
  });

  it('agrees with EXISTS evaluated inside a larger expression (row at a time)', () => {
    const piped = select(store, 'SELECT ?s { ?s :type :T FILTER EXISTS { ?s :friend ?f . ?f :name ?n } }');
    const rowwise = select(store, 'SELECT ?s { ?s :type :T FILTER (EXISTS { ?s :friend ?f . ?f :name ?n } || false) }');
    expect(piped).toEqual(rowwise);
    expect(piped.length).toBeGreaterThan(0);
  });
});
