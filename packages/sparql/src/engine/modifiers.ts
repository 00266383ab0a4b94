/**
 * Solution modifiers (SPARQL 1.1 §18.5): Project, Distinct, Reduced, Slice; and VALUES (§18.2.4.1).
 */
import type { PlanOf } from '../algebra/plan.js';
import { BATCH_ROWS, compatible, keepRows, newBatch, appendMerged, type Batch } from './batch.js';
import type { Env, QueryContext } from './context.js';
import { allSlots, RowKeySet } from './row-set.js';

/** Clears every slot the projection drops (a sub-select's own variables leave its scope). */
export function* evalProject(plan: PlanOf<'project'>, q: QueryContext, env: Env): Generator<Batch> {
  const W = q.width;
  const keep = new Set(plan.slots);
  const clear = allSlots(W).filter((s) => !keep.has(s));
  for (const b of q.evaluate(plan.input, env)) {
    if (clear.length > 0) {
      const d = b.data;
      for (let r = 0; r < b.length; r++) {
        const base = r * W;
        for (const s of clear) d[base + s] = 0;
      }
    }
    yield b;
  }
}

export function evalDistinct(plan: PlanOf<'distinct'>, q: QueryContext, env: Env): Generator<Batch> {
  return dropRepeats(plan.input, q, env, new RowKeySet(allSlots(q.width), q, 'DISTINCT'));
}

/** REDUCED may drop any duplicates: drop those seen among the last REDUCED_WINDOW distinct rows. */
const REDUCED_WINDOW = 1 << 16;

export function evalReduced(plan: PlanOf<'reduced'>, q: QueryContext, env: Env): Generator<Batch> {
  return dropRepeats(plan.input, q, env, new RowKeySet(allSlots(q.width)), REDUCED_WINDOW);
}

/** The input's rows without those already in `seen` (compacted in place, batch by batch). With
 * a `window`, `seen` starts afresh once it holds that many rows (DISTINCT has none: it keeps
 * every row, under the row budget). */
function* dropRepeats(input: PlanOf<'distinct'>['input'], q: QueryContext, env: Env, seen: RowKeySet, window = Infinity): Generator<Batch> {
  const W = q.width;
  return yield* keepRows(q, q.evaluate(input, env), (d, base) => {
    if (seen.size >= window) seen = new RowKeySet(allSlots(W));
    const before = seen.size;
    seen.add(d, base);
    return seen.size !== before;
  });
}

export function* evalSlice(plan: PlanOf<'slice'>, q: QueryContext, env: Env): Generator<Batch> {
  const W = q.width;
  let skip = plan.offset;
  let left = plan.limit ?? Infinity;
  if (left <= 0) return;
  for (const b of q.evaluate(plan.input, env)) {
    let start = 0;
    if (skip > 0) {
      start = Math.min(skip, b.length);
      skip -= start;
    }
    const n = Math.min(b.length - start, left);
    if (n <= 0) continue;
    if (start > 0) b.data.copyWithin(0, start * W, (start + n) * W);
    b.length = n;
    left -= n;
    yield b;
    if (left <= 0) return;
  }
}

export function* evalValues(plan: PlanOf<'values'>, q: QueryContext, env: Env): Generator<Batch> {
  const W = q.width;
  const row = new Uint32Array(W);
  const zero = new Uint32Array(W);
  const seed = env.seed ?? zero;
  let out = newBatch(W);
  for (const values of plan.rows) {
    row.fill(0);
    plan.slots.forEach((s, j) => (row[s] = values[j]!));
    if (!compatible(row, 0, seed, 0, W)) continue;
    if (out.length === BATCH_ROWS) {
      yield out;
      out = newBatch(W);
    }
    appendMerged(out, row, 0, seed, 0);
  }
  if (out.length > 0) yield out;
}
