/**
 * The optimiser: an ordered list of named passes, each a pure function of the plan (and the
 * statistics). The order matters: folding first removes dead branches; BGPs are merged so that
 * ordering sees whole join groups; filters are pushed down before ordering and placed inside the
 * ordered pipelines after it; top-k looks at the final ORDER BY / LIMIT shape.
 */
import type { Plan, QueryPlan } from '../algebra/plan.js';
import { constantFolding } from './passes/constant-folding.js';
import { filterPlacement } from './passes/filter-placement.js';
import { filterPushdown } from './passes/filter-pushdown.js';
import { joinOrder } from './passes/join-order.js';
import { mergeBgps } from './passes/merge-bgps.js';
import { topK } from './passes/top-k.js';
import type { Statistics } from './statistics.js';

export { createStatistics, NO_STATISTICS, type Statistics } from './statistics.js';

export interface Pass {
  name: string;
  run(plan: Plan, stats: Statistics): Plan;
}

export const PASSES: readonly Pass[] = [
  { name: 'constant-folding', run: constantFolding },
  { name: 'merge-bgps', run: mergeBgps },
  { name: 'filter-pushdown', run: filterPushdown },
  { name: 'join-order', run: joinOrder },
  { name: 'filter-placement', run: filterPlacement },
  { name: 'top-k', run: topK },
];

export function optimisePlan(plan: Plan, stats: Statistics, passes: readonly Pass[] = PASSES): Plan {
  return passes.reduce((p, pass) => pass.run(p, stats), plan);
}

export function optimise(query: QueryPlan, stats: Statistics, passes: readonly Pass[] = PASSES): QueryPlan {
  return { ...query, root: optimisePlan(query.root, stats, passes) };
}
