/**
 * LeftJoin (SPARQL 1.1 §18.5, OPTIONAL): every left row joined with its compatible right rows for
 * which the OPTIONAL's filter holds on the merged row; a left row without any is kept as it is.
 * A single-pattern right side without a filter is one optional pattern stage; a right side that
 * distributes over joins runs as a tagged pipeline (tagged.ts); otherwise the right side is
 * materialised and hashed on the slots both sides always bind.
 */
import type { Plan, PlanOf } from '../algebra/plan.js';
import { BATCH_ROWS, appendRow, compatible, newBatch, type Batch } from './batch.js';
import { patternStage } from './bgp.js';
import type { Env, QueryContext } from './context.js';
import { bindExpression, test, type RowContext } from './expression-context.js';
import { HashedRows, seedable, sharedCertain } from './join.js';
import { taggedJoin } from './tagged.js';
import type { CompiledExpression } from '../expressions/api.js';

export function evalLeftJoin(plan: PlanOf<'leftJoin'>, q: QueryContext, env: Env): Iterable<Batch> {
  const { left, right, expression } = plan;
  const input = q.evaluate(left, env);
  if (right.type === 'bgp' && right.patterns.length === 1 && expression === undefined) {
    return patternStage(q, right.patterns[0]!, input, env, true);
  }
  if (seedable(right)) return taggedJoin(q, input, right, env, 'optional', expression);
  const filter = expression ? bindExpression(q, expression, env) : undefined;
  return hashLeftJoin(q, input, left, right, env, filter);
}

type Filter = { f: CompiledExpression; ctx: RowContext } | undefined;

/** Write the merge of a left row and a right row to `out` and keep it when the filter holds. */
function emitMerged(out: Batch, l: Uint32Array, lBase: number, r: Uint32Array, rBase: number, filter: Filter): boolean {
  const W = out.width;
  const base = out.length * W;
  const d = out.data;
  for (let j = 0; j < W; j++) {
    const x = l[lBase + j]!;
    d[base + j] = x !== 0 ? x : r[rBase + j]!;
  }
  if (filter !== undefined && !test(filter.f, filter.ctx.at(d, base))) return false;
  out.length++;
  return true;
}

function* hashLeftJoin(q: QueryContext, input: Iterable<Batch>, left: Plan, right: Plan, env: Env, filter: Filter): Generator<Batch> {
  const W = q.width;
  const keys = sharedCertain(left, right);
  const table = new HashedRows(q, keys, q.evaluate(right, env), 'an OPTIONAL');
  let out = newBatch(W);
  for (const lb of input) {
    q.tick();
    const d = lb.data;
    for (let r = 0; r < lb.length; r++) {
      const base = r * W;
      let kept = false;
      let hashable = true;
      for (const k of keys) if (d[base + k] === 0) hashable = false;
      const rd = table.rows.data;
      let i = hashable ? table.first(d, base) : table.rows.length > 0 ? 0 : -1;
      for (; i !== -1; i = hashable ? table.nextOf(i) : i + 1 < table.rows.length ? i + 1 : -1) {
        if (!compatible(d, base, rd, i * W, W)) continue;
        if (out.length === BATCH_ROWS) {
          yield out;
          out = newBatch(W);
        }
        if (emitMerged(out, d, base, rd, i * W, filter)) kept = true;
      }
      if (!kept) {
        if (out.length === BATCH_ROWS) {
          yield out;
          out = newBatch(W);
        }
        appendRow(out, d, base);
      }
    }
  }
  if (out.length > 0) yield out;
}
