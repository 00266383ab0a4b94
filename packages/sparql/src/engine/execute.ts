/**
 * executeQuery: parse -> lower -> optimise -> evaluate, with results produced lazily as iterated
 * (each iteration of `solutions` / `quads` evaluates afresh).
 */
import { namedNode, type Dataset } from '@ianode/rdf';
import type { Algebra } from 'sparqlalgebrajs';
import type { ExecuteQuery, QueryOptions, QueryResult } from '../api.js';
import { lowerQuery } from '../algebra/lower.js';
import { parseQuery } from '../algebra/parse.js';
import type { QueryPlan } from '../algebra/plan.js';
import { printQueryPlan } from '../algebra/print.js';
import { createStatistics, optimise } from '../optimise/index.js';
import { QueryContext } from './context.js';
import { evaluate } from './evaluate.js';
import { ask, constructQuads, describeQuads, selectSolutions } from './forms.js';
import { TermTable } from './term-table.js';
import { guardIterable, guardStack } from '../errors.js';

export const executeQuery: ExecuteQuery = (dataset, query, options = {}) => {
  const parsed = parseQuery(query, { baseIRI: options.baseIRI });
  return executeAlgebra(dataset, parsed.algebra, { ...options, baseIRI: parsed.baseIRI });
};

/** The optimised plan of a query, printed (for tests, debugging and EXPLAIN-like tools). */
export function explainQuery(dataset: Dataset, query: string, options: QueryOptions = {}): string {
  const parsed = parseQuery(query, { baseIRI: options.baseIRI });
  const terms = new TermTable(dataset);
  const lowered = lowerQuery(parsed.algebra, terms);
  const graphs = queryDataset(terms, lowered, options);
  return printQueryPlan(optimise(lowered, createStatistics(dataset, graphs.defaultGraphs)));
}

/** A query already parsed (see `parseQuery`), planned and evaluated over `dataset`. */
export function executeAlgebra(dataset: Dataset, algebra: Algebra.Operation, options: QueryOptions = {}): QueryResult {
  const terms = new TermTable(dataset);
  // A stack overflow while planning or evaluating is the query's shape (QUERY_TOO_COMPLEX), never
  // an internal fault; evaluation is lazy, so the iterables are guarded too.
  const { plan, graphs } = guardStack('plan', () => {
    const lowered = lowerQuery(algebra, terms);
    const graphs = queryDataset(terms, lowered, options);
    return { plan: optimise(lowered, createStatistics(dataset, graphs.defaultGraphs)), graphs };
  });
  const now = options.now ?? new Date();
  const context = (): QueryContext =>
    new QueryContext(dataset, terms, {
      evaluate,
      // One slot past the query's variables: the row tag of tagged joins (engine/tagged.ts).
      width: plan.slotNames.length + 1,
      ...graphs,
      deadline: options.deadline,
      clock: options.clock ?? Date.now,
      rowBudget: options.rowBudget,
      now,
      baseIRI: options.baseIRI,
    });
  switch (plan.form) {
    case 'select':
      return {
        type: 'bindings',
        variables: plan.variables.map((v) => v.name),
        solutions: guardIterable({ [Symbol.iterator]: () => selectSolutions(context(), plan) }),
      };
    case 'ask':
      return { type: 'boolean', value: guardStack('evaluate', () => ask(context(), plan)) };
    case 'construct':
      return { type: 'quads', quads: guardIterable({ [Symbol.iterator]: () => constructQuads(context(), plan) }) };
    case 'describe':
      return { type: 'quads', quads: guardIterable({ [Symbol.iterator]: () => describeQuads(context(), plan) }) };
  }
}

/** The query's RDF dataset (§13.2): the protocol's graphs override FROM / FROM NAMED; without
 * either, the default graph is the dataset's default graph and every named graph is visible. */
function queryDataset(terms: TermTable, plan: QueryPlan, options: QueryOptions): { defaultGraphs: number[]; namedGraphs: number[] | undefined } {
  let defaultGraphs: number[] = [0];
  let namedGraphs: number[] | undefined;
  if (options.defaultGraphs !== undefined || options.namedGraphs !== undefined) {
    defaultGraphs = (options.defaultGraphs ?? []).map((iri) => terms.idOf(namedNode(iri)));
    namedGraphs = options.namedGraphs === undefined && options.keepNamedGraphs ? undefined : (options.namedGraphs ?? []).map((iri) => terms.idOf(namedNode(iri)));
  } else if (plan.dataset.defaultGraphs !== undefined || plan.dataset.namedGraphs !== undefined) {
    defaultGraphs = plan.dataset.defaultGraphs ?? [];
    namedGraphs = plan.dataset.namedGraphs ?? [];
  }
  return { defaultGraphs: [...new Set(defaultGraphs)], namedGraphs: namedGraphs && [...new Set(namedGraphs)] };
}
