/**
 * Term helpers shared by every function family: raising expression errors, building result
 * literals, and reading string arguments (SPARQL 1.1 §17.4.3.1: string literals and argument
 * compatibility). Per RDF 1.1, a literal typed xsd:string *is* a simple literal.
 */
import { literal } from '@ianode/rdf';
import type { Literal, Term } from '@ianode/rdf';
import { ExpressionError } from '../errors.js';
import { BOOLEAN_NODE, RDF_LANG_STRING, XSD_STRING } from './xsd.js';

/**
 * Throws an ExpressionError (SPARQL's "error" value). Errors are ordinary control flow here (a
 * FILTER over an unbound variable raises one per solution), so no stack trace is captured.
 */
export function fail(message: string): never {
  throw expressionError(message);
}

/** An ExpressionError without a stack trace (cheap to make, and safe to throw repeatedly). */
export function expressionError(message: string): ExpressionError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const error = new ExpressionError(message);
  Error.stackTraceLimit = limit;
  return error;
}

export const TRUE: Literal = literal('true', BOOLEAN_NODE);
export const FALSE: Literal = literal('false', BOOLEAN_NODE);
export const EMPTY_STRING: Literal = literal('');

export function bool(value: boolean): Literal {
  return value ? TRUE : FALSE;
}

/** A simple literal (lang === '') or a language-tagged string. */
export function stringLiteral(value: string, lang = ''): Literal {
  return lang === '' ? literal(value) : literal(value, lang);
}

/** The datatype IRI of a literal, rdf:langString for language-tagged strings. N3.js literals
 * expose it as `datatypeString`, which saves allocating a NamedNode on every read. */
export function datatypeOf(lit: Literal): string {
  const fast = (lit as { datatypeString?: unknown }).datatypeString;
  if (typeof fast === 'string') return fast;
  return lit.language !== '' ? RDF_LANG_STRING : lit.datatype.value;
}

/** A simple literal or xsd:string (RDF 1.1: the same thing). */
export function isSimpleString(term: Term): term is Literal {
  return term.termType === 'Literal' && datatypeOf(term) === XSD_STRING;
}

/** The lexical form and language tag ('' for none) of a string-literal argument. */
export interface StringArg {
  readonly value: string;
  readonly lang: string;
}

/** Reads a string literal argument (simple, xsd:string or language-tagged); else an error. */
export function stringArg(term: Term, fn: string): StringArg {
  if (term.termType === 'Literal') {
    const datatype = datatypeOf(term);
    if (datatype === XSD_STRING) return { value: term.value, lang: '' };
    if (datatype === RDF_LANG_STRING) return { value: term.value, lang: term.language };
  }
  return fail(`${fn}: expected a string literal, got ${describe(term)}`);
}

/** Reads a simple literal / xsd:string argument (no language tag); else an error. */
export function simpleStringArg(term: Term, fn: string): string {
  if (isSimpleString(term)) return term.value;
  return fail(`${fn}: expected a simple literal or xsd:string, got ${describe(term)}`);
}

/** Argument compatibility (§17.4.3.1.2): the second argument is untagged or has the first's tag. */
export function checkCompatible(a: StringArg, b: StringArg, fn: string): void {
  if (b.lang !== '' && !sameLanguage(a.lang, b.lang)) {
    fail(`${fn}: incompatible arguments (language tags ${a.lang || 'none'} and ${b.lang})`);
  }
}

export function sameLanguage(a: string, b: string): boolean {
  return a === b || a.toLowerCase() === b.toLowerCase();
}

/** RDF term equality (sameTerm): language tags compare case-insensitively. */
export function termEquals(a: Term, b: Term): boolean {
  if (a === b) return true;
  if (a.termType !== b.termType || a.value !== b.value) return false;
  if (a.termType === 'Literal' && b.termType === 'Literal') {
    return datatypeOf(a) === datatypeOf(b) && sameLanguage(a.language, b.language);
  }
  return true;
}

/** Orders strings by Unicode code point (JS `<` orders by UTF-16 code unit). */
export function compareCodepoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      // Surrogates (U+D800..DFFF) stand for code points above U+FFFF: move them past U+FFFF.
      if (x >= 0xd800 && y >= 0xd800) {
        if (x <= 0xdfff) x += 0x2000;
        else if (x >= 0xe000) x -= 0x800;
        if (y <= 0xdfff) y += 0x2000;
        else if (y >= 0xe000) y -= 0x800;
      }
      return x < y ? -1 : 1;
    }
  }
  return a.length - b.length === 0 ? 0 : a.length < b.length ? -1 : 1;
}

/** A short description of a term for error messages. */
export function describe(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return `<${term.value}>`;
    case 'BlankNode':
      return `_:${term.value}`;
    case 'Literal': {
      const text = term.value.length > 40 ? term.value.slice(0, 40) + '…' : term.value;
      if (term.language !== '') return `"${text}"@${term.language}`;
      return term.datatype.value === XSD_STRING ? `"${text}"` : `"${text}"^^<${term.datatype.value}>`;
    }
    default:
      return term.termType;
  }
}
