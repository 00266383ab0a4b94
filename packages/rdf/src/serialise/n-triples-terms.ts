/**
 * N-Triples spellings of terms (RDF 1.1 N-Triples section 2): IRIs, blank nodes and literals with
 * the escapes the grammar needs: ECHARs where one exists, else `\u` for control characters.
 */
import { RDF_LANG_STRING, XSD_STRING, type Term } from '../terms.js';
import { IRI_FORBIDDEN, IRI_FORBIDDEN_ALL } from '../iri.js';

// eslint-disable-next-line no-control-regex -- these are exactly the characters to escape
const LITERAL_SPECIAL = /["\\\u0000-\u001f\u007f]/;
const LITERAL_SPECIAL_ALL = new RegExp(LITERAL_SPECIAL.source, 'g');

const ECHAR: Readonly<Record<string, string>> = {
  '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f',
};

function uchar(ch: string): string {
  return ECHAR[ch] ?? '\\u' + ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
}

function ucharOnly(ch: string): string {
  return '\\u' + ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
}

/** `<iri>` with UCHAR escapes for characters IRIREF does not allow. */
export function iriToNTriples(iri: string): string {
  return '<' + (IRI_FORBIDDEN.test(iri) ? iri.replace(IRI_FORBIDDEN_ALL, ucharOnly) : iri) + '>';
}

/** A quoted literal body with ECHAR/UCHAR escapes. */
export function quoteLiteral(value: string): string {
  return '"' + (LITERAL_SPECIAL.test(value) ? value.replace(LITERAL_SPECIAL_ALL, uchar) : value) + '"';
}

/** The N-Triples form of a literal given its parts. */
export function literalToNTriples(value: string, language: string, datatype: string): string {
  if (language) return quoteLiteral(value) + '@' + language;
  if (datatype === XSD_STRING || datatype === '' || datatype === RDF_LANG_STRING) return quoteLiteral(value);
  return quoteLiteral(value) + '^^' + iriToNTriples(datatype);
}

/** The N-Triples form of an RDF/JS term (the default graph has none: ''). */
export function termToNTriples(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return iriToNTriples(term.value);
    case 'BlankNode':
      return '_:' + term.value;
    case 'Literal':
      return literalToNTriples(term.value, term.language, term.datatype.value);
    case 'DefaultGraph':
      return '';
    default:
      throw new TypeError(`cannot write a ${(term as Term).termType} in N-Triples`);
  }
}

/** The N-Triples form of a dictionary key (terms.ts) without building a term. */
export function keyToNTriples(key: string): string {
  if (key === '') return '';
  const c = key.charCodeAt(0);
  if (c === 60) return iriToNTriples(key.slice(1));
  if (c === 95) return key;
  if (c === 34) {
    const end = key.lastIndexOf('"');
    const value = key.slice(1, end);
    if (end === key.length - 1) return quoteLiteral(value);
    if (key.charCodeAt(end + 1) === 64) return quoteLiteral(value) + key.slice(end + 1);
    return literalToNTriples(value, '', key.slice(end + 3));
  }
  throw new TypeError(`not a term key: ${JSON.stringify(key.slice(0, 40))}`);
}
