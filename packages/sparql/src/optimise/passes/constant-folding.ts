/**
 * Constant folding: a FILTER whose expression reads no variable is evaluated once — true drops
 * the filter, false or an error (§17.2) makes the pattern empty — and `empty` is propagated
 * through the operators it decides (Join, LeftJoin's left side, Union branches, ...).
 * Sub-expressions of pure functions over constants are folded by the expression compiler itself.
 */
import { Algebra } from 'sparqlalgebrajs';
import type { Plan, PlanExpression } from '../../algebra/plan.js';
import { transformPlan } from '../../algebra/walk.js';
import { ExpressionError } from '../../errors.js';
import type { ExpressionContext } from '../../expressions/api.js';
import { compileExpression, effectiveBooleanValue } from '../../expressions/index.js';

const VOLATILE = new Set(['rand', 'now', 'uuid', 'struuid', 'bnode']);

function isConstant(e: Algebra.Expression): boolean {
  switch (e.expressionType) {
    case Algebra.expressionTypes.TERM:
      return e.term.termType !== 'Variable';
    case Algebra.expressionTypes.OPERATOR:
      return !VOLATILE.has(e.operator.toLowerCase()) && e.args.every(isConstant);
    case Algebra.expressionTypes.NAMED:
      return e.args.every(isConstant);
    default:
      return false;
  }
}

const NO_ROW: ExpressionContext = {
  value: () => undefined,
  exists: () => false,
  now: new Date(0),
  baseIRI: undefined,
  bnode: () => {
    throw new TypeError('BNODE in constant folding');
  },
};

/** The effective boolean value of a constant expression (false on an error), or undefined when
 * the expression is not constant. */
export function constantTruth(e: PlanExpression): boolean | undefined {
  if (e.slots.size > 0 || e.exists.size > 0 || !isConstant(e.expr)) return undefined;
  try {
    return effectiveBooleanValue(compileExpression(e.expr, () => -1)(NO_ROW));
  } catch (err) {
    if (err instanceof ExpressionError) return false;
    return undefined;
  }
}

const EMPTY: Plan = { type: 'empty' };

function fold(p: Plan): Plan {
  switch (p.type) {
    case 'filter': {
      if (p.input.type === 'empty') return EMPTY;
      const truth = constantTruth(p.expression);
      if (truth === true) return p.input;
      if (truth === false) return EMPTY;
      return p;
    }
    case 'join':
      return p.left.type === 'empty' || p.right.type === 'empty' ? EMPTY : p;
    case 'leftJoin':
      if (p.left.type === 'empty') return EMPTY;
      return p.right.type === 'empty' ? p.left : p;
    case 'union':
      if (p.left.type === 'empty') return p.right;
      return p.right.type === 'empty' ? p.left : p;
    case 'minus':
      if (p.left.type === 'empty') return EMPTY;
      return p.right.type === 'empty' ? p.left : p;
    case 'extend':
    case 'distinct':
    case 'reduced':
    case 'slice':
    case 'orderBy':
    case 'project':
    case 'graph':
      return p.input.type === 'empty' ? EMPTY : p;
    default:
      return p;
  }
}

export function constantFolding(plan: Plan): Plan {
  return transformPlan(plan, fold);
}
