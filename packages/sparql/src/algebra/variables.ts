/**
 * Which slots a plan binds: `certain` = bound in every solution, `possible` = bound in some.
 * Joins use these to pick hash keys (certain on both sides) and to know when the compatibility
 * test must also look at possibly-unbound slots; the optimiser uses them to place filters.
 */
import type { GraphRef, Plan, PlanPattern, PlanTerm } from './plan.js';

export interface SlotSets {
  certain: Set<number>;
  possible: Set<number>;
}

const cache = new WeakMap<Plan, SlotSets>();

function addTerm(set: Set<number>, t: PlanTerm | GraphRef): void {
  if (t.kind === 'var') set.add(t.slot);
}

export function patternSlots(p: PlanPattern): Set<number> {
  const s = new Set<number>();
  addTerm(s, p.s);
  addTerm(s, p.p);
  addTerm(s, p.o);
  addTerm(s, p.g);
  return s;
}

export function slotSets(plan: Plan): SlotSets {
  let r = cache.get(plan);
  if (r === undefined) {
    r = compute(plan);
    cache.set(plan, r);
  }
  return r;
}

function union(a: Set<number>, b: Set<number>): Set<number> {
  const s = new Set(a);
  for (const x of b) s.add(x);
  return s;
}

function intersect(a: Set<number>, b: Set<number>): Set<number> {
  const s = new Set<number>();
  for (const x of a) if (b.has(x)) s.add(x);
  return s;
}

function compute(plan: Plan): SlotSets {
  switch (plan.type) {
    case 'bgp': {
      const s = new Set<number>();
      for (const p of plan.patterns) for (const x of patternSlots(p)) s.add(x);
      return { certain: s, possible: s };
    }
    case 'path': {
      const s = new Set<number>();
      addTerm(s, plan.subject);
      addTerm(s, plan.object);
      addTerm(s, plan.graph);
      return { certain: s, possible: s };
    }
    case 'join': {
      const l = slotSets(plan.left);
      const r = slotSets(plan.right);
      return { certain: union(l.certain, r.certain), possible: union(l.possible, r.possible) };
    }
    case 'leftJoin': {
      const l = slotSets(plan.left);
      const r = slotSets(plan.right);
      return { certain: l.certain, possible: union(l.possible, r.possible) };
    }
    case 'union': {
      const l = slotSets(plan.left);
      const r = slotSets(plan.right);
      return { certain: intersect(l.certain, r.certain), possible: union(l.possible, r.possible) };
    }
    case 'minus':
    case 'filter':
    case 'distinct':
    case 'reduced':
    case 'slice':
    case 'orderBy':
      return slotSets(plan.type === 'minus' ? plan.left : plan.input);
    case 'extend': {
      const i = slotSets(plan.input);
      const possible = new Set(i.possible);
      possible.add(plan.slot);
      return { certain: i.certain, possible };
    }
    case 'group': {
      const i = slotSets(plan.input);
      const certain = new Set<number>();
      const possible = new Set<number>();
      for (const k of plan.keys) {
        if (i.certain.has(k)) certain.add(k);
        possible.add(k);
      }
      for (const a of plan.aggregates) possible.add(a.slot);
      return { certain, possible };
    }
    case 'project': {
      const i = slotSets(plan.input);
      const keep = new Set(plan.slots);
      return { certain: intersect(i.certain, keep), possible: intersect(i.possible, keep) };
    }
    case 'values': {
      const certain = new Set<number>();
      const possible = new Set<number>();
      plan.slots.forEach((slot, j) => {
        if (plan.rows.some((r) => r[j] !== 0)) possible.add(slot);
        if (plan.rows.every((r) => r[j] !== 0)) certain.add(slot);
      });
      return { certain, possible };
    }
    case 'graph': {
      const i = slotSets(plan.input);
      const certain = new Set(i.certain);
      const possible = new Set(i.possible);
      addTerm(certain, plan.name);
      addTerm(possible, plan.name);
      return { certain, possible };
    }
    case 'empty':
      return { certain: new Set(), possible: new Set() };
  }
}

/**
 * Whether evaluating `plan` with bindings fixed gives exactly its join with those bindings, so a
 * join may evaluate it once per left row. Filters and BINDs qualify only when their expressions
 * read slots the input always binds (else the outer bindings would change the expression).
 */
export function seedable(plan: Plan): boolean {
  switch (plan.type) {
    case 'bgp':
    case 'path':
    case 'values':
    case 'empty':
      return true;
    case 'join':
    case 'union':
      return seedable(plan.left) && seedable(plan.right);
    case 'filter': {
      if (!seedable(plan.input) || plan.expression.exists.size > 0) return false;
      const certain = slotSets(plan.input).certain;
      for (const s of plan.expression.slots.values()) if (!certain.has(s)) return false;
      return true;
    }
    default:
      return false;
  }
}

