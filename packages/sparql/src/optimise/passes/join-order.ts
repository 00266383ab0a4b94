/**
 * Join ordering. The operands of a tree of joins — each triple pattern of its BGPs, each property
 * path and each other operand — are put in a greedy order: first the cheapest, then, while any
 * operand shares a variable with those placed, the cheapest such operand given what is bound by
 * then. Costs come from exact counts of each pattern's constant parts (Statistics), scaled down
 * when a variable is already bound (a bound subject usually leaves a few quads, a bound object
 * more). Operands that cannot take bindings from the left (sub-selects, OPTIONAL groups, ...)
 * go first, in their written order; the evaluator then feeds their rows into the rest.
 */
import type { Plan, PlanPattern, PlanTerm, GraphRef } from '../../algebra/plan.js';
import { patternSlots, seedable, slotSets } from '../../algebra/variables.js';
import { transformPlan } from '../../algebra/walk.js';
import type { Statistics } from '../statistics.js';
import { joinAll, joinLeaves } from './merge-bgps.js';

type Step = { kind: 'pattern'; pattern: PlanPattern } | { kind: 'plan'; plan: Plan };

function isBound(t: PlanTerm | GraphRef, bound: ReadonlySet<number>): boolean {
  return t.kind === 'var' && bound.has(t.slot);
}

function isFixed(t: PlanTerm, bound: ReadonlySet<number>): boolean {
  return t.kind === 'const' || bound.has(t.slot);
}

/** Estimated rows per incoming row for a pattern, given the bound slots. */
export function patternCost(p: PlanPattern, bound: ReadonlySet<number>, stats: Statistics, count?: number): number {
  const c = count ?? stats.count(p);
  const s = isBound(p.s, bound);
  const o = isBound(p.o, bound);
  if (s && (o || p.o.kind === 'const')) return Math.min(c, 1);
  if (s) return Math.min(c, 3);
  if (o) return Math.min(c, 30);
  if (isBound(p.p, bound) || isBound(p.g, bound)) return c / 10;
  return c;
}

function stepSlots(s: Step): Set<number> {
  return s.kind === 'pattern' ? patternSlots(s.pattern) : slotSets(s.plan).certain;
}

function stepCost(s: Step, bound: ReadonlySet<number>, stats: Statistics, count: number): number {
  if (s.kind === 'pattern') return patternCost(s.pattern, bound, stats, count);
  const p = s.plan;
  if (p.type === 'path') return isFixed(p.subject, bound) || isFixed(p.object, bound) ? 50 : 1e7;
  if (p.type === 'values') return p.rows.length;
  const shares = [...slotSets(p).possible].some((x) => bound.has(x));
  return shares ? 1000 : 1e8;
}

function lessThan(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/** Order the steps greedily (see the module comment). */
function order(steps: Step[], initiallyBound: ReadonlySet<number>, stats: Statistics): Step[] {
  const bound = new Set(initiallyBound);
  // Counts do not depend on what is bound: read once per step, not once per step and round (the
  // greedy order is quadratic in the steps, and a BGP may have thousands).
  const left = steps.map((s, i) => ({ s, i, slots: [...stepSlots(s)], count: s.kind === 'pattern' ? stats.count(s.pattern) : 0 }));
  const out: Step[] = [];
  while (left.length > 0) {
    let best = -1;
    let bestKey: number[] = [Infinity, Infinity, Infinity, Infinity];
    for (let j = 0; j < left.length; j++) {
      const { s, i, slots, count } = left[j]!;
      const connected = bound.size === 0 || slots.some((x) => bound.has(x)) ? 0 : 1;
      // Ties on the estimate go to the pattern with fewer quads overall, then the written order.
      const key = [connected, stepCost(s, bound, stats, count), count, i];
      if (lessThan(key, bestKey)) {
        best = j;
        bestKey = key;
      }
    }
    const [chosen] = left.splice(best, 1);
    out.push(chosen!.s);
    for (const x of chosen!.slots) bound.add(x);
  }
  return out;
}

/** Rebuild steps as a left-deep join, consecutive patterns forming one BGP. */
function build(prefix: Plan[], steps: Step[]): Plan {
  const parts: Plan[] = [...prefix];
  let run: PlanPattern[] = [];
  const flush = (): void => {
    if (run.length > 0) parts.push({ type: 'bgp', patterns: run });
    run = [];
  };
  for (const s of steps) {
    if (s.kind === 'pattern') run.push(s.pattern);
    else {
      flush();
      parts.push(s.plan);
    }
  }
  flush();
  return joinAll(parts);
}

/**
 * `outer`: slots bound by every row that will be fed into this plan — the left side's certain
 * slots for the right side of an OPTIONAL, whose rows are streamed through it (a pattern
 * joining on them must come first, not the one that is cheapest on its own).
 */
function reorder(p: Plan, stats: Statistics, outer: ReadonlySet<number> = new Set()): Plan {
  if (p.type === 'leftJoin') {
    const right = reorder(p.right, stats, slotSets(p.left).certain);
    return right === p.right ? p : { ...p, right };
  }
  if (p.type === 'bgp') {
    if (p.patterns.length < 2) return p;
    return build([], order(p.patterns.map((pattern) => ({ kind: 'pattern', pattern })), outer, stats));
  }
  if (p.type !== 'join') return p;
  const first: Plan[] = [];
  const steps: Step[] = [];
  for (const leaf of joinLeaves(p)) {
    if (leaf.type === 'bgp') for (const pattern of leaf.patterns) steps.push({ kind: 'pattern', pattern });
    else if (leaf.type === 'path' || seedable(leaf)) steps.push({ kind: 'plan', plan: leaf });
    else first.push(leaf);
  }
  const bound = new Set<number>(outer);
  for (const f of first) for (const x of slotSets(f).certain) bound.add(x);
  return build(first, order(steps, bound, stats));
}

export function joinOrder(plan: Plan, stats: Statistics): Plan {
  return transformPlan(plan, (p) => reorder(p, stats));
}
