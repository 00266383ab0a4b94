/**
 * Contract between the evaluator (engine/) and the expression library (expressions/).
 *
 * Expressions arrive as sparqlalgebrajs `Algebra.Expression` trees. The evaluator compiles each
 * once per query, telling the compiler how to find a variable's slot; at run time it evaluates
 * the compiled closure against a context that decodes slots to RDF/JS terms on demand.
 */
import type { Algebra } from 'sparqlalgebrajs';
import type { BlankNode, Term } from '@ianode/rdf';

export interface ExpressionContext {
  /** The term bound to a slot in the current solution; undefined when unbound. */
  value(slot: number): Term | undefined;
  /** EXISTS { pattern } with the current solution substituted (SPARQL 1.1 §18.6 substitute). */
  exists(pattern: Algebra.Operation): boolean;
  /** The same for every call within one query (NOW()). */
  readonly now: Date;
  readonly baseIRI: string | undefined;
  /** BNODE() / BNODE(label): fresh per solution; the same label within one solution gives the
   * same blank node. */
  bnode(label?: string): BlankNode;
}

/** A compiled expression: returns the value or throws ExpressionError. */
export type CompiledExpression = (ctx: ExpressionContext) => Term;

/** Compile an expression; `slotOf` maps a variable name to its slot (-1 = never bound here). */
export type CompileExpression = (expr: Algebra.Expression, slotOf: (name: string) => number) => CompiledExpression;

/** An aggregate over a group (SPARQL 1.1 §18.5): feed each solution's argument value (undefined
 * when the expression errored or is unbound), then read the result (undefined = error/unbound). */
export interface Aggregator {
  add(value: Term | undefined): void;
  result(): Term | undefined;
}
