/**
 * Recursive-descent parser of the label language (SPEC §3, RDF-ABAC compatible):
 *
 *   label := '*' | '!' | or
 *   or    := and (('|' | '||') and)*
 *   and   := unary (('&' | '&&') unary)*
 *   unary := '(' or ')' | attr [('=' | '!=') value]
 *
 * Strings are Turtle strings, short or long; `#` starts a comment to the end of the line. A bare
 * decimal (`1.0`) is not an attribute name; the values `true`/`false` ignore case.
 * `*` and `!` are only whole labels. Nested `and`s (and `or`s) are flattened and redundant
 * parentheses dropped, so equal meanings of this shape print the same.
 */
import type { LabelExpr } from './ast.js';
import { LabelSyntaxError } from './errors.js';
import { Lexer, type Token } from './lexer.js';
import { isBooleanKeyword, isNonIntegerNumber } from './words.js';

/** Parentheses deeper than this are rejected (labels come from uploads; keep the stack safe). */
export const MAX_LABEL_DEPTH = 100;

/** Parse a label; throws `LabelSyntaxError` with the offending position. */
export function parseLabel(text: string): LabelExpr {
  if (typeof text !== 'string') throw new TypeError('parseLabel: the label must be a string');
  return new Parser(text).parse();
}

class Parser {
  private readonly lexer: Lexer;
  private depth = 0;

  constructor(private readonly text: string) {
    this.lexer = new Lexer(text);
  }

  parse(): LabelExpr {
    const first = this.lexer.peek();
    if (first.kind === 'star' || first.kind === 'bang') {
      this.lexer.next();
      const after = this.lexer.next();
      if (after.kind !== 'end') {
        throw this.error(after, `expected end of label after '${first.value}' (it must stand alone)`);
      }
      return first.kind === 'star' ? { type: 'any' } : { type: 'none' };
    }
    const expr = this.parseOr("attribute name, '(', '*' or '!'");
    const rest = this.lexer.peek();
    if (rest.kind !== 'end') throw this.error(rest, "expected '&', '|' or end of label");
    return expr;
  }

  private parseOr(expected: string): LabelExpr {
    const operands: LabelExpr[] = [];
    pushFlat(operands, this.parseAnd(expected), 'or');
    while (this.lexer.peek().kind === 'or') {
      this.lexer.next();
      pushFlat(operands, this.parseAnd("attribute name or '('"), 'or');
    }
    return operands.length === 1 && operands[0] ? operands[0] : { type: 'or', operands };
  }

  private parseAnd(expected: string): LabelExpr {
    const operands: LabelExpr[] = [];
    pushFlat(operands, this.parseUnary(expected), 'and');
    while (this.lexer.peek().kind === 'and') {
      this.lexer.next();
      pushFlat(operands, this.parseUnary("attribute name or '('"), 'and');
    }
    return operands.length === 1 && operands[0] ? operands[0] : { type: 'and', operands };
  }

  private parseUnary(expected: string): LabelExpr {
    const token = this.lexer.next();
    if (token.kind === 'lparen') {
      if (++this.depth > MAX_LABEL_DEPTH) {
        throw this.error(token, `parentheses nested more than ${MAX_LABEL_DEPTH} deep`, false);
      }
      const inner = this.parseOr("attribute name or '('");
      const close = this.lexer.next();
      if (close.kind !== 'rparen') {
        throw this.error(close, `expected '&', '|' or ')' to close '(' at position ${token.start}`);
      }
      this.depth--;
      return inner;
    }
    if (token.kind !== 'word' && token.kind !== 'string') throw this.error(token, `expected ${expected}`);
    if (token.kind === 'word' && isBooleanKeyword(token.value)) {
      throw this.error(token, `expected ${expected}, found keyword '${token.value}' (quote it to use it as a name)`, false);
    }
    if (token.value === '') throw this.error(token, 'expected attribute name, found an empty string', false);
    if (token.kind === 'word' && isNonIntegerNumber(token.value)) {
      throw this.error(token, `expected ${expected}, found the number '${token.value}' (an attribute name may be an integer, not a decimal; quote it to use it as a name)`, false);
    }
    const name = token.value;
    const op = this.lexer.peek();
    if (op.kind !== 'eq' && op.kind !== 'ne') return { type: 'attr', name };
    this.lexer.next();
    const value = this.lexer.next();
    if (value.kind !== 'word' && value.kind !== 'string') {
      throw this.error(value, `expected attribute value after '${op.value}'`);
    }
    // Booleans ignore case in a value, as in RDF-ABAC (`x=TRUE` is `x=true`).
    const lower = value.value.toLowerCase();
    const text = isBooleanKeyword(lower) ? lower : value.value;
    return { type: 'compare', name, op: op.kind === 'eq' ? '=' : '!=', value: text };
  }

  private error(token: Token, message: string, withFound = true): LabelSyntaxError {
    const detail = withFound ? `${message}, found ${describe(this.text, token)}` : message;
    return new LabelSyntaxError(this.text, token.start, detail);
  }
}

function pushFlat(into: LabelExpr[], expr: LabelExpr, type: 'and' | 'or'): void {
  if (expr.type === type) into.push(...expr.operands);
  else into.push(expr);
}

function describe(text: string, token: Token): string {
  if (token.kind === 'end') return 'end of label';
  const raw = text.slice(token.start, token.end);
  const shown = raw.length > 24 ? raw.slice(0, 21) + '...' : raw;
  return token.kind === 'string' ? shown : `'${shown}'`;
}
