/**
 * Test helpers: compile an expression written in SPARQL syntax (the body of a FILTER) with
 * sparqlalgebrajs, evaluate it against fixed bindings, and print results compactly
 * (`"3"^^xsd:integer`, `"a"@en`, `"abc"`, `<http://…>`, `_:b`, or `error`).
 */
import { translate } from 'sparqlalgebrajs';
import type { Algebra } from 'sparqlalgebrajs';
import { blankNode, literal, namedNode, XSD } from '@ianode/rdf';
import type { BlankNode, Term } from '@ianode/rdf';
import { ExpressionError } from '../../src/errors.js';
import { compileExpression } from '../../src/expressions/index.js';
import type { ExpressionContext } from '../../src/expressions/index.js';
import { describe as describeTerm } from '../../src/expressions/literals.js';

export const EX = 'http://example.org/';
const PREFIXES = `PREFIX xsd: <${XSD}> PREFIX ex: <${EX}> PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>`;

export function typed(value: string, local: string): Term {
  return literal(value, namedNode(XSD + local));
}

/** The solution every test evaluates against. */
export const BINDINGS: Record<string, Term> = {
  int: typed('7', 'integer'),
  neg: typed('-3', 'integer'),
  zero: typed('0', 'integer'),
  dec: typed('2.5', 'decimal'),
  dbl: typed('1.0E1', 'double'),
  flt: typed('1.5', 'float'),
  str: literal('abc'),
  xstr: typed('abc', 'string'),
  empty: literal(''),
  en: literal('chat', 'en'),
  fr: literal('chat', 'fr'),
  iri: namedNode(EX + 'x'),
  bn: blankNode('b0'),
  t: typed('true', 'boolean'),
  f: typed('false', 'boolean'),
  dt: typed('2010-12-21T15:38:02-08:00', 'dateTime'),
  dtz: typed('2010-06-21T11:28:01Z', 'dateTime'),
  dtlocal: typed('2011-02-01T01:02:03', 'dateTime'),
  unknown: literal('x', namedNode(EX + 'type')),
  bad: typed('abc', 'integer'),
};

const NAMES = Object.keys(BINDINGS);
const slotOf = (name: string): number => NAMES.indexOf(name);

export const NOW = new Date('2024-01-02T03:04:05.678Z');

/** A context over BINDINGS: BNODE labels map to nodes per context; EXISTS is true for a
 * non-empty basic graph pattern. */
export function makeContext(bindings: Record<string, Term> = BINDINGS): ExpressionContext {
  const labels = new Map<string, BlankNode>();
  let counter = 0;
  return {
    value: (slot) => {
      const name = NAMES[slot];
      return name === undefined ? undefined : bindings[name];
    },
    exists: (pattern) => pattern.type === 'bgp' && (pattern as Algebra.Bgp).patterns.length > 0,
    now: NOW,
    baseIRI: EX + 'base/',
    bnode: (label) => {
      if (label === undefined) return blankNode(`fresh${counter++}`);
      let node = labels.get(label);
      if (!node) labels.set(label, (node = blankNode(`label${counter++}`)));
      return node;
    },
  };
}

/** The FILTER expression of `SELECT * WHERE { FILTER(<text>) }`. */
export function parseExpression(text: string): Algebra.Expression {
  const algebra = translate(`${PREFIXES} SELECT * WHERE { FILTER(${text}) }`, { quads: false }) as Algebra.Project;
  const filter = algebra.input as Algebra.Filter;
  if (filter.type !== 'filter') throw new Error(`no filter in ${text}`);
  return filter.expression;
}

/** As `describe` (src/expressions/literals.ts) prints terms, but literals in full and XSD
 * datatypes as `xsd:name` (shorter expectations). */
export function show(term: Term): string {
  if (term.termType !== 'Literal') return describeTerm(term);
  if (term.language) return `"${term.value}"@${term.language}`;
  const dt = term.datatype.value;
  if (dt === XSD + 'string') return `"${term.value}"`;
  return dt.startsWith(XSD) ? `"${term.value}"^^xsd:${dt.slice(XSD.length)}` : `"${term.value}"^^<${dt}>`;
}

/** Evaluates and shows the result, or 'error' for an ExpressionError. */
export function run(text: string, ctx: ExpressionContext = makeContext()): string {
  const compiled = compileExpression(parseExpression(text), slotOf);
  try {
    return show(compiled(ctx));
  } catch (error) {
    if (error instanceof ExpressionError) return 'error';
    throw error;
  }
}

export const T = '"true"^^xsd:boolean';
export const F = '"false"^^xsd:boolean';
export const int = (n: number | string): string => `"${n}"^^xsd:integer`;
export const dec = (n: string): string => `"${n}"^^xsd:decimal`;
export const dbl = (n: string): string => `"${n}"^^xsd:double`;
export const flt = (n: string): string => `"${n}"^^xsd:float`;
