/**
 * RDF 1.1 terms (RDF/JS data model, https://rdf.js.org/data-model-spec/) and their compact string
 * keys. A key is the form under which the term dictionary stores a term:
 *
 *   IRI            `<` + iri                 (no closing bracket: IRIs never contain `>`)
 *   blank node     `_:` + label
 *   literal        `"` + lexical + `"` [ `@` + lang | `^^` + datatype IRI ]
 *   default graph  `` (the empty string)
 *
 * The literal's lexical form is stored raw (not escaped); the suffix is found from the last `"`
 * because neither language tags nor IRIs may contain `"`.
 */
import { DataFactory } from 'n3';
import type * as RDF from '@rdfjs/types';

export type Term = RDF.Quad_Subject | RDF.Quad_Predicate | RDF.Quad_Object | RDF.Quad_Graph;
export type NamedNode = RDF.NamedNode;
export type BlankNode = RDF.BlankNode;
export type Literal = RDF.Literal;
export type DefaultGraph = RDF.DefaultGraph;
export type Quad = RDF.Quad;

export const factory = DataFactory;
export const { namedNode, blankNode, literal, defaultGraph, quad } = DataFactory;

export const XSD = 'http://www.w3.org/2001/XMLSchema#';
export const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
export const XSD_STRING = XSD + 'string';
export const RDF_LANG_STRING = RDF_NS + 'langString';

/** The dictionary key of a term (see the module comment). */
export function termToKey(term: Term | RDF.Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return '<' + term.value;
    case 'BlankNode':
      return '_:' + term.value;
    case 'Literal': {
      const lit = term as RDF.Literal;
      if (lit.language) return '"' + lit.value + '"@' + lit.language;
      const dt = lit.datatype.value;
      if (dt === XSD_STRING) return '"' + lit.value + '"';
      return '"' + lit.value + '"^^' + dt;
    }
    case 'DefaultGraph':
      return '';
    default:
      throw new TypeError(`unsupported term type ${term.termType}`);
  }
}

/** The term a dictionary key stands for. */
export function keyToTerm(key: string): Term {
  if (key === '') return defaultGraph();
  const c = key.charCodeAt(0);
  if (c === 60 /* < */) return namedNode(key.slice(1));
  if (c === 95 /* _ */) return blankNode(key.slice(2));
  if (c === 34 /* " */) {
    const end = key.lastIndexOf('"');
    const value = key.slice(1, end);
    const rest = key.slice(end + 1);
    if (rest === '') return literal(value);
    if (rest.charCodeAt(0) === 64 /* @ */) return literal(value, rest.slice(1));
    return literal(value, namedNode(rest.slice(2)));
  }
  throw new TypeError(`not a term key: ${JSON.stringify(key.slice(0, 40))}`);
}
