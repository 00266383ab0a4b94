/**
 * Differential property test of the ABAC view (SPEC §3, "enforcement inside query execution"):
 * for random labelled data, random users and every query shape, a query over
 * `store.view(user's predicate)` returns exactly what it returns over a second store that
 * physically holds only the quads that user may see — sound (nothing hidden leaks, through
 * patterns, counts, EXISTS, paths, GRAPH, DESCRIBE ...) and complete (nothing visible is lost).
 *
 * The reference store's contents are computed from our own model of the writes and the label
 * language (`compileLabel(...).evaluate`), never from the store's view.
 *
 * Each seed is one `it`: a dataset, USERS_PER_SEED users and one query per shape per user.
 * Re-run chosen seeds with ABAC_DIFF_SEEDS=12,40 (failure messages name the seed).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { AttributeSet, LabelEvaluator } from '@ianode/abac';
import type { Dataset } from '@ianode/rdf';
import type { QuadStore } from '@ianode/store';
import { HIERARCHIES, Rng, finalQuads, randomData, randomUser, showData, visibleTo } from './support/data.js';
import { PREFIXES, SHAPE_NAMES, generateQuery } from './support/queries.js';
import { compareOutcomes, run, showOutcome, size, type Outcome } from './support/outcome.js';
import { referenceStore, storeWith } from './support/store.js';

const SEEDS: number[] = process.env['ABAC_DIFF_SEEDS']
  ? process.env['ABAC_DIFF_SEEDS'].split(',').map((s) => Number(s.trim()))
  : Array.from({ length: 30 }, (_, i) => 1000 + i);
const USERS_PER_SEED = 3;

interface Stats {
  cases: number;
  differFromUnfiltered: number;
  nonEmpty: number;
  budgetCases: number;
  budgetErrors: number;
  errors: string[];
  perShape: Map<string, { cases: number; differ: number }>;
}

/** Fresh counters: each test counts its own cases, so no test depends on another having run. */
const newStats = (): Stats => ({
  cases: 0,
  /** View answer differs from the answer over all quads: the view did filter something relevant. */
  differFromUnfiltered: 0,
  /** Non-empty answer over the view (so the queries are not vacuous). */
  nonEmpty: 0,
  /** Extra runs under a small row budget, and how many of them failed (over the reference). */
  budgetCases: 0,
  budgetErrors: 0,
  /** Queries that failed (over the reference store): the generator should make none. */
  errors: [] as string[],
  perShape: new Map<string, { cases: number; differ: number }>(),
});

function shuffled<T>(rng: Rng, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const open: QuadStore[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
});

/** Adds `from`'s counts to `into` (errors in order, after `into`'s). */
function addStats(into: Stats, from: Stats): void {
  into.cases += from.cases;
  into.differFromUnfiltered += from.differFromUnfiltered;
  into.nonEmpty += from.nonEmpty;
  into.budgetCases += from.budgetCases;
  into.budgetErrors += from.budgetErrors;
  into.errors.push(...from.errors);
  for (const [shape, s] of from.perShape) {
    const mine = into.perShape.get(shape) ?? { cases: 0, differ: 0 };
    mine.cases += s.cases;
    mine.differ += s.differ;
    into.perShape.set(shape, mine);
  }
}

/**
 * A seed's failures and counts, computed once per file by whichever test asks first (a seed's own
 * test or the summary): a seed is a pure function of its number, so both judge the same run, and
 * each test still passes alone and in any order.
 */
const seedResults = new Map<number, Promise<{ failures: string[]; stats: Stats }>>();
function seedResult(seed: number): Promise<{ failures: string[]; stats: Stats }> {
  let result = seedResults.get(seed);
  if (result === undefined) {
    const stats = newStats();
    result = runSeed(seed, stats).then((failures) => ({ failures, stats }));
    seedResults.set(seed, result);
  }
  return result;
}

async function runSeed(seed: number, stats: Stats = newStats()): Promise<string[]> {
  const rng = new Rng(seed);
  const data = randomData(rng);
  const expectedQuads = finalQuads(data);
  const failures: string[] = [];
  const all = await storeWith(data);
  open.push(all);

  // Our model of the writes must agree with the store before the view is judged against it.
  const modelErrors: string[] = [];
  if (all.count({}) !== expectedQuads.length) modelErrors.push(`store holds ${all.count({})} quads, model ${expectedQuads.length}`);
  for (const q of expectedQuads) {
    const label = all.labelOf(q);
    if (label !== q.label) modelErrors.push(`labelOf(${q.s} ${q.p} ${q.o} ${q.g}) = ${JSON.stringify(label)}, model ${JSON.stringify(q.label)}`);
  }
  if (modelErrors.length > 0) return [`seed ${seed}: store and model disagree:\n  ${modelErrors.slice(0, 10).join('\n  ')}\n${showData(data)}`];

  for (let u = 0; u < USERS_PER_SEED; u++) {
    const user = randomUser(rng);
    const visible = expectedQuads.filter((q) => visibleTo(user, q.label));
    const reference = await referenceStore(shuffled(rng, visible));
    open.push(reference);
    const evaluator = new LabelEvaluator(AttributeSet.from(user.attributes), HIERARCHIES);
    const predicate = (label: string): boolean => evaluator.isVisible(label);
    // Alternate between a view of the live store and a view of a snapshot of it.
    const viaSnapshot = u % 2 === 1;
    const view: Dataset = viaSnapshot ? all.snapshot().view(predicate) : all.view(predicate);

    for (const shape of SHAPE_NAMES) {
      const generated = generateQuery(rng, shape);
      const query = PREFIXES + generated.query;
      const overView = run(view, query);
      const overReference = run(reference, query);
      const overAll = run(all, query);
      stats.cases++;
      const perShape = stats.perShape.get(shape) ?? { cases: 0, differ: 0 };
      perShape.cases++;
      stats.perShape.set(shape, perShape);
      if (size(overView) > 0) stats.nonEmpty++;
      if (overReference.type === 'error') stats.errors.push(`seed ${seed} ${shape}: ${generated.query} -> ${overReference.message}`);
      if (compareOutcomes(overView, overAll, generated.orderBy) !== undefined) {
        stats.differFromUnfiltered++;
        perShape.differ++;
      }
      const report = (difference: string, v: Outcome, r: Outcome, note = ''): void => {
        failures.push(
          [
            `seed ${seed}, user #${u} ${user.name}${viaSnapshot ? ' (view of a snapshot)' : ''}, default label ${JSON.stringify(data.defaultLabel)}, shape ${shape}${note}`,
            `  query: ${generated.query}`,
            `  difference (view vs reference store): ${difference}`,
            `  over the view: ${showOutcome(v)}`,
            `  over the reference (${visible.length} of ${expectedQuads.length} quads visible): ${showOutcome(r)}`,
          ].join('\n'),
        );
      };
      const difference = compareOutcomes(overView, overReference, generated.orderBy);
      if (difference !== undefined) report(difference, overView, overReference);

      // Now and then again under a small row budget: whether the query fails, and how, must not
      // depend on hidden quads either (SPEC §3: "... and error messages").
      if (rng.chance(0.25)) {
        const options = { rowBudget: rng.pick([4, 12, 40]) };
        const v = run(view, query, options);
        const r = run(reference, query, options);
        stats.budgetCases++;
        if (r.type === 'error') stats.budgetErrors++;
        const d = compareOutcomes(v, r, generated.orderBy);
        if (d !== undefined) report(d, v, r, ` (rowBudget ${options.rowBudget})`);
      }
    }
  }
  if (failures.length > 0) failures.push(`data of seed ${seed}:\n${showData(data)}`);
  return failures;
}

describe('ABAC view: differential against a store holding only the visible quads', () => {
  it.each(SEEDS)('seed %i: every query shape answers the same over view(user) and over the visible quads', async (seed) => {
    const { failures } = await seedResult(seed);
    expect(failures, failures.join('\n\n')).toEqual([]);
  });

  // The seeds this check counts (the first ten, or all when fewer were chosen): it adds up their
  // own counts (seedResult: run here if no test has run the seed yet), never counters the other
  // tests fill, so it passes alone and in any order (vitest --sequence.shuffle).
  const SUMMARY_SEEDS = SEEDS.slice(0, 10);
  it('the property is non-trivial: views change answers, and answers are mostly non-empty', async () => {
    const stats = newStats();
    for (const seed of SUMMARY_SEEDS) {
      const result = await seedResult(seed);
      expect(result.failures, result.failures.join('\n\n')).toEqual([]);
      addStats(stats, result.stats);
    }
    const summary = [...stats.perShape].map(([shape, s]) => `${shape} ${s.differ}/${s.cases}`).join(', ');
    console.info(`ABAC differential: ${stats.cases} cases, ${stats.differFromUnfiltered} differ from the unfiltered store, ${stats.nonEmpty} non-empty; ${stats.budgetCases} re-runs under a row budget (${stats.budgetErrors} over budget); per shape ${summary}`);
    expect(stats.errors, stats.errors.slice(0, 5).join('\n')).toEqual([]);
    expect(stats.cases).toBe(SUMMARY_SEEDS.length * USERS_PER_SEED * SHAPE_NAMES.length);
    // If view(user) were a no-op, no case would differ from the unfiltered store.
    expect(stats.differFromUnfiltered).toBeGreaterThan(stats.cases * 0.25);
    expect(stats.nonEmpty).toBeGreaterThan(stats.cases * 0.4);
    if (stats.budgetCases >= 50) expect(stats.budgetErrors).toBeGreaterThan(0);
    // Every shape is exercised with a view that matters at least once.
    if (SUMMARY_SEEDS.length >= 10) for (const [shape, s] of stats.perShape) expect(s.differ, `shape ${shape}`).toBeGreaterThan(0);
  });
});
