/**
 * The tokenizer of the label language. It does no I/O and reads one token on demand; a character
 * that starts no token becomes an `invalid` token so the parser can say what it expected there.
 * Unterminated strings and bad escapes are reported here, at the offending character.
 */
import { LabelSyntaxError } from './errors.js';
import { isWordEnd, isWordMiddle, isWordStart } from './words.js';

export type TokenKind =
  | 'lparen' | 'rparen' | 'and' | 'or' | 'eq' | 'ne' | 'star' | 'bang'
  | 'word' | 'string' | 'invalid' | 'end';

export interface Token {
  readonly kind: TokenKind;
  /** Offset of the first character. */
  readonly start: number;
  /** Offset just past the last character. */
  readonly end: number;
  /** For `word` and `string`: the decoded text. */
  readonly value: string;
}

const SINGLE_ESCAPES: Readonly<Record<string, string>> = {
  t: '\t', b: '\b', n: '\n', r: '\r', f: '\f', '"': '"', "'": "'", '\\': '\\',
};

export class Lexer {
  private pos = 0;
  private peeked: Token | undefined;

  constructor(readonly text: string) {}

  peek(): Token {
    this.peeked ??= this.read();
    return this.peeked;
  }

  next(): Token {
    const token = this.peek();
    this.peeked = undefined;
    return token;
  }

  private read(): Token {
    const text = this.text;
    this.skipSpaceAndComments();
    const start = this.pos;
    if (start >= text.length) return { kind: 'end', start, end: start, value: '' };
    const c = text.charAt(start);
    const c2 = text.charAt(start + 1);
    switch (c) {
      case '(': return this.symbol('lparen', 1);
      case ')': return this.symbol('rparen', 1);
      case '*': return this.symbol('star', 1);
      case '=': return this.symbol('eq', 1);
      case '&': return this.symbol('and', c2 === '&' ? 2 : 1);
      case '|': return this.symbol('or', c2 === '|' ? 2 : 1);
      case '!': return c2 === '=' ? this.symbol('ne', 2) : this.symbol('bang', 1);
      case '"':
      case "'": return this.readString(c);
    }
    const ch = codePointAt(text, start);
    if (isWordStart(ch)) return this.readWord();
    this.pos += ch.length;
    return { kind: 'invalid', start, end: this.pos, value: ch };
  }

  /** White space and `#` comments to the end of the line (as RDF-ABAC's tokenizer skips them). */
  private skipSpaceAndComments(): void {
    const text = this.text;
    for (;;) {
      while (this.pos < text.length && /\s/u.test(text.charAt(this.pos))) this.pos++;
      if (text.charAt(this.pos) !== '#') return;
      while (this.pos < text.length && text.charAt(this.pos) !== '\n' && text.charAt(this.pos) !== '\r') this.pos++;
    }
  }

  private symbol(kind: TokenKind, length: number): Token {
    const start = this.pos;
    this.pos += length;
    return { kind, start, end: this.pos, value: this.text.slice(start, this.pos) };
  }

  /** Greedy over word characters, then give back trailing characters that may not end a word. */
  private readWord(): Token {
    const text = this.text;
    const start = this.pos;
    let i = start;
    let lastEnd = start;
    while (i < text.length) {
      const ch = codePointAt(text, i);
      if (i === start ? !isWordStart(ch) : !isWordMiddle(ch)) break;
      i += ch.length;
      if (isWordEnd(ch)) lastEnd = i;
    }
    this.pos = lastEnd;
    return { kind: 'word', start, end: lastEnd, value: text.slice(start, lastEnd) };
  }

  /** A Turtle string: short (`"…"`, `'…'`) or long (`"""…"""`, `'''…'''`, line breaks allowed). */
  private readString(quoteChar: string): Token {
    const text = this.text;
    const start = this.pos;
    const closing = text.startsWith(quoteChar.repeat(3), start) ? quoteChar.repeat(3) : quoteChar;
    const long = closing.length === 3;
    let i = start + closing.length;
    let value = '';
    for (;;) {
      if (i >= text.length) {
        throw new LabelSyntaxError(text, start, `unterminated string: expected closing ${closing}, found end of label`);
      }
      const c = text.charAt(i);
      if (long ? text.startsWith(closing, i) : c === quoteChar) break;
      if (!long && (c === '\n' || c === '\r')) {
        throw new LabelSyntaxError(text, i, `unterminated string: expected closing ${quoteChar}, found a line break`);
      }
      if (c !== '\\') {
        value += c;
        i++;
        continue;
      }
      const e = text.charAt(i + 1);
      const single = SINGLE_ESCAPES[e];
      if (single !== undefined) {
        value += single;
        i += 2;
      } else if (e === 'u' || e === 'U') {
        const digits = e === 'u' ? 4 : 8;
        const hex = text.slice(i + 2, i + 2 + digits);
        const cp = /^[0-9A-Fa-f]+$/.test(hex) && hex.length === digits ? parseInt(hex, 16) : NaN;
        if (!(cp <= 0x10ffff) || (cp >= 0xd800 && cp <= 0xdfff)) {
          throw new LabelSyntaxError(text, i, `invalid escape: expected \\${e} and ${digits} hex digits of a Unicode scalar value, found '${text.slice(i, i + 2 + digits)}'`);
        }
        value += String.fromCodePoint(cp);
        i += 2 + digits;
      } else {
        const found = e === '' ? 'end of label' : `'\\${e}'`;
        throw new LabelSyntaxError(text, i, `invalid escape: expected one of \\t \\b \\n \\r \\f \\" \\' \\\\ \\u \\U, found ${found}`);
      }
    }
    this.pos = i + closing.length;
    return { kind: 'string', start, end: this.pos, value };
  }
}

/** The whole code point at `index` (one or two UTF-16 units). */
function codePointAt(text: string, index: number): string {
  const cp = text.codePointAt(index) ?? 0;
  return String.fromCodePoint(cp);
}
