/**
 * Filter and Extend (SPARQL 1.1 §18.5). A filter keeps rows whose expression has effective
 * boolean value true (an error counts as false, §17.2); Extend binds the expression's value, and
 * leaves the variable unbound when the expression errors (§18.5 Extend).
 */
import { Algebra } from 'sparqlalgebrajs';
import type { Plan, PlanOf } from '../algebra/plan.js';
import { seedable } from '../algebra/variables.js';
import type { Batch } from './batch.js';
import type { Env, QueryContext } from './context.js';
import { filterStream } from './filter-stream.js';
import { taggedJoin } from './tagged.js';
import { BnodeScope, bindExpression, valueOrError } from './expression-context.js';

export function evalFilter(plan: PlanOf<'filter'>, q: QueryContext, env: Env): Iterable<Batch> {
  const e = plan.expression.expr;
  // FILTER (NOT) EXISTS { P } with P distributing over joins: a semi-join (anti-join) pipeline.
  if (e.expressionType === Algebra.expressionTypes.EXISTENCE) {
    const pattern = plan.expression.exists.get(e.input);
    if (pattern !== undefined && seedable(pattern)) return taggedJoin(q, q.evaluate(plan.input, env), pattern, env, e.not ? 'notExists' : 'exists');
  }
  return filterStream(q, q.evaluate(plan.input, env), plan.expression, env);
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
  // BIND(?x AS ?y) and constants need no evaluation: copy the id (-1 = evaluate).
  const copyFrom = (e: PlanOf<'extend'>): number => {
    const x = e.expression.expr;
    return x.expressionType === 'term' && x.term.termType === 'Variable' ? (e.expression.slots.get(x.term.value) ?? -1) : -1;
  };
  const steps = chain.map((e) => ({ slot: e.slot, from: copyFrom(e), ...bindExpression(q, e.expression, env, scope) }));
  // Under a seed (EXISTS) a BIND's variable may already hold the outer value: the row survives only
  // when the expression gives that same value (the join of the outer row with the BIND).
  const seed = env.seed;
  const checked = seed !== undefined && steps.some((st) => seed[st.slot] !== 0);
  for (const b of q.evaluate(input, env)) {
    q.tick();
    const d = b.data;
    let kept = 0;
    for (let r = 0; r < b.length; r++) {
      const base = r * W;
      scope.next();
      let keep = true;
      for (const { slot, from, f, ctx } of steps) {
        const outer = checked ? seed[slot]! : 0;
        if (outer === 0 && d[base + slot] !== 0) continue;
        let id: number;
        if (from >= 0) id = d[base + from]!;
        else {
          const v = valueOrError(f, ctx.at(d, base));
          id = v === undefined ? 0 : q.terms.idOf(v);
        }
        if (outer !== 0) {
          if (id !== 0 && id !== outer) keep = false;
          continue;
        }
        d[base + slot] = id;
      }
      if (!keep) continue;
      if (kept !== r) d.copyWithin(kept * W, base, base + W);
      kept++;
    }
    b.length = kept;
    if (kept > 0) yield b;
  }
}
