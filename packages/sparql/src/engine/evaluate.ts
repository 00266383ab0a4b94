/**
 * The evaluator's dispatch: one function per plan operator, each a generator of batches. The
 * operators import nothing from here: they evaluate their inputs through the QueryContext, which
 * execute.ts builds with this function (context.ts `Evaluate`).
 */
import type { Plan } from '../algebra/plan.js';
import { evalPath } from '../paths/evaluate.js';
import type { Batch } from './batch.js';
import { evalBgp } from './bgp.js';
import type { Env, QueryContext } from './context.js';
import { evalFilter, evalExtend } from './filter-extend.js';
import { evalGraph } from './graph.js';
import { evalGroup } from './group.js';
import { evalJoin } from './join.js';
import { evalLeftJoin } from './left-join.js';
import { evalDistinct, evalProject, evalReduced, evalSlice, evalValues } from './modifiers.js';
import { evalOrderBy } from './order.js';
import { evalMinus, evalUnion } from './union-minus.js';

export function evaluate(plan: Plan, q: QueryContext, env: Env): Iterable<Batch> {
  switch (plan.type) {
    case 'bgp':
      return evalBgp(plan, q, env);
    case 'path':
      return evalPath(plan, q, env);
    case 'join':
      return evalJoin(plan, q, env);
    case 'leftJoin':
      return evalLeftJoin(plan, q, env);
    case 'union':
      return evalUnion(plan, q, env);
    case 'minus':
      return evalMinus(plan, q, env);
    case 'filter':
      return evalFilter(plan, q, env);
    case 'extend':
      return evalExtend(plan, q, env);
    case 'group':
      return evalGroup(plan, q, env);
    case 'orderBy':
      return evalOrderBy(plan, q, env);
    case 'project':
      return evalProject(plan, q, env);
    case 'distinct':
      return evalDistinct(plan, q, env);
    case 'reduced':
      return evalReduced(plan, q, env);
    case 'slice':
      return evalSlice(plan, q, env);
    case 'values':
      return evalValues(plan, q, env);
    case 'graph':
      return evalGraph(plan, q, env);
    case 'empty':
      return [];
  }
}
