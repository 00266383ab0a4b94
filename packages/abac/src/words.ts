/**
 * Words and quoted strings of the label language (SPEC §3).
 *
 * A word starts with a letter, a digit or `_`; inside it may also hold `.`, `-`, `+` and `:`; it
 * ends with a letter, a digit or `_` (as in RDF-ABAC, so `a.` is the word `a` followed by a stray
 * `.`). Letters and digits are Unicode letters (`\p{L}`, with combining marks `\p{M}` after the
 * first character) and decimal digits (`\p{Nd}`). Anything else is written as a quoted string.
 */

/** The boolean keywords. A bare attribute holds the value `true`. */
export const TRUE = 'true';
export const FALSE = 'false';

const START = /^[\p{L}\p{Nd}_]$/u;
const END = /^[\p{L}\p{M}\p{Nd}_]$/u;
const MIDDLE = /^[\p{L}\p{M}\p{Nd}_.\-+:]$/u;
const WORD = /^[\p{L}\p{Nd}_](?:[\p{L}\p{M}\p{Nd}_.\-+:]*[\p{L}\p{M}\p{Nd}_])?$/u;

/** Whether the code point `ch` (one character, possibly a surrogate pair) may start a word. */
export function isWordStart(ch: string): boolean {
  return isAsciiWordChar(ch) || START.test(ch);
}

/** Whether `ch` may appear after the first character of a word. */
export function isWordMiddle(ch: string): boolean {
  return isAsciiWordChar(ch) || MIDDLE.test(ch);
}

/** Whether `ch` may end a word. */
export function isWordEnd(ch: string): boolean {
  return isAsciiWordChar(ch) || END.test(ch);
}

/** Whether `text` can be written as a bare word. */
export function isWord(text: string): boolean {
  return WORD.test(text);
}

/** A decimal or double written bare (`1.0`, `2.5e3`): RDF-ABAC reads it as a number token, which
 * may be a value but not an attribute name (an integer may be either). */
const NON_INTEGER_NUMBER = /^(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)$/;

/** Whether the bare word `text` is a decimal or double (not an attribute name unless quoted). */
export function isNonIntegerNumber(text: string): boolean {
  return NON_INTEGER_NUMBER.test(text);
}

/** Whether `value` is one of the boolean keywords. */
export function isBooleanKeyword(value: string): boolean {
  return value === TRUE || value === FALSE;
}

/** `text` as a double-quoted string with Turtle escapes for `"`, `\` and control characters. */
export function quote(text: string): string {
  let out = '"';
  for (const ch of text) {
    switch (ch) {
      case '"': out += '\\"'; break;
      case '\\': out += '\\\\'; break;
      case '\t': out += '\\t'; break;
      case '\b': out += '\\b'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\f': out += '\\f'; break;
      default: {
        const cp = ch.codePointAt(0) ?? 0;
        out += cp < 0x20 || cp === 0x7f ? '\\u' + cp.toString(16).toUpperCase().padStart(4, '0') : ch;
      }
    }
  }
  return out + '"';
}

function isAsciiWordChar(ch: string): boolean {
  if (ch.length !== 1) return false;
  const c = ch.charCodeAt(0);
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;
}
