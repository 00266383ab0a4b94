import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type QuadStore } from '@ianode/store';
import { tickingClock } from '@ianode/testkit';
import { executeQuery } from '../../src/engine/execute.js';
import { SparqlError } from '../../src/errors.js';
import { PREFIXES, storeWith } from './support.js';

let store: QuadStore;
beforeAll(async () => {
  const lines: string[] = [];
  for (let i = 0; i < 2000; i++) lines.push(`:r${i} :k ${i} .`);
  store = await storeWith(lines.join('\n'));
});
afterAll(() => store.close());

function drain(query: string, options: Parameters<typeof executeQuery>[2]): number {
  const r = executeQuery(store, PREFIXES + query, options);
  if (r.type !== 'bindings') throw new Error('expected bindings');
  let n = 0;
  for (const _ of r.solutions) n++;
  return n;
}

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof SparqlError) return e.code;
    throw e;
  }
  return undefined;
}

const CROSS = 'SELECT * { ?a :k ?x . ?b :k ?y . ?c :k ?z }'; // 8e9 rows

/** The fake clock of @ianode/testkit: each reading advances it by one "millisecond", so a deadline
 * of n is passed after n readings however loaded the machine is. */
const ticking = () => tickingClock();

describe('deadline', () => {
  it('stops a long cross product at the first check after the deadline', () => {
    const c = ticking();
    expect(codeOf(() => drain(CROSS, { deadline: 1000, clock: c.clock }))).toBe('QUERY_TIMEOUT');
    // Readings 0..1000 are within the deadline; reading 1001 is past it and nothing reads again.
    expect(c.readings()).toBe(1002);
  });

  it('stops a long sort and a long group the same way', () => {
    for (const q of ['SELECT * { ?a :k ?x . ?b :k ?y } ORDER BY ?y', 'SELECT ?x (COUNT(*) AS ?n) { ?a :k ?x . ?b :k ?y } GROUP BY ?x']) {
      const c = ticking();
      expect(codeOf(() => drain(q, { deadline: 50, clock: c.clock }))).toBe('QUERY_TIMEOUT');
      expect(c.readings()).toBe(52);
    }
  });

  it('stops at once when the deadline has already passed, and reads the real clock by default', () => {
    expect(codeOf(() => drain(CROSS, { deadline: 10, clock: () => 11 }))).toBe('QUERY_TIMEOUT');
    expect(codeOf(() => drain(CROSS, { deadline: Date.now() - 1 }))).toBe('QUERY_TIMEOUT');
  });

  it('lets a query that finishes before the deadline return all its rows', () => {
    expect(drain('SELECT ?x { ?a :k ?x }', { deadline: 1_000_000, clock: ticking().clock })).toBe(2000);
  });
});

describe('row budget', () => {
  it('limits what sorts, groups, distinct sets and hash tables hold', () => {
    const rowBudget = 1000;
    expect(codeOf(() => drain('SELECT ?x { ?a :k ?x } ORDER BY ?x', { rowBudget }))).toBe('ROW_BUDGET');
    expect(codeOf(() => drain('SELECT ?a (COUNT(*) AS ?n) { ?a :k ?x } GROUP BY ?a', { rowBudget }))).toBe('ROW_BUDGET');
    expect(codeOf(() => drain('SELECT DISTINCT ?x { ?a :k ?x }', { rowBudget }))).toBe('ROW_BUDGET');
    expect(codeOf(() => drain('SELECT * { ?a :k ?x MINUS { ?a :k ?y } }', { rowBudget }))).toBe('ROW_BUDGET');
  });

  it('limits the number of results', () => {
    expect(codeOf(() => drain('SELECT ?x { ?a :k ?x }', { rowBudget: 100 }))).toBe('ROW_BUDGET');
    expect(drain('SELECT ?x { ?a :k ?x } LIMIT 100', { rowBudget: 100 })).toBe(100);
  });

  it('never fails on quads the caller cannot see (the planner estimates from unfiltered ranges)', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) lines.push(`:h${i} :k ${i} . :h${i} :j :x .`);
    const visible: string[] = [];
    for (let i = 0; i < 300; i++) visible.push(`:v${i} :k ${i} . :v${i} :j :x .`);
    const labelled = await openStore({ defaultLabel: '*' });
    const plain = await openStore({ defaultLabel: '*' });
    try {
      const prefix = '@prefix : <http://example/> .\n';
      await labelled.load(prefix + lines.join('\n'), { format: 'text/turtle', label: 'secret' });
      await labelled.load(prefix + visible.join('\n'), { format: 'text/turtle', label: 'public' });
      await plain.load(prefix + visible.join('\n'), { format: 'text/turtle' });
      const view = labelled.view((label) => label === 'public');
      const q = PREFIXES + 'SELECT ?a ?x { ?a :k ?x . ?a :j ?y . ?b :j ?y }';
      const rowsOf = (ds: Parameters<typeof executeQuery>[0]): number => {
        const r = executeQuery(ds, q, { rowBudget: 100_000 });
        if (r.type !== 'bindings') throw new Error('expected bindings');
        let n = 0;
        for (const _ of r.solutions) n++;
        return n;
      };
      // 300 × 300 rows are visible: under the budget. Hidden rows (3000 × 3000) would not be.
      expect(rowsOf(view)).toBe(90_000);
      expect(rowsOf(plain)).toBe(90_000);
      expect(view.estimate!({})).toBeGreaterThan(view.count({}));
    } finally {
      await labelled.close();
      await plain.close();
    }
  });

  it('lets top-k hold only its k rows', () => {
    expect(drain('SELECT ?x { ?a :k ?x } ORDER BY DESC(?x) LIMIT 10', { rowBudget: 50 })).toBe(10);
  });
});

describe('streaming', () => {
  it('produces the first solutions of a huge result without evaluating it all', () => {
    // The engine reads the clock at least once per batch: 5000 of the 8e9 rows within a budget
    // of 1000 readings means it did not evaluate the whole product first.
    const c = ticking();
    const r = executeQuery(store, PREFIXES + CROSS, { deadline: 1000, clock: c.clock });
    if (r.type !== 'bindings') throw new Error('expected bindings');
    let n = 0;
    for (const _ of r.solutions) if (++n === 5000) break;
    expect(n).toBe(5000);
    expect(c.readings()).toBeLessThan(1000);
    expect(drain(CROSS + ' LIMIT 7', {})).toBe(7);
  });

  it('evaluates again each time the solutions are iterated', () => {
    const r = executeQuery(store, PREFIXES + 'SELECT ?x { :r1 :k ?x }');
    if (r.type !== 'bindings') throw new Error('expected bindings');
    expect([...r.solutions]).toHaveLength(1);
    expect([...r.solutions]).toHaveLength(1);
  });
});
