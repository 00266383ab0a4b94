/**
 * What the optimiser knows about the data: quad counts of patterns' constant parts, cached per
 * query. They come from `Dataset.estimate` when the dataset has it (an index range size: exact on
 * a store or snapshot, an upper bound on a partly visible view, where an exact `count` would scan
 * the range), else from `count`. They only order the plan; nothing here reaches a response.
 */
import { estimateOf, type Dataset, type QuadPattern } from '@ianode/rdf';
import type { PlanPattern, PlanTerm } from '../algebra/plan.js';

export interface Statistics {
  /** Quads matching the pattern's constants (variables as wildcards) in its graph(s). */
  count(p: PlanPattern): number;
}


/** Statistics over `dataset`, the default graph being the merge of `defaultGraphs`. */
export function createStatistics(dataset: Dataset, defaultGraphs: readonly number[]): Statistics {
  const cache = new Map<string, number>();
  const id = (t: PlanTerm): number | undefined => (t.kind === 'const' ? t.id : undefined);
  return {
    count(p) {
      const s = id(p.s);
      const pr = id(p.p);
      const o = id(p.o);
      const graphs = p.g.kind === 'default' ? defaultGraphs : p.g.kind === 'const' ? [p.g.id] : [undefined];
      const key = `${s} ${pr} ${o} ${graphs.join(',')}`;
      let n = cache.get(key);
      if (n === undefined) {
        n = 0;
        for (const g of graphs) {
          const pattern: QuadPattern = { s, p: pr, o, g };
          n += estimateOf(dataset, pattern);
        }
        cache.set(key, n);
      }
      return n;
    },
  };
}

/** Statistics that know nothing (every pattern counts 1): keeps the written order. */
export const NO_STATISTICS: Statistics = { count: () => 1 };
