/**
 * Fixes for two sparqljs 3.7.4 parser bugs, applied by wrapping its generated parser's action
 * function (the package is pinned to that exact version because the wrapped action numbers are
 * specific to it; test/engine/sparqljs-patches.test.ts fails if they stop matching).
 *
 * 1. Numeric literals lose their lexical form: `+5` becomes "5" and `1.0E1` becomes "1.0e1", so
 *    they no longer match the stored terms "+5"^^xsd:integer / "1.0E1"^^xsd:double (SPARQL 1.1
 *    §19.8: the literal's lexical form is the token as written).
 * 2. A blank-node property list as a whole triple in a template, `CONSTRUCT { [ :p ?o ] }`,
 *    crashes (the empty trailing PropertyList is undefined).
 */
import { createRequire } from 'node:module';

interface YYValue {
  $: unknown;
}
type Action = (this: YYValue, yytext: string, yyleng: number, yylineno: number, yy: unknown, yystate: number, $$: unknown[], _$: unknown[]) => unknown;

/** Actions that build a numeric literal from token $$[$0] but alter its text. */
const NUMERIC_ACTIONS = new Set([197, 201, 202, 203, 206]);
/** TriplesSameSubject -> TriplesNode PropertyList (PropertyList may be empty). */
const BLANK_NODE_SUBJECT_ACTION = 103;

let applied = false;

export function applySparqljsPatches(): void {
  if (applied) return;
  applied = true;
  const require = createRequire(import.meta.url);
  const generated = require('sparqljs/lib/SparqlParser') as { Parser: { prototype: { performAction: Action } } };
  const proto = generated.Parser.prototype;
  const original = proto.performAction;
  proto.performAction = function (this: YYValue, yytext, yyleng, yylineno, yy, yystate, $$, _$) {
    const top = $$.length - 1;
    if (yystate === BLANK_NODE_SUBJECT_ACTION && $$[top] === undefined) $$[top] = [];
    const result = original.call(this, yytext, yyleng, yylineno, yy, yystate, $$, _$);
    if (NUMERIC_ACTIONS.has(yystate)) {
      const token = $$[top];
      const lit = this.$ as { termType?: string; value: string } | undefined;
      if (typeof token === 'string' && lit?.termType === 'Literal') lit.value = token;
    }
    return result;
  };
}
