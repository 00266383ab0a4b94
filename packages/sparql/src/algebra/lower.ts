/**
 * Lowering: sparqlalgebrajs algebra -> plan (plan.ts). Decides variable slots and scopes (a
 * sub-select's unprojected variables get fresh slots), resolves constants to term ids, and places
 * GRAPH: a constant graph name is pushed into the patterns beneath it; a variable one is pushed
 * too when that cannot change the answer (see `graphPushable`), else it becomes a `graph` loop.
 */
import { Algebra } from 'sparqlalgebrajs';
import type * as RDF from '@rdfjs/types';
import type { Term } from '@ianode/rdf';
import { SparqlError } from '../errors.js';
import { graphPushable, patternsMention } from './graph-push.js';
import type {
  AggregateBinding,
  GraphRef,
  PathExpr,
  Plan,
  PlanExpression,
  PlanPattern,
  PlanTerm,
  QueryPlan,
  TemplateTerm,
  TemplateTriple,
} from './plan.js';

/** Gives constants their ids (the dataset's, or the query's own for terms it does not know). */
export interface TermIds {
  idOf(term: Term): number;
}

/** Variables by name within one scope; slots are shared across the query. */
class Scope {
  readonly vars = new Map<string, number>();
  constructor(private readonly slots: string[]) {}

  slot(name: string): number {
    let s = this.vars.get(name);
    if (s === undefined) {
      const taken = this.slots.includes(name);
      s = this.slots.length;
      this.slots.push(taken ? `${name}#${s}` : name);
      this.vars.set(name, s);
    }
    return s;
  }

  child(): Scope {
    return new Scope(this.slots);
  }
}

type Const = PlanTerm & { kind: 'const' };

class Lowering {
  readonly slotNames: string[] = [];

  constructor(private readonly ids: TermIds) {}

  constant(term: Term): Const {
    return { kind: 'const', id: this.ids.idOf(term), term };
  }

  term(t: RDF.Term, scope: Scope): PlanTerm {
    switch (t.termType) {
      case 'Variable':
        return { kind: 'var', slot: scope.slot(t.value) };
      case 'BlankNode':
        // A blank node in a graph pattern is a variable that cannot be projected (§4.1.4).
        return { kind: 'var', slot: scope.slot('_:' + t.value) };
      case 'NamedNode':
      case 'Literal':
        return this.constant(t);
      default:
        throw new SparqlError('SPARQL_UNSUPPORTED', `unsupported term type ${t.termType} in a pattern`);
    }
  }

  op(op: Algebra.Operation, scope: Scope, graph: GraphRef): Plan {
    switch (op.type) {
      case Algebra.types.BGP:
        return {
          type: 'bgp',
          patterns: op.patterns.map(
            (q): PlanPattern => ({
              s: this.term(q.subject, scope),
              p: this.term(q.predicate, scope),
              o: this.term(q.object, scope),
              g: graph,
            }),
          ),
        };
      case Algebra.types.PATH:
        return {
          type: 'path',
          subject: this.term(op.subject, scope),
          path: this.path(op.predicate),
          object: this.term(op.object, scope),
          graph,
        };
      case Algebra.types.JOIN:
        return this.fold(op.input, scope, graph, 'join');
      case Algebra.types.UNION:
        return this.fold(op.input, scope, graph, 'union');
      case Algebra.types.LEFT_JOIN:
        return {
          type: 'leftJoin',
          left: this.op(op.input[0], scope, graph),
          right: this.op(op.input[1], scope, graph),
          expression: op.expression ? this.expression(op.expression, scope, graph) : undefined,
        };
      case Algebra.types.MINUS:
        return { type: 'minus', left: this.op(op.input[0], scope, graph), right: this.op(op.input[1], scope, graph) };
      case Algebra.types.FILTER:
        return { type: 'filter', input: this.op(op.input, scope, graph), expression: this.expression(op.expression, scope, graph) };
      case Algebra.types.EXTEND:
        return {
          type: 'extend',
          input: this.op(op.input, scope, graph),
          slot: scope.slot(op.variable.value),
          expression: this.expression(op.expression, scope, graph),
        };
      case Algebra.types.GROUP:
        return this.group(op, scope, graph);
      case Algebra.types.ORDER_BY:
        return {
          type: 'orderBy',
          input: this.op(op.input, scope, graph),
          keys: op.expressions.map((e) => {
            const descending = e.expressionType === Algebra.expressionTypes.OPERATOR && e.operator === 'desc';
            const ascending = e.expressionType === Algebra.expressionTypes.OPERATOR && e.operator === 'asc';
            const inner = descending || ascending ? (e as Algebra.OperatorExpression).args[0]! : e;
            return { expression: this.expression(inner, scope, graph), descending };
          }),
          limit: undefined,
        };
      case Algebra.types.PROJECT: {
        // A sub-select: its projected variables are the enclosing scope's; the rest are its own.
        const inner = scope.child();
        const slots = op.variables.map((v) => {
          const s = scope.slot(v.value);
          inner.vars.set(v.value, s);
          return s;
        });
        return { type: 'project', input: this.op(op.input, inner, graph), slots };
      }
      case Algebra.types.DISTINCT:
        return { type: 'distinct', input: this.op(op.input, scope, graph) };
      case Algebra.types.REDUCED:
        return { type: 'reduced', input: this.op(op.input, scope, graph) };
      case Algebra.types.SLICE:
        return { type: 'slice', input: this.op(op.input, scope, graph), offset: op.start, limit: sliceLimit(op) };
      case Algebra.types.VALUES: {
        const slots = op.variables.map((v) => scope.slot(v.value));
        const rows = op.bindings.map((b) =>
          op.variables.map((v) => {
            const t = b['?' + v.value] ?? b[v.value];
            return t === undefined ? 0 : this.constant(t).id;
          }),
        );
        return { type: 'values', slots, rows };
      }
      case Algebra.types.GRAPH:
        return this.graph(op, scope);
      case Algebra.types.NOP:
        return { type: 'bgp', patterns: [] };
      case Algebra.types.SERVICE:
        throw new SparqlError('SPARQL_UNSUPPORTED', 'SERVICE (federated query) is not supported');
      default:
        throw new SparqlError('SPARQL_UNSUPPORTED', `unsupported algebra operator ${op.type}`);
    }
  }

  private fold(inputs: Algebra.Operation[], scope: Scope, graph: GraphRef, type: 'join' | 'union'): Plan {
    if (inputs.length === 0) return type === 'join' ? { type: 'bgp', patterns: [] } : { type: 'empty' };
    let acc = this.op(inputs[0]!, scope, graph);
    for (let i = 1; i < inputs.length; i++) acc = { type, left: acc, right: this.op(inputs[i]!, scope, graph) };
    return acc;
  }

  private group(op: Algebra.Group, scope: Scope, graph: GraphRef): Plan {
    const input = this.op(op.input, scope, graph);
    const keys = op.variables.map((v) => scope.slot(v.value));
    const aggregates = op.aggregates.map(
      (a): AggregateBinding => ({
        slot: scope.slot(a.variable.value),
        aggregate: a,
        argument:
          a.expression.expressionType === Algebra.expressionTypes.WILDCARD ? undefined : this.expression(a.expression, scope, graph),
      }),
    );
    return { type: 'group', input, keys, aggregates };
  }

  private graph(op: Algebra.Graph, scope: Scope): Plan {
    if (op.name.termType === 'NamedNode') {
      // The graph must exist even when nothing in the pattern reads it (GRAPH <g> {}).
      const name = this.constant(op.name);
      const input = this.op(op.input, scope, name);
      return graphPushable(op.input, '') ? input : { type: 'graph', name, input };
    }
    const name = this.term(op.name, scope);
    if (graphPushable(op.input, op.name.value) && !patternsMention(op.input, op.name.value)) return this.op(op.input, scope, name);
    return { type: 'graph', name, input: this.op(op.input, scope, { kind: 'active' }) };
  }

  path(p: Algebra.PropertyPathSymbol): PathExpr {
    switch (p.type) {
      case Algebra.types.LINK:
        return { type: 'link', iri: this.constant(p.iri) };
      case Algebra.types.INV:
        return { type: 'inv', path: this.path(p.path) };
      case Algebra.types.SEQ:
        return { type: 'seq', items: p.input.map((x) => this.path(x)) };
      case Algebra.types.ALT:
        return { type: 'alt', items: p.input.map((x) => this.path(x)) };
      case Algebra.types.ZERO_OR_MORE_PATH:
        return { type: 'zeroOrMore', path: this.path(p.path) };
      case Algebra.types.ONE_OR_MORE_PATH:
        return { type: 'oneOrMore', path: this.path(p.path) };
      case Algebra.types.ZERO_OR_ONE_PATH:
        return { type: 'zeroOrOne', path: this.path(p.path) };
      case Algebra.types.NPS:
        return { type: 'nps', iris: p.iris.map((i) => this.constant(i)) };
      default:
        throw new SparqlError('SPARQL_UNSUPPORTED', `unsupported property path ${(p as { type: string }).type}`);
    }
  }

  expression(expr: Algebra.Expression, scope: Scope, graph: GraphRef): PlanExpression {
    const slots = new Map<string, number>();
    const exists = new Map<Algebra.Operation, Plan>();
    const visit = (e: Algebra.Expression): void => {
      switch (e.expressionType) {
        case Algebra.expressionTypes.TERM:
          if (e.term.termType === 'Variable') slots.set(e.term.value, scope.slot(e.term.value));
          return;
        case Algebra.expressionTypes.OPERATOR:
        case Algebra.expressionTypes.NAMED:
          for (const a of e.args) visit(a);
          return;
        case Algebra.expressionTypes.AGGREGATE:
          visit(e.expression);
          return;
        case Algebra.expressionTypes.EXISTENCE:
          exists.set(e.input, this.op(e.input, scope, graph));
          return;
        case Algebra.expressionTypes.WILDCARD:
          return;
      }
    };
    visit(expr);
    return { expr, slots, exists };
  }

  templateTerm(t: RDF.Term, scope: Scope): TemplateTerm {
    if (t.termType === 'BlankNode') return { kind: 'bnode', label: t.value };
    if (t.termType === 'Variable') return { kind: 'var', slot: scope.slot(t.value) };
    return this.constant(t as Term);
  }
}

/** LIMIT 0 arrives as -1 (see parse.ts). */
function sliceLimit(op: Algebra.Slice): number | undefined {
  return op.length !== undefined && op.length < 0 ? 0 : op.length;
}

/**
 * The parser puts the LIMIT / OFFSET of a CONSTRUCT or DESCRIBE above the form; they limit the
 * solutions the template is instantiated from, or the resources described (SPARQL 1.1 §16.2 "the
 * solution modifiers apply to the solutions", §15): moved below the form, onto its pattern.
 */
function sinkSlice(op: Algebra.Operation): Algebra.Operation {
  if (op.type !== Algebra.types.SLICE) return op;
  const inner = sinkSlice(op.input);
  if (inner.type === Algebra.types.CONSTRUCT || inner.type === Algebra.types.DESCRIBE) {
    return { ...inner, input: { ...op, input: inner.input } } as Algebra.Operation;
  }
  return inner === op.input ? op : ({ ...op, input: inner } as Algebra.Operation);
}

/** Lower a translated query (the output of `parseQuery`) to a plan. */
export function lowerQuery(algebra: Algebra.Operation, ids: TermIds): QueryPlan {
  const l = new Lowering(ids);
  const scope = new Scope(l.slotNames);
  let op = algebra;
  let defaultGraphs: number[] | undefined;
  let namedGraphs: number[] | undefined;
  if (op.type === Algebra.types.FROM) {
    if (op.default.length > 0 || op.named.length > 0) {
      defaultGraphs = op.default.map((g) => l.constant(g).id);
      namedGraphs = op.named.map((g) => l.constant(g).id);
    }
    op = op.input;
  }
  op = sinkSlice(op);
  const dataset = { defaultGraphs, namedGraphs };
  const top: GraphRef = { kind: 'default' };
  const base = { slotNames: l.slotNames, dataset };
  switch (op.type) {
    case Algebra.types.ASK:
      return { ...base, form: 'ask', root: l.op(op.input, scope, top) };
    case Algebra.types.CONSTRUCT: {
      const root = l.op(op.input, scope, top);
      const template = op.template.map(
        (q): TemplateTriple => ({ s: l.templateTerm(q.subject, scope), p: l.templateTerm(q.predicate, scope), o: l.templateTerm(q.object, scope) }),
      );
      return { ...base, form: 'construct', root, template };
    }
    case Algebra.types.DESCRIBE: {
      const root = l.op(op.input, scope, top);
      return { ...base, form: 'describe', root, terms: op.terms.map((t) => l.term(t, scope)) };
    }
    default: {
      // SELECT: the outermost project, possibly under slice / distinct / reduced.
      let p: Algebra.Operation = op;
      while (p.type === Algebra.types.SLICE || p.type === Algebra.types.DISTINCT || p.type === Algebra.types.REDUCED) p = p.input;
      if (p.type !== Algebra.types.PROJECT) throw new SparqlError('SPARQL_UNSUPPORTED', `unexpected query form ${op.type}`);
      const variables = p.variables.map((v) => ({ name: v.value, slot: scope.slot(v.value) }));
      const root = lowerTop(l, op, scope, top);
      return { ...base, form: 'select', root, variables };
    }
  }
}

/** The top of a SELECT: its project keeps the query's own scope (no renaming). */
function lowerTop(l: Lowering, op: Algebra.Operation, scope: Scope, graph: GraphRef): Plan {
  switch (op.type) {
    case Algebra.types.SLICE:
      return { type: 'slice', input: lowerTop(l, op.input, scope, graph), offset: op.start, limit: sliceLimit(op) };
    case Algebra.types.DISTINCT:
      return { type: 'distinct', input: lowerTop(l, op.input, scope, graph) };
    case Algebra.types.REDUCED:
      return { type: 'reduced', input: lowerTop(l, op.input, scope, graph) };
    case Algebra.types.PROJECT:
      return { type: 'project', input: l.op(op.input, scope, graph), slots: op.variables.map((v) => scope.slot(v.value)) };
    default:
      return l.op(op, scope, graph);
  }
}
