/**
 * Per-execution state shared by the operators: the dataset, the term table, the query's RDF
 * dataset (§13), the deadline and the row budget.
 */
import type { Dataset } from '@ianode/rdf';
import type { Plan } from '../algebra/plan.js';
import { SparqlError } from '../errors.js';
import type { Batch } from './batch.js';
import { ValueCache } from './numeric.js';
import type { TermTable } from './term-table.js';

/** What an operator is evaluated under: `seed` = bindings fixed from outside (EXISTS, a bind
 * join), `graph` = the active graph of an enclosing `graph` loop (0 when there is none). */
export interface Env {
  readonly seed: Uint32Array | undefined;
  readonly graph: number;
}

export const TOP_ENV: Env = { seed: undefined, graph: 0 };

/** The evaluator's dispatch (engine/evaluate.ts): a plan operator's batches. The context carries
 * it, so operators evaluate their inputs through `q.evaluate` instead of importing the dispatch
 * that imports them (no import cycle between evaluate.ts and the operator files). */
export type Evaluate = (plan: Plan, q: QueryContext, env: Env) => Iterable<Batch>;

export interface ContextOptions {
  /** The dispatch the operators call for their inputs (engine/evaluate.ts `evaluate`). */
  evaluate: Evaluate;
  /** Slots per row: the query's variables plus the tag slot (the last). */
  width: number;
  defaultGraphs: number[];
  /** undefined = every named graph of the dataset. */
  namedGraphs: number[] | undefined;
  deadline: number | undefined;
  /** Epoch milliseconds now, for the deadline. */
  clock: () => number;
  rowBudget: number | undefined;
  now: Date;
  baseIRI: string | undefined;
}

let queryCounter = 0;

export class QueryContext {
  readonly width: number;
  /** The hidden last slot: tagged joins number their input rows there (always 0 elsewhere). */
  readonly tagSlot: number;
  /** The default graph: the merge of these graphs (0 = the dataset's default graph). */
  readonly defaultGraphs: number[];
  readonly now: Date;
  readonly baseIRI: string | undefined;
  readonly rowBudget: number;
  /** Prefix of blank node labels this query creates (unique per execution). */
  readonly bnodePrefix: string;
  private readonly dispatch: Evaluate;
  private readonly deadline: number;
  private readonly clock: () => number;
  private readonly namedClause: number[] | undefined;
  private readonly namedSet: Set<number> | undefined;
  private namedCache: number[] | undefined;
  private namedGraphSet: Set<number> | undefined;
  private valueCache: ValueCache | undefined;

  constructor(
    readonly dataset: Dataset,
    readonly terms: TermTable,
    options: ContextOptions,
  ) {
    this.dispatch = options.evaluate;
    this.width = options.width;
    this.tagSlot = options.width - 1;
    this.defaultGraphs = options.defaultGraphs;
    this.namedClause = options.namedGraphs;
    this.namedSet = options.namedGraphs ? new Set(options.namedGraphs) : undefined;
    this.deadline = options.deadline ?? Infinity;
    this.clock = options.clock;
    this.rowBudget = options.rowBudget ?? Infinity;
    this.now = options.now;
    this.baseIRI = options.baseIRI;
    this.bnodePrefix = `q${(++queryCounter).toString(36)}x${Math.floor(Math.random() * 0xffffff).toString(36)}_`;
  }

  /** The batches of a plan operator under `env` (an operator's inputs, an EXISTS pattern). */
  evaluate(plan: Plan, env: Env): Iterable<Batch> {
    return this.dispatch(plan, this, env);
  }

  /** Literal values by id for the fast paths of filters, sorts and aggregates (numeric.ts). */
  get values(): ValueCache {
    this.valueCache ??= new ValueCache(this.dataset, this.terms);
    return this.valueCache;
  }

  /** The named graphs of the query's dataset. */
  namedGraphs(): number[] {
    if (this.namedClause) return this.namedClause;
    this.namedCache ??= this.dataset.graphs();
    return this.namedCache;
  }

  /** Whether the query's dataset has a named graph `id` (listed, or holding a visible quad). */
  hasNamedGraph(id: number): boolean {
    this.namedGraphSet ??= new Set(this.namedGraphs());
    return this.namedGraphSet.has(id);
  }

  /** Whether `id` may name a graph of the query's dataset (patterns then find its quads). */
  isNamed(id: number): boolean {
    if (id === 0) return false;
    return this.namedSet === undefined ? true : this.namedSet.has(id);
  }

  /** Stop when the deadline has passed (operators call this at least once per batch). */
  tick(): void {
    if (this.deadline !== Infinity && this.clock() > this.deadline) {
      throw new SparqlError('QUERY_TIMEOUT', 'the query ran past its deadline and was stopped');
    }
  }

  /** Stop when an operator would hold more than the row budget. */
  checkBudget(rows: number, what: string): void {
    if (rows > this.rowBudget) {
      throw new SparqlError('ROW_BUDGET', `${what} would hold more than ${this.rowBudget} rows (the row budget)`);
    }
  }
}
