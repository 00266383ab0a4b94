/**
 * Merge BGPs: Join is associative and commutative (§18.5), so a tree of joins is flattened and
 * all its BGPs become one, which join ordering can then order as a whole. The empty BGP (the
 * join identity) disappears.
 */
import type { Plan, PlanPattern } from '../../algebra/plan.js';
import { transformPlan } from '../../algebra/walk.js';

/** The operands of a tree of joins, left to right. */
export function joinLeaves(p: Plan, out: Plan[] = []): Plan[] {
  if (p.type === 'join') {
    joinLeaves(p.left, out);
    joinLeaves(p.right, out);
  } else out.push(p);
  return out;
}

/** A left-deep join of the operands (the one empty solution for none). */
export function joinAll(parts: readonly Plan[]): Plan {
  if (parts.length === 0) return { type: 'bgp', patterns: [] };
  let acc = parts[0]!;
  for (let i = 1; i < parts.length; i++) acc = { type: 'join', left: acc, right: parts[i]! };
  return acc;
}

function merge(p: Plan): Plan {
  if (p.type !== 'join') return p;
  const leaves = joinLeaves(p);
  const patterns: PlanPattern[] = [];
  const others: Plan[] = [];
  let bgps = 0;
  for (const l of leaves) {
    if (l.type === 'bgp') {
      bgps++;
      patterns.push(...l.patterns);
    } else others.push(l);
  }
  if (bgps === 0) return p;
  const parts = patterns.length > 0 ? [{ type: 'bgp', patterns } as Plan, ...others] : others;
  return joinAll(parts);
}

export function mergeBgps(plan: Plan): Plan {
  return transformPlan(plan, merge);
}
