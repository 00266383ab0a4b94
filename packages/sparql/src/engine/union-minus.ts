/**
 * Union and Minus (SPARQL 1.1 §18.5). Minus removes a left row when some right row is compatible
 * with it and shares at least one bound variable with it (disjoint domains never remove).
 */
import type { PlanOf } from '../algebra/plan.js';
import { slotSets } from '../algebra/variables.js';
import type { Batch } from './batch.js';
import type { Env, QueryContext } from './context.js';
import { HashedRows, sharedCertain } from './join.js';

export function* evalUnion(plan: PlanOf<'union'>, q: QueryContext, env: Env): Generator<Batch> {
  yield* q.evaluate(plan.left, env);
  yield* q.evaluate(plan.right, env);
}

export function* evalMinus(plan: PlanOf<'minus'>, q: QueryContext, env: Env): Generator<Batch> {
  const W = q.width;
  const lp = slotSets(plan.left).possible;
  // Under a seed (EXISTS), the seeded variables stand for constants (§18.6 substitute): they are
  // in neither side's domain, so they never make the domains overlap.
  const seed = env.seed;
  const shared = [...slotSets(plan.right).possible].filter((s) => lp.has(s) && (seed === undefined || seed[s] === 0));
  if (shared.length === 0) {
    yield* q.evaluate(plan.left, env);
    return;
  }
  const keys = sharedCertain(plan.left, plan.right);
  let table: HashedRows | undefined;
  for (const b of q.evaluate(plan.left, env)) {
    q.tick();
    table ??= new HashedRows(q, keys, q.evaluate(plan.right, env), 'a MINUS');
    if (table.rows.length === 0) {
      yield b;
      continue;
    }
    const d = b.data;
    const rd = table.rows.data;
    let kept = 0;
    for (let r = 0; r < b.length; r++) {
      const base = r * W;
      let hashable = true;
      for (const k of keys) if (d[base + k] === 0) hashable = false;
      let removed = false;
      let i = hashable ? table.first(d, base) : 0;
      for (; i !== -1 && !removed; i = hashable ? table.nextOf(i) : i + 1 < table.rows.length ? i + 1 : -1) {
        const rb = i * W;
        let overlap = false;
        let clash = false;
        for (const s of shared) {
          const x = d[base + s]!;
          const y = rd[rb + s]!;
          if (x === 0 || y === 0) continue;
          if (x !== y) {
            clash = true;
            break;
          }
          overlap = true;
        }
        if (!clash && overlap) removed = true;
      }
      if (!removed) {
        if (kept !== r) d.copyWithin(kept * W, base, base + W);
        kept++;
      }
    }
    b.length = kept;
    if (kept > 0) yield b;
  }
}
