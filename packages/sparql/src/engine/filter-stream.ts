/**
 * The streaming filter (SPARQL 1.1 §18.5 Filter): the rows of a batch stream for which an
 * expression holds. Its own module because both the Filter operator (filter-extend.ts) and the
 * join chains (join.ts, a seedable filter on a join's right side) use it, and filter-extend.ts
 * depends on the joins through tagged.ts (FILTER EXISTS as a semi-join): with it in
 * filter-extend.ts the three would import one another in a cycle.
 */
import type { PlanExpression } from '../algebra/plan.js';
import { keepRows, type Batch } from './batch.js';
import type { Env, QueryContext } from './context.js';
import { bindExpression, test } from './expression-context.js';
import { valueComparison } from './numeric.js';

/** The rows of `input` for which the expression holds (modifies the batches in place). */
export function* filterStream(q: QueryContext, input: Iterable<Batch>, expression: PlanExpression, env: Env): Generator<Batch> {
  const { f, ctx } = bindExpression(q, expression, env);
  const fast = valueComparison(expression, q.values);
  return yield* keepRows(q, input, (d, base) => {
    const quick = fast?.(d, base);
    return quick === true || (quick === undefined && test(f, ctx.at(d, base)));
  });
}
