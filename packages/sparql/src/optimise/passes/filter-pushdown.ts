/**
 * Filter push-down: a filter is split into its `&&` conjuncts (FILTER(A && B) keeps a solution
 * exactly when both hold), and each conjunct moves below the operators it commutes with:
 * - Join: into the side that always binds every variable the conjunct reads;
 * - LeftJoin: into the left side, likewise;
 * - Union: into both branches;
 * - Extend: below it when the conjunct does not read the bound variable;
 * - Filter, Distinct, OrderBy: below them;
 * - Project: below it when the projection keeps every variable the conjunct reads.
 * Conjuncts holding EXISTS stay where they are (EXISTS reads the whole solution).
 */
import { Algebra } from 'sparqlalgebrajs';
import type { Plan, PlanExpression } from '../../algebra/plan.js';
import { slotSets } from '../../algebra/variables.js';
import { mapChildren } from '../../algebra/walk.js';

/** The `&&` conjuncts of a filter expression, each with the slots it reads. */
export function conjuncts(e: PlanExpression): PlanExpression[] {
  const parts: Algebra.Expression[] = [];
  const split = (x: Algebra.Expression): void => {
    if (x.expressionType === Algebra.expressionTypes.OPERATOR && x.operator === '&&' && x.args.length === 2) {
      split(x.args[0]!);
      split(x.args[1]!);
    } else parts.push(x);
  };
  split(e.expr);
  if (parts.length === 1) return [e];
  return parts.map((expr) => {
    const slots = new Map<string, number>();
    const exists = new Map<Algebra.Operation, Plan>();
    const visit = (x: Algebra.Expression): void => {
      if (x.expressionType === Algebra.expressionTypes.TERM) {
        if (x.term.termType === 'Variable') {
          const s = e.slots.get(x.term.value);
          if (s !== undefined) slots.set(x.term.value, s);
        }
      } else if (x.expressionType === Algebra.expressionTypes.OPERATOR || x.expressionType === Algebra.expressionTypes.NAMED) {
        x.args.forEach(visit);
      } else if (x.expressionType === Algebra.expressionTypes.EXISTENCE) {
        const plan = e.exists.get(x.input);
        if (plan !== undefined) exists.set(x.input, plan);
      } else if (x.expressionType === Algebra.expressionTypes.AGGREGATE) {
        visit(x.expression);
      }
    };
    visit(expr);
    return { expr, slots, exists };
  });
}

function readsOnly(e: PlanExpression, slots: ReadonlySet<number>): boolean {
  for (const s of e.slots.values()) if (!slots.has(s)) return false;
  return true;
}

/** Put the conjunct as low under `p` as it may go. */
function push(e: PlanExpression, p: Plan): Plan {
  if (e.exists.size > 0 || e.slots.size === 0) return { type: 'filter', input: p, expression: e };
  switch (p.type) {
    case 'join':
      if (readsOnly(e, slotSets(p.left).certain)) return { ...p, left: push(e, p.left) };
      if (readsOnly(e, slotSets(p.right).certain)) return { ...p, right: push(e, p.right) };
      break;
    case 'leftJoin':
      if (readsOnly(e, slotSets(p.left).certain)) return { ...p, left: push(e, p.left) };
      break;
    case 'union':
      return { ...p, left: push(e, p.left), right: push(e, p.right) };
    case 'extend':
      if (![...e.slots.values()].includes(p.slot)) return { ...p, input: push(e, p.input) };
      break;
    case 'filter':
    case 'distinct':
    case 'orderBy':
      return { ...p, input: push(e, p.input) };
    case 'project':
      if (readsOnly(e, new Set(p.slots))) return { ...p, input: push(e, p.input) };
      break;
    default:
      break;
  }
  return { type: 'filter', input: p, expression: e };
}

function visit(p: Plan): Plan {
  if (p.type === 'filter') {
    let input = visit(p.input);
    for (const c of conjuncts(p.expression)) input = push(c, input);
    return input;
  }
  return mapChildren(p, visit);
}

export function filterPushdown(plan: Plan): Plan {
  return visit(plan);
}
