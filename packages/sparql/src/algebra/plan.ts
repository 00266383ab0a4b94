/**
 * The evaluator's plan: SPARQL algebra (SPARQL 1.1 §18) lowered onto variable slots and term ids.
 *
 * Every variable of a query has a slot in a fixed-width row of 32-bit term ids; 0 (`UNBOUND`) means
 * unbound. Variables inside a sub-select that it does not project get slots of their own, so
 * scoping is decided once here and the operators only ever see slots. Constants carry their id
 * (from the dataset's dictionary or the query's own term table) and their term (for printing and
 * templates). Expressions stay sparqlalgebrajs trees (the expression library compiles them) with
 * the slots of the variables they read.
 */
import type { Algebra } from 'sparqlalgebrajs';
import type { Term } from '@ianode/rdf';

/** The id of "no value" in a row (id 0 is the default graph, never a variable's value). */
export const UNBOUND = 0;

/** A pattern position: a variable's slot or a constant term. */
export type PlanTerm = { kind: 'var'; slot: number } | { kind: 'const'; id: number; term: Term };

/** The graph a pattern reads (§13.3): the query's default graph, the graph of the innermost
 * `graph` loop, or a named graph given by an IRI or a variable over the named graphs. */
export type GraphRef = { kind: 'default' } | { kind: 'active' } | PlanTerm;

/** A triple pattern in a graph (§18.2.1 BGP member). */
export interface PlanPattern {
  s: PlanTerm;
  p: PlanTerm;
  o: PlanTerm;
  g: GraphRef;
}

/** An expression with the slots of its variables and the plans of its EXISTS patterns (§17.4.1.4),
 * keyed by the algebra node the compiled expression passes to `ExpressionContext.exists`. */
export interface PlanExpression {
  expr: Algebra.Expression;
  slots: ReadonlyMap<string, number>;
  exists: ReadonlyMap<Algebra.Operation, Plan>;
}

/** Property path expressions (§9.1, §18.4). */
export type PathExpr =
  | { type: 'link'; iri: PlanTerm & { kind: 'const' } }
  | { type: 'inv'; path: PathExpr }
  | { type: 'seq'; items: PathExpr[] }
  | { type: 'alt'; items: PathExpr[] }
  | { type: 'zeroOrMore'; path: PathExpr }
  | { type: 'oneOrMore'; path: PathExpr }
  | { type: 'zeroOrOne'; path: PathExpr }
  /** Negated property set (forward members only; `^` members are an `inv` of another `nps`). */
  | { type: 'nps'; iris: (PlanTerm & { kind: 'const' })[] };

export interface AggregateBinding {
  slot: number;
  aggregate: Algebra.AggregateExpression;
  /** The argument; undefined for COUNT(*). */
  argument: PlanExpression | undefined;
}

export interface OrderKey {
  expression: PlanExpression;
  descending: boolean;
}

export type Plan =
  /** §18.2.1 basic graph pattern; no patterns = the one empty solution. */
  | { type: 'bgp'; patterns: PlanPattern[] }
  /** §18.2.2.7 property path pattern. */
  | { type: 'path'; subject: PlanTerm; path: PathExpr; object: PlanTerm; graph: GraphRef }
  /** §18.5 Join. */
  | { type: 'join'; left: Plan; right: Plan }
  /** §18.5 LeftJoin with the OPTIONAL's filter. */
  | { type: 'leftJoin'; left: Plan; right: Plan; expression: PlanExpression | undefined }
  /** §18.5 Union. */
  | { type: 'union'; left: Plan; right: Plan }
  /** §18.5 Minus. */
  | { type: 'minus'; left: Plan; right: Plan }
  /** §18.5 Filter. */
  | { type: 'filter'; input: Plan; expression: PlanExpression }
  /** §18.5 Extend (BIND and SELECT expressions). */
  | { type: 'extend'; input: Plan; slot: number; expression: PlanExpression }
  /** §18.5 Group + Aggregation (+ AggregateJoin): key slots and aggregates bound to slots. */
  | { type: 'group'; input: Plan; keys: number[]; aggregates: AggregateBinding[] }
  /** §18.5 OrderBy; `limit` = only the first `limit` rows are needed (top-k). */
  | { type: 'orderBy'; input: Plan; keys: OrderKey[]; limit: number | undefined }
  /** §18.5 Project: slots outside `slots` are cleared. */
  | { type: 'project'; input: Plan; slots: number[] }
  /** §18.5 Distinct. */
  | { type: 'distinct'; input: Plan }
  /** §18.5 Reduced (evaluated as a cheap, partial distinct). */
  | { type: 'reduced'; input: Plan }
  /** §18.5 Slice. */
  | { type: 'slice'; input: Plan; offset: number; limit: number | undefined }
  /** §18.2.4.1 VALUES: rows of ids over `slots`, 0 = UNDEF. */
  | { type: 'values'; slots: number[]; rows: number[][] }
  /** §18.5 Graph evaluated per named graph (the input reads `{ kind: 'active' }`). */
  | { type: 'graph'; name: PlanTerm; input: Plan }
  /** No solutions (e.g. a filter folded to false). */
  | { type: 'empty' };

export type PlanType = Plan['type'];
export type PlanOf<T extends PlanType> = Extract<Plan, { type: T }>;

/** A triple of a CONSTRUCT template; blank nodes are fresh per solution (§16.2). */
export interface TemplateTriple {
  s: TemplateTerm;
  p: TemplateTerm;
  o: TemplateTerm;
}
export type TemplateTerm = PlanTerm | { kind: 'bnode'; label: string };

/** The dataset of a query (§13.2) as term ids; undefined members = no such clause. */
export interface DatasetClause {
  defaultGraphs: number[] | undefined;
  namedGraphs: number[] | undefined;
}

interface QueryBase {
  root: Plan;
  /** Names of the slots (for printing); a renamed inner variable reads `name#n`. */
  slotNames: string[];
  dataset: DatasetClause;
}

/** A query lowered to a plan, with its form (§16). */
export type QueryPlan =
  | (QueryBase & { form: 'select'; variables: { name: string; slot: number }[] })
  | (QueryBase & { form: 'ask' })
  | (QueryBase & { form: 'construct'; template: TemplateTriple[] })
  | (QueryBase & { form: 'describe'; terms: PlanTerm[] });
