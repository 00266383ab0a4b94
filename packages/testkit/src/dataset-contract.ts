/**
 * The shared Dataset contract: one vitest suite run against every Dataset implementation and view
 * (STYLE.md, "Contract tests"). For several seeds it loads random labelled quads into the dataset
 * under test and into the naive reference, then compares the two on every pattern shape, in term
 * keys (ids differ between implementations). Failures name the dataset, seed, view and pattern.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultGraph,
  keyToTerm,
  namedNode,
  termToKey,
  type Dataset,
  type IdQuad,
  type LabelPredicate,
  type QuadPattern,
} from '@ianode/rdf';
import { buildReference, type KeyQuad, type LabelledKeyQuad, type ReferenceDataset } from './reference-dataset.js';
import { randomQuads, randomUserVisibility, randomVisibility, type Visibility } from './random-data.js';
import { Rng } from './random.js';

export interface ContractInput {
  /** Quads in the order they are added; `label` undefined = the default label. */
  quads: LabelledKeyQuad[];
  defaultLabel: string;
}

export interface DatasetUnderTest {
  dataset: Dataset;
  close(): Promise<void>;
}

export type MakeDataset = (input: ContractInput) => Promise<DatasetUnderTest>;

export interface ContractOptions {
  /**
   * Whether the dataset can be narrowed with `view(visible)` (default true). A dataset without
   * labels (the update overlay, built over an already narrowed view) must refuse instead: the
   * suite then checks that `view` throws a TypeError rather than returning unfiltered data.
   */
  views?: boolean;
}

const CASES = [
  { seed: 1, size: 0, defaultLabel: '!' },
  { seed: 2, size: 12, defaultLabel: '*' },
  { seed: 3, size: 300, defaultLabel: '!' },
  { seed: 4, size: 1500, defaultLabel: 'employee' },
];

const POSITIONS = ['s', 'p', 'o', 'g'] as const;

/** A pattern in term keys; `explicit` writes unbound positions as `undefined` properties. */
interface KeyPattern {
  bound: Partial<KeyQuad>;
  explicit: boolean;
}

/** Ids a correct dataset can never hold (a dictionary does not reach 2^31 terms). */
const ABSENT_IDS = [2 ** 31, 2 ** 32 - 1];

/**
 * Only the reference sees these; a leak check resolves each yielded quad's label through it.
 * `labels` is the base reference's label text by quad key (`quadKey`), built once per seed.
 */
interface Guard {
  labels: ReadonlyMap<string, string>;
  visible: LabelPredicate;
}

export function describeDatasetContract(name: string, make: MakeDataset, options: ContractOptions = {}): void {
  const views = options.views ?? true;
  describe(name, () => {
    for (const { seed, size, defaultLabel } of CASES) {
      describe(`seed ${seed}: ${size} quads, default label ${defaultLabel}`, () => {
        const ctx = `[${name} seed=${seed}]`;
        let sut: DatasetUnderTest | undefined;
        let ref: ReferenceDataset;
        let patterns: KeyPattern[];
        let labels: ReadonlyMap<string, string>;
        const dataset = (): Dataset => {
          if (sut === undefined) throw new Error(`${ctx} make() failed`);
          return sut.dataset;
        };

        beforeAll(async () => {
          const quads = randomQuads(new Rng(seed), size);
          ref = buildReference(quads, defaultLabel);
          patterns = samplePatterns(ref, new Rng(seed + 1000));
          labels = labelsByQuadKey(ref);
          sut = await make({ quads: quads.map((q) => ({ ...q })), defaultLabel });
        });
        afterAll(async () => {
          await sut?.close();
        });

        it('looks up, decodes and encodes every term', () => {
          checkTerms(ctx, dataset(), termKeys(ref));
          const ds = dataset();
          expect(ds.lookup(defaultGraph()), `${ctx} lookup(default graph)`).toBe(0);
          expect(ds.key(0), `${ctx} key(0)`).toBe('');
          expect(ds.lookup(namedNode('http://never.example/seen')), `${ctx} lookup of an unseen IRI`).toBeUndefined();
          for (const id of ABSENT_IDS) {
            expect(() => ds.term(id), `${ctx} term(${id})`).toThrow(RangeError);
            expect(() => ds.key(id), `${ctx} key(${id})`).toThrow(RangeError);
          }
        });

        it('match, matchBatches and count agree with the reference on all 16 shapes', () => {
          checkPatterns(ctx, dataset(), ref, patterns);
        });

        it('matches nothing for unknown, zero and huge ids', () => {
          checkAbsentIds(ctx, dataset(), patterns);
        });

        it('lists the named graphs that hold quads', () => {
          checkGraphs(ctx, dataset(), ref);
        });

        if (!views) {
          it('refuses to be narrowed (it holds no labels): view() throws, never returns unfiltered data', () => {
            for (const v of visibilities(seed, defaultLabel)) {
              expect(() => dataset().view(v.visible), `${ctx} view(${v.name})`).toThrow(TypeError);
            }
          });
          return;
        }

        it('views agree with the reference and never yield a hidden quad', () => {
          for (const v of visibilities(seed, defaultLabel)) {
            const where = `${ctx} view(${v.name})`;
            const view = dataset().view(v.visible);
            const refView = ref.view(v.visible);
            checkPatterns(where, view, refView, patterns, { labels, visible: v.visible });
            checkGraphs(where, view, refView);
            checkTerms(where, view, termKeys(refView));
            checkAbsentIds(where, view, patterns.slice(0, 20));
            expect([...(v.unexpected ?? [])], `${where}: the predicate was called with texts that are no stored label`).toEqual([]);
          }
        });

        it('a view of a view holds the intersection', () => {
          const all = visibilities(seed, defaultLabel);
          for (let i = 0; i + 1 < all.length; i += 2) {
            const [a, b] = [all[i]!, all[i + 1]!];
            const both: LabelPredicate = (label) => a.visible(label) && b.visible(label);
            const where = `${ctx} view(${a.name}).view(${b.name})`;
            const view = dataset().view(a.visible).view(b.visible);
            const refView = ref.view(both);
            checkPatterns(where, view, refView, patterns, { labels, visible: both });
            checkGraphs(where, view, refView);
          }
        });
      });
    }
  });
}

/** Fixed extremes, random subsets of the label texts, and random ABAC users. */
function visibilities(seed: number, defaultLabel: string): Visibility[] {
  const rng = new Rng(seed + 2000);
  return [
    { name: 'everything', visible: () => true },
    { name: 'nothing', visible: () => false },
    ...[1, 2, 3].map(() => randomVisibility(rng, defaultLabel)),
    ...[1, 2, 3].map(() => randomUserVisibility(rng)),
  ];
}

function termKeys(ref: ReferenceDataset): string[] {
  const keys = new Set<string>();
  for (const row of ref.rows) for (const pos of POSITIONS) keys.add(ref.key(row[pos]));
  keys.delete('');
  return [...keys];
}

/**
 * Sources are stored quads (some in the default graph, some in named graphs), quads mixed from
 * random terms in random positions (mostly matching nothing), and one fixed quad; every source
 * gives all 16 bound/unbound shapes, so g is bound to 0, to named graphs, and to non-graphs.
 */
function samplePatterns(ref: ReferenceDataset, rng: Rng): KeyPattern[] {
  const toKeys = (q: IdQuad): KeyQuad => ({ s: ref.key(q.s), p: ref.key(q.p), o: ref.key(q.o), g: ref.key(q.g) });
  const inDefault = ref.rows.filter((r) => r.g === 0);
  const inNamed = ref.rows.filter((r) => r.g !== 0);
  const sources: KeyQuad[] = [{ s: '<http://ex/s0', p: '<http://ex/p0', o: '"v0"', g: '' }];
  for (let i = 0; i < 3; i++) {
    if (inDefault.length > 0) sources.push(toKeys(rng.pick(inDefault)));
    if (inNamed.length > 0) sources.push(toKeys(rng.pick(inNamed)));
  }
  const terms = termKeys(ref);
  if (terms.length > 0) {
    for (let i = 0; i < 4; i++) {
      sources.push({ s: rng.pick(terms), p: rng.pick(terms), o: rng.pick(terms), g: rng.chance(0.3) ? '' : rng.pick(terms) });
    }
  }
  const seen = new Set<string>();
  const out: KeyPattern[] = [];
  sources.forEach((source, index) => {
    for (let mask = 0; mask < 16; mask++) {
      const bound: Partial<KeyQuad> = {};
      POSITIONS.forEach((pos, bit) => {
        if (mask & (1 << bit)) bound[pos] = source[pos];
      });
      const pattern = { bound, explicit: index % 2 === 1 };
      const id = JSON.stringify(pattern);
      if (!seen.has(id)) out.push(pattern);
      seen.add(id);
    }
  });
  return out;
}

/** The pattern in this dataset's ids, or undefined when it cannot look up a bound term. */
function toIds(ds: Dataset, pattern: KeyPattern): QuadPattern | undefined {
  const ids: QuadPattern = {};
  for (const pos of POSITIONS) {
    const key = pattern.bound[pos];
    if (key === undefined) {
      if (pattern.explicit) ids[pos] = undefined;
      continue;
    }
    const id = ds.lookup(keyToTerm(key));
    if (id === undefined) return undefined;
    ids[pos] = id;
  }
  return ids;
}

/** The label text of every quad the reference holds, by `quadKey`. */
function labelsByQuadKey(ref: ReferenceDataset): Map<string, string> {
  return new Map(ref.rows.map((row) => [quadKey(ref, row), ref.labelText(row)]));
}

/** Whether two arrays hold the same items in the same order (checked before an `expect` that reports a difference). */
function sameArrays<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function quadKey(ds: Dataset, q: IdQuad): string {
  return JSON.stringify([ds.key(q.s), ds.key(q.p), ds.key(q.o), ds.key(q.g)]);
}

function describePattern(pattern: KeyPattern, ids?: QuadPattern): string {
  return `pattern=${JSON.stringify(pattern.bound)}${pattern.explicit ? ' (unbound as undefined)' : ''} ids=${JSON.stringify(ids ?? null)}`;
}

function checkPatterns(ctx: string, ds: Dataset, ref: ReferenceDataset, patterns: KeyPattern[], guard?: Guard): void {
  for (const pattern of patterns) {
    const refIds = toIds(ref, pattern);
    const expected = refIds === undefined ? [] : ref.match(refIds).map((q) => quadKey(ref, q));
    const ids = toIds(ds, pattern);
    const where = `${ctx} ${describePattern(pattern, ids)}`;
    if (ids === undefined) {
      expect(expected, `${where}: the dataset cannot look up a term the reference matches`).toEqual([]);
      continue;
    }
    const matchedIds = flatIds(ds.match(ids));
    const matched = keysOf(ds, matchedIds);
    if (guard) expectAllVisible(where, matched, guard);
    expectSameQuads(matched, expected, `${where} match`);
    for (const size of [1, 7, 1024, undefined]) {
      // matchBatches must yield the very ids match yields, in its order (same dataset, same ids);
      // compared as numbers, and only a difference is spelt out in term keys for the message.
      const batched = batchIds(ds, ids, size, where);
      if (!sameArrays(batched, matchedIds)) {
        expect(keysOf(ds, batched), `${where} matchBatches(${size}) concatenated vs match`).toEqual(matched);
        expect(batched, `${where} matchBatches(${size}) concatenated vs match, in ids`).toEqual(matchedIds);
      }
    }
    // The `expect`s below run only on a failure: a passing one costs more than the check, and
    // there are tens of thousands of them per file.
    const count = ds.count(ids);
    if (count !== expected.length) expect(count, `${where} count`).toBe(expected.length);
    if (ds.estimate) {
      // The planner's estimate: an upper bound on the count, and 0 only when nothing matches.
      const estimate = ds.estimate(ids);
      if (!(estimate >= expected.length)) expect(estimate, `${where} estimate >= count`).toBeGreaterThanOrEqual(expected.length);
      if (expected.length > 0 && !(estimate > 0)) expect(estimate, `${where} estimate > 0`).toBeGreaterThan(0);
    }
  }
}

/** The quads' ids, four numbers (s, p, o, g) per quad. */
function flatIds(quads: Iterable<IdQuad>): number[] {
  const out: number[] = [];
  for (const q of quads) out.push(q.s, q.p, q.o, q.g);
  return out;
}

/** `quadKey` of each quad in a `flatIds` array. */
function keysOf(ds: Dataset, flat: readonly number[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < flat.length; i += 4) out.push(quadKey(ds, { s: flat[i]!, p: flat[i + 1]!, o: flat[i + 2]!, g: flat[i + 3]! }));
  return out;
}

/**
 * Quads of `matchBatches` as `flatIds`, copied batch by batch (a batch's arrays may be reused).
 * Every batch is checked; the `expect`s run only when a check fails (with batchSize 1 there is one
 * batch per quad, and five passing `expect`s per quad cost more than the dataset under test).
 */
function batchIds(ds: Dataset, ids: QuadPattern, size: number | undefined, where: string): number[] {
  const out: number[] = [];
  for (const batch of ds.matchBatches(ids, size)) {
    if (!(batch.length <= (size ?? 1024))) {
      expect(batch.length, `${where} batch length with batchSize ${size}`).toBeLessThanOrEqual(size ?? 1024);
    }
    for (const col of [batch.s, batch.p, batch.o, batch.g]) {
      if (!(col.length >= batch.length)) expect(col.length, `${where} column length with batchSize ${size}`).toBeGreaterThanOrEqual(batch.length);
    }
    for (let i = 0; i < batch.length; i++) out.push(batch.s[i]!, batch.p[i]!, batch.o[i]!, batch.g[i]!);
  }
  return out;
}

/** Order-insensitive comparison that reports a short, readable difference. */
function expectSameQuads(actual: string[], expected: string[], where: string): void {
  const remaining = new Map<string, number>();
  for (const q of expected) remaining.set(q, (remaining.get(q) ?? 0) + 1);
  const extra: string[] = [];
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const q of actual) {
    if (seen.has(q)) duplicates.push(q);
    seen.add(q);
    const n = remaining.get(q) ?? 0;
    if (n === 0) extra.push(q);
    else remaining.set(q, n - 1);
  }
  const missing = [...remaining].filter(([, n]) => n > 0).map(([q]) => q);
  if (missing.length === 0 && extra.length === 0 && duplicates.length === 0 && actual.length === expected.length) return;
  expect(
    { missing: missing.slice(0, 5), extra: extra.slice(0, 5), duplicates: duplicates.slice(0, 5), count: actual.length },
    `${where}: quads differ from the reference (first 5 of each shown)`,
  ).toEqual({ missing: [], extra: [], duplicates: [], count: expected.length });
}

/** Every yielded quad is one the data holds, with a label the predicate accepts (`expect` runs on a failure only). */
function expectAllVisible(where: string, quads: string[], guard: Guard): void {
  for (const q of quads) {
    const label = guard.labels.get(q);
    if (label === undefined) expect(label, `${where}: yielded ${q}, which the data does not hold`).toBeDefined();
    else if (guard.visible(label) !== true) expect(guard.visible(label), `${where}: LEAK — yielded ${q} with label ${JSON.stringify(label)}`).toBe(true);
  }
}

/** Each key looks up to an id that decodes back to it (`expect` runs on a failure only). */
function checkTerms(ctx: string, ds: Dataset, keys: string[]): void {
  for (const key of keys) {
    const term = keyToTerm(key);
    const id = ds.lookup(term);
    if (typeof id !== 'number') expect(id, `${ctx} lookup(${JSON.stringify(key)})`).toBeTypeOf('number');
    if (ds.key(id!) !== key) expect(ds.key(id!), `${ctx} key(lookup(${JSON.stringify(key)}))`).toBe(key);
    if (termToKey(ds.term(id!)) !== key) expect(termToKey(ds.term(id!)), `${ctx} term(lookup(${JSON.stringify(key)}))`).toBe(key);
    if (ds.term(id!).equals(term) !== true) expect(ds.term(id!).equals(term), `${ctx} term(lookup(${JSON.stringify(key)})).equals`).toBe(true);
  }
}

function checkGraphs(ctx: string, ds: Dataset, ref: ReferenceDataset): void {
  const graphs = ds.graphs();
  expect(graphs, `${ctx} graphs() must not list the default graph`).not.toContain(0);
  expect(new Set(graphs).size, `${ctx} graphs() has duplicates`).toBe(graphs.length);
  const keys = graphs.map((g) => ds.key(g)).sort();
  expect(keys, `${ctx} graphs()`).toEqual(ref.graphs().map((g) => ref.key(g)).sort());
}

/**
 * Every shape with one bound position replaced by an id that is in no quad: ids no dictionary
 * reaches, 0 (the default graph) as subject, predicate or object. Ids of 2^32 and above are not
 * 32-bit ids at all: the dataset may reject them (RangeError/TypeError) but must not wrap them
 * onto a real id.
 */
function checkAbsentIds(ctx: string, ds: Dataset, patterns: KeyPattern[]): void {
  for (const pos of POSITIONS) {
    for (const id of pos === 'g' ? ABSENT_IDS : [...ABSENT_IDS, 0]) expectNothing(`${ctx} {${pos}: ${id}}`, ds, { [pos]: id }, false);
  }
  for (const pattern of patterns) {
    const ids = toIds(ds, pattern);
    if (ids === undefined) continue;
    for (const pos of POSITIONS) {
      const real = ids[pos];
      if (real === undefined) continue;
      const bad: number[] = pos === 'g' ? [...ABSENT_IDS] : [...ABSENT_IDS, 0];
      for (const id of bad) expectNothing(`${ctx} ${describePattern(pattern, ids)} with ${pos}=${id}`, ds, { ...ids, [pos]: id }, false);
      expectNothing(`${ctx} ${describePattern(pattern, ids)} with ${pos}=2^32+${real}`, ds, { ...ids, [pos]: 2 ** 32 + real }, true);
    }
  }
}

function expectNothing(where: string, ds: Dataset, ids: QuadPattern, mayReject: boolean): void {
  let results: [number, number, number];
  try {
    results = [[...ds.match(ids)].length, [...ds.matchBatches(ids)].reduce((n, b) => n + b.length, 0), ds.count(ids)];
  } catch (err) {
    if (mayReject && (err instanceof RangeError || err instanceof TypeError)) return;
    throw new Error(`${where}: threw ${String(err)}`, { cause: err });
  }
  if (results[0] !== 0 || results[1] !== 0 || results[2] !== 0) {
    expect(results, `${where}: [match, matchBatches, count] must all be 0`).toEqual([0, 0, 0]);
  }
}
