/**
 * Graph (SPARQL 1.1 §18.5 Graph, the loop form): the input is evaluated once per named graph of
 * the query's dataset with that graph active, and the graph variable is bound to it. Used only
 * when the graph name could not be pushed into the patterns (see algebra/lower.ts).
 */
import type { PlanOf } from '../algebra/plan.js';
import type { Batch } from './batch.js';
import type { Env, QueryContext } from './context.js';

export function* evalGraph(plan: PlanOf<'graph'>, q: QueryContext, env: Env): Generator<Batch> {
  const W = q.width;
  const name = plan.name;
  if (name.kind === 'const') {
    if (q.hasNamedGraph(name.id)) yield* q.evaluate(plan.input, { seed: env.seed, graph: name.id });
    return;
  }
  const slot = name.slot;
  const fixed = env.seed?.[slot] ?? 0;
  const graphs = fixed !== 0 ? (q.isNamed(fixed) ? [fixed] : []) : q.namedGraphs();
  for (const g of graphs) {
    for (const b of q.evaluate(plan.input, { seed: env.seed, graph: g })) {
      q.tick();
      const d = b.data;
      let kept = 0;
      for (let r = 0; r < b.length; r++) {
        const base = r * W;
        const cur = d[base + slot]!;
        if (cur !== 0 && cur !== g) continue;
        if (kept !== r) d.copyWithin(kept * W, base, base + W);
        d[kept * W + slot] = g;
        kept++;
      }
      b.length = kept;
      if (kept > 0) yield b;
    }
  }
}
