/**
 * The abstract syntax of a security label (SPEC §3, the RDF-ABAC label language) and its
 * canonical printed form.
 */
import { FALSE, TRUE, isNonIntegerNumber, isWord, quote } from './words.js';

/** A parsed label. `and`/`or` are n-ary and never directly nest a node of their own type. */
export type LabelExpr = AnyLabel | NoneLabel | AttrLabel | CompareLabel | AndLabel | OrLabel;

/** `*` — the whole label; visible to everyone. */
export interface AnyLabel { readonly type: 'any' }
/** `!` — the whole label; visible to no one. */
export interface NoneLabel { readonly type: 'none' }
/** `attr` — the user holds `attr` (that is, `attr=true`). */
export interface AttrLabel { readonly type: 'attr'; readonly name: string }
/** `attr = value` / `attr != value`. The values `true` and `false` are the booleans. */
export interface CompareLabel {
  readonly type: 'compare';
  readonly name: string;
  readonly op: '=' | '!=';
  readonly value: string;
}
/** `a & b & …` (`&&` is a synonym). */
export interface AndLabel { readonly type: 'and'; readonly operands: readonly LabelExpr[] }
/** `a | b | …` (`||` is a synonym). */
export interface OrLabel { readonly type: 'or'; readonly operands: readonly LabelExpr[] }

/**
 * The canonical text of a label: `*`, `!`, names and values as bare words where possible (else
 * double-quoted with Turtle escapes), no spaces around `=`/`!=`, single spaces around `&` and `|`,
 * and parentheses only around an `or` inside an `and`. Parsing the result gives back `expr`.
 */
export function printLabel(expr: LabelExpr): string {
  switch (expr.type) {
    case 'any':
      return '*';
    case 'none':
      return '!';
    case 'attr':
      return printName(expr.name);
    case 'compare':
      return printName(expr.name) + expr.op + printValue(expr.value);
    case 'and':
      return expr.operands.map((e) => (e.type === 'or' ? `(${printLabel(e)})` : printLabel(e))).join(' & ');
    case 'or':
      return expr.operands.map(printLabel).join(' | ');
  }
}

/** An attribute name: the bare keywords `true`/`false` and bare decimals (`1.0`) are not names, so
 * they are quoted. */
export function printName(name: string): string {
  return isWord(name) && name !== TRUE && name !== FALSE && !isNonIntegerNumber(name) ? name : quote(name);
}

/** A value: `true`/`false` print as the bare keywords they are. */
export function printValue(value: string): string {
  return isWord(value) ? value : quote(value);
}
