/**
 * Join (SPARQL 1.1 §18.5). Three ways, chosen per join:
 * - bind join: the right side is a BGP or a path, fed the left rows (index nested loop);
 * - seeded join: the right side distributes over joins (`seedable`), so it is evaluated once per
 *   left row with that row's bindings fixed;
 * - hash join: the right side is materialised and hashed on the slots both sides always bind;
 *   possibly-unbound slots (OPTIONAL) are then checked for compatibility row by row.
 */
import type { Plan, PlanOf } from '../algebra/plan.js';
import { seedable, slotSets } from '../algebra/variables.js';
import { appendMerged, BATCH_ROWS, compatible, newBatch, RowStore, type Batch } from './batch.js';
import { bgpJoin } from './bgp.js';
import type { Env, QueryContext } from './context.js';
import { filterStream } from './filter-stream.js';
import { hashKey } from './row-set.js';
import { pathJoin } from '../paths/evaluate.js';

/** Evaluate `right` joined with a stream of rows (the solutions of `leftPlan`, when known). */
export function joinInto(q: QueryContext, left: Iterable<Batch>, leftPlan: Plan | undefined, right: Plan, env: Env): Iterable<Batch> {
  if (right.type === 'bgp') return bgpJoin(q, right.patterns, left, env);
  if (right.type === 'path') return pathJoin(q, right, left, env);
  // Chains keep streaming (and keep row order, which tagged joins rely on).
  if (right.type === 'join' && seedable(right)) return joinInto(q, joinInto(q, left, leftPlan, right.left, env), undefined, right.right, env);
  if (right.type === 'filter' && seedable(right)) return filterStream(q, joinInto(q, left, leftPlan, right.input, env), right.expression, env);
  if (right.type === 'values' && right.rows.length > 16) return hashJoin(q, left, leftPlan === undefined ? [] : sharedCertain(leftPlan, right), right, env);
  if (seedable(right)) return seededJoin(q, left, right, env);
  return hashJoin(q, left, leftPlan === undefined ? [] : sharedCertain(leftPlan, right), right, env);
}

export { seedable };

export function evalJoin(plan: PlanOf<'join'>, q: QueryContext, env: Env): Iterable<Batch> {
  let { left, right } = plan;
  // Prefer the side that can take bindings on the right.
  if (!bindable(right) && bindable(left)) [left, right] = [right, left];
  return joinInto(q, q.evaluate(left, env), left, right, env);
}

function bindable(p: Plan): boolean {
  return p.type === 'bgp' || p.type === 'path' || seedable(p);
}

/** The seed for evaluating a right side under `row` (merged with the outer seed). */
export function rowSeed(q: QueryContext, data: Uint32Array, base: number, env: Env): Uint32Array {
  const seed = data.slice(base, base + q.width);
  const outer = env.seed;
  // The tag travels with the row (tagged joins read it back from the outputs): keep it.
  if (outer !== undefined) for (let j = 0; j < q.width; j++) if (seed[j] === 0) seed[j] = outer[j]!;
  return seed;
}

function* seededJoin(q: QueryContext, left: Iterable<Batch>, right: Plan, env: Env): Generator<Batch> {
  const W = q.width;
  let out = newBatch(W);
  for (const lb of left) {
    q.tick();
    for (let r = 0; r < lb.length; r++) {
      const seed = rowSeed(q, lb.data, r * W, env);
      for (const rb of q.evaluate(right, { seed, graph: env.graph })) {
        for (let i = 0; i < rb.length; i++) {
          if (!compatible(seed, 0, rb.data, i * W, W)) continue;
          if (out.length === BATCH_ROWS) {
            yield out;
            out = newBatch(W);
          }
          appendMerged(out, seed, 0, rb.data, i * W);
        }
      }
    }
  }
  if (out.length > 0) yield out;
}

/** A materialised side of a join, hashed on `keys` (chains through `next`). */
export class HashedRows {
  readonly rows: RowStore;
  private readonly heads = new Map<number, number>();
  private next = new Int32Array(256);

  constructor(
    q: QueryContext,
    readonly keys: readonly number[],
    input: Iterable<Batch>,
    what: string,
  ) {
    const W = q.width;
    this.rows = new RowStore(W);
    for (const b of input) {
      q.tick();
      for (let r = 0; r < b.length; r++) {
        const i = this.rows.push(b.data, r * W);
        q.checkBudget(i + 1, what);
        if (i >= this.next.length) {
          const n = new Int32Array(this.next.length * 2);
          n.set(this.next);
          this.next = n;
        }
        const h = hashKey(b.data, r * W, keys);
        this.next[i] = this.heads.get(h) ?? -1;
        this.heads.set(h, i);
      }
    }
  }

  /** First candidate row for the key of (data, base), then `nextOf`; -1 ends. */
  first(data: Uint32Array, base: number): number {
    if (this.keys.length === 0) return this.rows.length > 0 ? 0 : -1;
    return this.heads.get(hashKey(data, base, this.keys)) ?? -1;
  }

  nextOf(i: number): number {
    if (this.keys.length === 0) return i + 1 < this.rows.length ? i + 1 : -1;
    return this.next[i]!;
  }
}

/** Slots both plans bind in every solution. */
export function sharedCertain(a: Plan, b: Plan): number[] {
  const x = slotSets(a).certain;
  const y = slotSets(b).certain;
  return [...x].filter((s) => y.has(s)).sort((m, n) => m - n);
}

function* hashJoin(q: QueryContext, left: Iterable<Batch>, keys: number[], right: Plan, env: Env): Generator<Batch> {
  const W = q.width;
  // A seed may leave a key unbound in some left row: such rows scan the whole table.
  const table = new HashedRows(q, keys, q.evaluate(right, env), 'a hash join');
  const rd = (): Uint32Array => table.rows.data;
  let out = newBatch(W);
  for (const lb of left) {
    q.tick();
    const d = lb.data;
    for (let r = 0; r < lb.length; r++) {
      const base = r * W;
      let hashable = true;
      for (const k of keys) if (d[base + k] === 0) hashable = false;
      if (hashable) {
        for (let i = table.first(d, base); i !== -1; i = table.nextOf(i)) {
          if (!compatible(d, base, rd(), i * W, W)) continue;
          if (out.length === BATCH_ROWS) {
            yield out;
            out = newBatch(W);
          }
          appendMerged(out, d, base, rd(), i * W);
        }
      } else {
        for (let i = 0; i < table.rows.length; i++) {
          if (!compatible(d, base, rd(), i * W, W)) continue;
          if (out.length === BATCH_ROWS) {
            yield out;
            out = newBatch(W);
          }
          appendMerged(out, d, base, rd(), i * W);
        }
      }
    }
  }
  if (out.length > 0) yield out;
}
