/**
 * What the optimiser knows about the data: exact quad counts of patterns' constant parts
 * (`Dataset.count` is an index range size), cached per query.
 */
import type { Dataset, QuadPattern } from '@ianode/rdf';
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
          n += dataset.count(pattern);
        }
        cache.set(key, n);
      }
      return n;
    },
  };
}

/** Statistics that know nothing (every pattern counts 1): keeps the written order. */
export const NO_STATISTICS: Statistics = { count: () => 1 };
