/**
 * Filter and Extend (SPARQL 1.1 §18.5). A filter keeps rows whose expression has effective
 * boolean value true (an error counts as false, §17.2); Extend binds the expression's value, and
 * leaves the variable unbound when the expression errors (§18.5 Extend).
 */
import type { Plan, PlanOf } from '../algebra/plan.js';
import type { Batch } from './batch.js';
import type { Env, QueryContext } from './context.js';
import { evaluate } from './evaluate.js';
import { NumericCache, numericComparison } from './numeric.js';
import { BnodeScope, bindExpression, test, valueOrError } from './expression-context.js';

export function* evalFilter(plan: PlanOf<'filter'>, q: QueryContext, env: Env): Generator<Batch> {
  const W = q.width;
  const { f, ctx } = bindExpression(q, plan.expression, env);
  const fast = numericComparison(plan.expression, q, new NumericCache(q));
  for (const b of evaluate(plan.input, q, env)) {
    q.tick();
    const d = b.data;
    let kept = 0;
    for (let r = 0; r < b.length; r++) {
      const base = r * W;
      const quick = fast?.(d, base);
      if (quick === false || (quick === undefined && !test(f, ctx.at(d, base)))) continue;
      if (kept !== r) d.copyWithin(kept * W, base, base + W);
      kept++;
    }
    b.length = kept;
    if (kept > 0) yield b;
  }
}

/** A chain of Extends (consecutive BINDs, SELECT expressions) is evaluated row by row, so the
 * expressions of one solution share BNODE(label) values. */
export function* evalExtend(plan: PlanOf<'extend'>, q: QueryContext, env: Env): Generator<Batch> {
  const W = q.width;
  const chain: PlanOf<'extend'>[] = [];
  let input: Plan = plan;
  while (input.type === 'extend') {
    chain.unshift(input);
    input = input.input;
  }
  const scope = new BnodeScope();
  const steps = chain.map((e) => ({ slot: e.slot, ...bindExpression(q, e.expression, env, scope) }));
  for (const b of evaluate(input, q, env)) {
    q.tick();
    const d = b.data;
    for (let r = 0; r < b.length; r++) {
      const base = r * W;
      scope.next();
      for (const { slot, f, ctx } of steps) {
        if (d[base + slot] !== 0) continue;
        const v = valueOrError(f, ctx.at(d, base));
        if (v !== undefined) d[base + slot] = q.terms.idOf(v);
      }
    }
    yield b;
  }
}
