/**
 * Generic traversal of plans: rebuild a node with transformed children (including the plans of
 * EXISTS patterns inside its expressions). Plans are immutable; passes build new nodes.
 */
import type { AggregateBinding, Plan, PlanExpression } from './plan.js';

export function mapExpression(e: PlanExpression, f: (p: Plan) => Plan): PlanExpression {
  if (e.exists.size === 0) return e;
  const exists = new Map([...e.exists].map(([k, v]) => [k, f(v)] as const));
  return { ...e, exists };
}

/** The node with `f` applied to each direct child. */
export function mapChildren(plan: Plan, f: (p: Plan) => Plan): Plan {
  switch (plan.type) {
    case 'bgp':
    case 'path':
    case 'values':
    case 'empty':
      return plan;
    case 'join':
    case 'union':
    case 'minus':
      return { ...plan, left: f(plan.left), right: f(plan.right) };
    case 'leftJoin':
      return { ...plan, left: f(plan.left), right: f(plan.right), expression: plan.expression && mapExpression(plan.expression, f) };
    case 'filter':
    case 'extend':
      return { ...plan, input: f(plan.input), expression: mapExpression(plan.expression, f) };
    case 'group':
      return {
        ...plan,
        input: f(plan.input),
        aggregates: plan.aggregates.map((a): AggregateBinding => ({ ...a, argument: a.argument && mapExpression(a.argument, f) })),
      };
    case 'orderBy':
      return { ...plan, input: f(plan.input), keys: plan.keys.map((k) => ({ ...k, expression: mapExpression(k.expression, f) })) };
    case 'project':
    case 'distinct':
    case 'reduced':
    case 'slice':
    case 'graph':
      return { ...plan, input: f(plan.input) };
  }
}

/** Apply `f` bottom-up to every node. */
export function transformPlan(plan: Plan, f: (p: Plan) => Plan): Plan {
  return f(mapChildren(plan, (c) => transformPlan(c, f)));
}
