/**
 * The public shape of the SPARQL engine: what the graph server, the W3C runner and the benchmarks
 * call. The engine evaluates over a `Dataset` (usually an ABAC view) and never sees the store.
 */
import type { Dataset, Quad, Term } from '@ianode/rdf';

export interface QueryOptions {
  /** Base IRI for relative IRIs in the query. */
  baseIRI?: string | undefined;
  /** Protocol-level dataset (SPARQL Protocol `default-graph-uri` / `named-graph-uri`); overrides
   * FROM / FROM NAMED in the query when given. */
  defaultGraphs?: string[] | undefined;
  namedGraphs?: string[] | undefined;
  /** With `defaultGraphs` and no `namedGraphs`: keep every named graph visible to GRAPH (the
   * dataset of an update's `WITH` clause) instead of none. */
  keepNamedGraphs?: boolean | undefined;
  /** Epoch milliseconds (on `clock`) after which evaluation stops with a SparqlError of code
   * QUERY_TIMEOUT. */
  deadline?: number | undefined;
  /** The clock the deadline is read on, in epoch milliseconds; default `Date.now` (tests inject one). */
  clock?: (() => number) | undefined;
  /** Maximum solutions held in memory by any operator (sort, group, hash join) and returned. */
  rowBudget?: number | undefined;
  /** Fixed NOW() (tests); default the time the query starts. */
  now?: Date | undefined;
}

/** One solution: variable name (without `?`) -> term; unbound variables are absent. */
export type Solution = Map<string, Term>;

export type QueryResult =
  | { type: 'bindings'; variables: string[]; solutions: Iterable<Solution> }
  | { type: 'boolean'; value: boolean }
  | { type: 'quads'; quads: Iterable<Quad> };

/** Parse, translate, optimise and evaluate a query. Results are produced lazily as iterated. */
export type ExecuteQuery = (dataset: Dataset, query: string, options?: QueryOptions) => QueryResult;
