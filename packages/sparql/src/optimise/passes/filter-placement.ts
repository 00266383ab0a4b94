/**
 * Filter placement inside a join pipeline: once join order is fixed, each filter of a chain of
 * filters over a BGP (or over a left-deep chain of joins) is moved to the earliest point of the
 * pipeline where every variable it reads is bound, so rejected rows are not joined further.
 * Runs after join ordering; conjuncts were split by filter push-down.
 */
import type { Plan, PlanExpression, PlanPattern } from '../../algebra/plan.js';
import { patternSlots, slotSets } from '../../algebra/variables.js';
import { mapChildren, mapExpression } from '../../algebra/walk.js';
import { joinAll, joinLeaves } from './merge-bgps.js';

type Step = PlanPattern | Plan;

function isPattern(s: Step): s is PlanPattern {
  return !('type' in s);
}

/** Place a chain of filters over `input` (its join pipeline flattened into steps). */
function place(filters: PlanExpression[], input: Plan): Plan {
  const leaves = input.type === 'join' ? joinLeaves(input) : [input];
  const steps: Step[] = [];
  for (const l of leaves) {
    if (l.type === 'bgp') steps.push(...l.patterns);
    else steps.push(l);
  }
  // For each filter, the shortest prefix of steps that binds what it reads (all steps if none).
  const bound: Set<number>[] = [new Set()];
  for (const st of steps) {
    const next = new Set(bound[bound.length - 1]);
    for (const s of isPattern(st) ? patternSlots(st) : slotSets(st).certain) next.add(s);
    bound.push(next);
  }
  const at = filters.map((e) => {
    if (e.exists.size > 0 || e.slots.size === 0) return steps.length;
    const need = [...e.slots.values()];
    for (let k = 1; k <= steps.length; k++) if (need.every((s) => bound[k]!.has(s))) return k;
    return steps.length;
  });
  let plan: Plan | undefined;
  let done = 0;
  for (const k of [...new Set(at)].sort((a, b) => a - b)) {
    if (k > done) {
      const segment = group(steps.slice(done, k));
      plan = plan === undefined ? joinAll(segment) : joinAll([plan, ...segment]);
      done = k;
    }
    plan ??= joinAll([]);
    filters.forEach((e, i) => {
      if (at[i] === k) plan = { type: 'filter', input: plan!, expression: e };
    });
  }
  if (done < steps.length) plan = joinAll([plan!, ...group(steps.slice(done))]);
  return plan!;
}

/** Steps back into plans, consecutive patterns as one BGP. */
function group(steps: Step[]): Plan[] {
  const parts: Plan[] = [];
  let run: PlanPattern[] = [];
  for (const s of steps) {
    if (isPattern(s)) run.push(s);
    else {
      if (run.length > 0) parts.push({ type: 'bgp', patterns: run });
      run = [];
      parts.push(s);
    }
  }
  if (run.length > 0) parts.push({ type: 'bgp', patterns: run });
  return parts;
}

function visit(p: Plan): Plan {
  if (p.type !== 'filter') return mapChildren(p, visit);
  const filters: PlanExpression[] = [];
  let input: Plan = p;
  while (input.type === 'filter') {
    filters.unshift(input.expression);
    input = input.input;
  }
  const inner = mapChildren(input, visit);
  return place(
    filters.map((f) => mapExpression(f, visit)),
    inner,
  );
}

export function filterPlacement(plan: Plan): Plan {
  return visit(plan);
}
