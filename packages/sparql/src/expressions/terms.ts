/**
 * Functions on RDF terms (SPARQL 1.1 §17.4.2): isIRI / isURI, isBlank, isLiteral, isNumeric,
 * STR, LANG, DATATYPE, IRI / URI, BNODE, STRDT, STRLANG, UUID, STRUUID, sameTerm.
 */
import { randomUUID } from 'node:crypto';
import { isIriText, literal, namedNode } from '@ianode/rdf';
import type { Term } from '@ianode/rdf';
import type { Evaluator, FunctionDef, FunctionTable } from './functions.js';
import { fn0, fn1, fn2 } from './functions.js';
import { resolveIri } from './iri.js';
import { bool, datatypeOf, describe, fail, simpleStringArg, stringLiteral, termEquals } from './literals.js';
import { isNumericTerm } from './numeric.js';
import { RDF_LANG_STRING } from './xsd.js';

const LANGUAGE_TAG = /^[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*$/;
/** IRI(x): an IRI stays as is; a string is resolved against the query's base IRI. */
const iri: FunctionDef = {
  min: 1,
  max: 1,
  pure: false,
  build: (args) => {
    const [a] = args as [Evaluator];
    return (ctx) => {
      const term = a(ctx);
      if (term.termType === 'NamedNode') return term;
      const text = simpleStringArg(term, 'IRI');
      const resolved = resolveIri(text, ctx.baseIRI);
      if (resolved === undefined || !isIriText(resolved)) return fail(`IRI: cannot make an IRI of ${describe(term)}`);
      return namedNode(resolved);
    };
  },
};

/** BNODE() is fresh per call; BNODE(label) is the same node for the same label in one solution. */
const bnode: FunctionDef = {
  min: 0,
  max: 1,
  pure: false,
  build: (args) => {
    const [a] = args as [Evaluator | undefined];
    if (a === undefined) return (ctx) => ctx.bnode();
    return (ctx) => ctx.bnode(simpleStringArg(a(ctx), 'BNODE'));
  },
};

export const termFunctions: FunctionTable = {
  isiri: fn1((a) => bool(a.termType === 'NamedNode')),
  isuri: fn1((a) => bool(a.termType === 'NamedNode')),
  isblank: fn1((a) => bool(a.termType === 'BlankNode')),
  isliteral: fn1((a) => bool(a.termType === 'Literal')),
  isnumeric: fn1((a) => bool(isNumericTerm(a))),
  str: fn1((a: Term) => {
    if (a.termType === 'Literal' || a.termType === 'NamedNode') return literal(a.value);
    return fail(`STR: no string form for ${describe(a)}`);
  }),
  lang: fn1((a) => (a.termType === 'Literal' ? literal(a.language) : fail(`LANG: not a literal: ${describe(a)}`))),
  datatype: fn1((a) => (a.termType === 'Literal' ? namedNode(datatypeOf(a)) : fail(`DATATYPE: not a literal: ${describe(a)}`))),
  iri,
  uri: iri,
  bnode,
  strdt: fn2((a, b) => {
    const lexical = simpleStringArg(a, 'STRDT');
    if (b.termType !== 'NamedNode' || b.value === RDF_LANG_STRING) return fail(`STRDT: not a datatype IRI: ${describe(b)}`);
    return literal(lexical, b);
  }),
  strlang: fn2((a, b) => {
    const lexical = simpleStringArg(a, 'STRLANG');
    const tag = simpleStringArg(b, 'STRLANG');
    if (!LANGUAGE_TAG.test(tag)) return fail(`STRLANG: not a language tag: ${JSON.stringify(tag)}`);
    return stringLiteral(lexical, tag);
  }),
  uuid: fn0(() => namedNode('urn:uuid:' + randomUUID())),
  struuid: fn0(() => literal(randomUUID())),
  sameterm: fn2((a, b) => bool(termEquals(a, b))),
};
