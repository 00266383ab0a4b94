/**
 * Top-k: an ORDER BY under a LIMIT (possibly with a projection between, which keeps row counts)
 * needs only its first offset + limit rows, so the sort keeps a bounded heap (engine/order.ts).
 */
import type { Plan } from '../../algebra/plan.js';
import { transformPlan } from '../../algebra/walk.js';

function withLimit(p: Plan, k: number): Plan | undefined {
  if (p.type === 'orderBy') return { ...p, limit: p.limit === undefined ? k : Math.min(p.limit, k) };
  if (p.type === 'project') {
    const inner = withLimit(p.input, k);
    return inner && { ...p, input: inner };
  }
  return undefined;
}

export function topK(plan: Plan): Plan {
  return transformPlan(plan, (p) => {
    if (p.type !== 'slice' || p.limit === undefined) return p;
    const input = withLimit(p.input, p.offset + p.limit);
    return input ? { ...p, input } : p;
  });
}
