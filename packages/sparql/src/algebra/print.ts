/**
 * A readable, stable rendering of plans for golden tests and debugging: one operator per line,
 * children indented; variables by name, constants in N-Triples-like form.
 */
import { Algebra } from 'sparqlalgebrajs';
import type * as RDF from '@rdfjs/types';
import type { GraphRef, PathExpr, Plan, PlanExpression, PlanTerm, QueryPlan } from './plan.js';

export function printQueryPlan(q: QueryPlan): string {
  const head =
    q.form === 'select'
      ? `select ${q.variables.map((v) => '?' + v.name).join(' ')}`
      : q.form === 'describe'
        ? `describe ${q.terms.map((t) => term(t, q.slotNames)).join(' ')}`
        : q.form;
  return `${head}\n${printPlan(q.root, q.slotNames, 1)}`;
}

export function printPlan(plan: Plan, names: readonly string[], depth = 0): string {
  const lines: string[] = [];
  const pad = (d: number): string => '  '.repeat(d);
  const v = (slot: number): string => '?' + (names[slot] ?? `_${slot}`);
  const ex = (e: PlanExpression): string => expression(e.expr);
  const visit = (p: Plan, d: number): void => {
    const line = (s: string): void => {
      lines.push(pad(d) + s);
    };
    switch (p.type) {
      case 'bgp':
        line(p.patterns.length === 0 ? 'bgp {}' : 'bgp');
        for (const t of p.patterns) lines.push(pad(d + 1) + [t.s, t.p, t.o].map((x) => term(x, names)).join(' ') + graph(t.g, names));
        return;
      case 'path':
        line(`path ${term(p.subject, names)} ${path(p.path, names)} ${term(p.object, names)}${graph(p.graph, names)}`);
        return;
      case 'join':
      case 'union':
      case 'minus':
        line(p.type);
        visit(p.left, d + 1);
        visit(p.right, d + 1);
        return;
      case 'leftJoin':
        line(p.expression ? `leftJoin ${ex(p.expression)}` : 'leftJoin');
        visit(p.left, d + 1);
        visit(p.right, d + 1);
        return;
      case 'filter':
        line(`filter ${ex(p.expression)}`);
        break;
      case 'extend':
        line(`extend ${v(p.slot)} := ${ex(p.expression)}`);
        break;
      case 'group':
        line(
          `group (${p.keys.map(v).join(' ')})` +
            p.aggregates.map((a) => ` ${v(a.slot)} := ${a.aggregate.aggregator}(${a.aggregate.distinct ? 'distinct ' : ''}${a.argument ? ex(a.argument) : '*'})`).join(''),
        );
        break;
      case 'orderBy':
        line(`orderBy ${p.keys.map((k) => (k.descending ? `desc(${ex(k.expression)})` : ex(k.expression))).join(' ')}${p.limit !== undefined ? ` top ${p.limit}` : ''}`);
        break;
      case 'project':
        line(`project ${p.slots.map(v).join(' ')}`);
        break;
      case 'distinct':
      case 'reduced':
        line(p.type);
        break;
      case 'slice':
        line(`slice ${p.offset} ${p.limit ?? '*'}`);
        break;
      case 'values':
        line(`values (${p.slots.map(v).join(' ')}) ${p.rows.length} rows`);
        return;
      case 'graph':
        line(`graph ${term(p.name, names)}`);
        break;
      case 'empty':
        line('empty');
        return;
    }
    visit(p.input, d + 1);
  };
  visit(plan, depth);
  return lines.join('\n');
}

function term(t: PlanTerm, names: readonly string[]): string {
  return t.kind === 'var' ? '?' + (names[t.slot] ?? `_${t.slot}`) : rdfTerm(t.term);
}

function graph(g: GraphRef, names: readonly string[]): string {
  if (g.kind === 'default') return '';
  if (g.kind === 'active') return ' @active';
  return ' @' + term(g, names);
}

function rdfTerm(t: RDF.Term): string {
  switch (t.termType) {
    case 'NamedNode':
      return `<${t.value}>`;
    case 'Literal': {
      const lex = JSON.stringify(t.value);
      if (t.language) return `${lex}@${t.language}`;
      const dt = t.datatype.value;
      if (dt === 'http://www.w3.org/2001/XMLSchema#string') return lex;
      if (dt === 'http://www.w3.org/2001/XMLSchema#integer' || dt === 'http://www.w3.org/2001/XMLSchema#boolean') return t.value;
      return `${lex}^^<${dt}>`;
    }
    case 'Variable':
      return '?' + t.value;
    case 'BlankNode':
      return '_:' + t.value;
    default:
      return t.termType;
  }
}

function path(p: PathExpr, names: readonly string[]): string {
  switch (p.type) {
    case 'link':
      return term(p.iri, names);
    case 'inv':
      return `^${path(p.path, names)}`;
    case 'seq':
      return `(${p.items.map((x) => path(x, names)).join('/')})`;
    case 'alt':
      return `(${p.items.map((x) => path(x, names)).join('|')})`;
    case 'zeroOrMore':
      return `${path(p.path, names)}*`;
    case 'oneOrMore':
      return `${path(p.path, names)}+`;
    case 'zeroOrOne':
      return `${path(p.path, names)}?`;
    case 'nps':
      return `!(${p.iris.map((x) => term(x, names)).join('|')})`;
  }
}

const INFIX = new Set(['&&', '||', '=', '!=', '<', '>', '<=', '>=', '+', '-', '*', '/']);

export function expression(e: Algebra.Expression): string {
  switch (e.expressionType) {
    case Algebra.expressionTypes.TERM:
      return rdfTerm(e.term);
    case Algebra.expressionTypes.OPERATOR:
      if (INFIX.has(e.operator) && e.args.length === 2) return `(${expression(e.args[0]!)} ${e.operator} ${expression(e.args[1]!)})`;
      return `${e.operator}(${e.args.map(expression).join(', ')})`;
    case Algebra.expressionTypes.NAMED:
      return `<${e.name.value}>(${e.args.map(expression).join(', ')})`;
    case Algebra.expressionTypes.EXISTENCE:
      return e.not ? 'not exists {...}' : 'exists {...}';
    case Algebra.expressionTypes.AGGREGATE:
      return `${e.aggregator}(${expression(e.expression)})`;
    case Algebra.expressionTypes.WILDCARD:
      return '*';
  }
}
