/**
 * When GRAPH ?g { P } may read ?g in every pattern of P instead of looping over the named graphs
 * (see lower.ts), and the variable checks that decision needs.
 */
import { Algebra } from 'sparqlalgebrajs';
import type * as RDF from '@rdfjs/types';

/**
 * Whether GRAPH ?g { P } may be evaluated by reading ?g in every pattern of P instead of once per
 * named graph. It may when P is built only from patterns, joins, optionals, unions, filters and
 * binds, every solution of P binds ?g through a pattern, and no expression of P reads ?g (inside
 * P, ?g is unbound until the GRAPH operator binds it) or holds an EXISTS.
 */
export function graphPushable(op: Algebra.Operation, name: string): boolean {
  const exprOk = (e: Algebra.Expression | undefined): boolean => e === undefined || !expressionMentions(e, name);
  switch (op.type) {
    case Algebra.types.BGP:
      return op.patterns.length > 0;
    case Algebra.types.PATH:
      return true;
    case Algebra.types.JOIN:
      return op.input.every((x) => graphPushable(x, name) || nestedPushable(x, name)) && op.input.some((x) => graphPushable(x, name));
    case Algebra.types.UNION:
      return op.input.every((x) => graphPushable(x, name));
    case Algebra.types.LEFT_JOIN:
      return graphPushable(op.input[0], name) && nestedPushable(op.input[1], name) && exprOk(op.expression);
    case Algebra.types.FILTER:
      return graphPushable(op.input, name) && exprOk(op.expression);
    case Algebra.types.EXTEND:
      return graphPushable(op.input, name) && exprOk(op.expression) && op.variable.value !== name;
    default:
      return false;
  }
}

/** A part of P that may read ?g from its patterns although it need not bind it itself. */
function nestedPushable(op: Algebra.Operation, name: string): boolean {
  switch (op.type) {
    case Algebra.types.BGP:
    case Algebra.types.PATH:
      return true;
    case Algebra.types.JOIN:
    case Algebra.types.UNION:
      return op.input.every((x) => nestedPushable(x, name));
    case Algebra.types.LEFT_JOIN:
      return nestedPushable(op.input[0], name) && nestedPushable(op.input[1], name) && (!op.expression || !expressionMentions(op.expression, name));
    case Algebra.types.FILTER:
      return nestedPushable(op.input, name) && !expressionMentions(op.expression, name);
    default:
      return false;
  }
}

/** Whether a pattern or path under `op` uses the variable as a subject, predicate or object. */
export function patternsMention(op: Algebra.Operation, name: string): boolean {
  let found = false;
  const isIt = (t: RDF.Term): boolean => t.termType === 'Variable' && t.value === name;
  const visit = (o: Algebra.Operation): void => {
    if (found) return;
    if (o.type === Algebra.types.BGP) {
      if (o.patterns.some((q) => isIt(q.subject) || isIt(q.predicate) || isIt(q.object))) found = true;
      return;
    }
    if (o.type === Algebra.types.PATH) {
      if (isIt(o.subject) || isIt(o.object)) found = true;
      return;
    }
    const input = (o as { input?: Algebra.Operation | Algebra.Operation[] }).input;
    if (Array.isArray(input)) input.forEach(visit);
    else if (input !== undefined) visit(input);
  };
  visit(op);
  return found;
}

function expressionMentions(e: Algebra.Expression, name: string): boolean {
  switch (e.expressionType) {
    case Algebra.expressionTypes.TERM:
      return e.term.termType === 'Variable' && e.term.value === name;
    case Algebra.expressionTypes.OPERATOR:
    case Algebra.expressionTypes.NAMED:
      return e.args.some((a) => expressionMentions(a, name));
    case Algebra.expressionTypes.AGGREGATE:
      return expressionMentions(e.expression, name);
    case Algebra.expressionTypes.EXISTENCE:
      return true; // conservative: the pattern may read the active graph
    default:
      return false;
  }
}
