/**
 * Functions on strings (SPARQL 1.1 §17.4.3): STRLEN, SUBSTR, UCASE, LCASE, STRSTARTS, STRENDS,
 * CONTAINS, STRBEFORE, STRAFTER, ENCODE_FOR_URI, CONCAT, langMatches. Lengths and positions
 * count Unicode code points, not UTF-16 units. Results keep the first argument's language tag
 * where the spec says so (UCASE, SUBSTR, STRBEFORE on a match...).
 */
import type { Term } from '@ianode/rdf';
import type { FunctionTable } from './functions.js';
import { fn1, fn2, fnRange } from './functions.js';
import { bool, checkCompatible, EMPTY_STRING, fail, sameLanguage, simpleStringArg, stringArg, stringLiteral } from './literals.js';
import { integerLiteral, numericArg, toNumber } from './numeric.js';
import type { StringArg } from './literals.js';

export function codepointLength(text: string): number {
  let n = text.length;
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A low surrogate after a high one completes a pair: one code point, two units.
    if (c >= 0xdc00 && c <= 0xdfff) {
      const prev = text.charCodeAt(i - 1);
      if (prev >= 0xd800 && prev <= 0xdbff) n--;
    }
  }
  return n;
}

/** fn:round as XPath defines it: halves go towards positive infinity. */
function xpathRound(x: number): number {
  return Math.floor(x + 0.5);
}

/** fn:substring: the code points at 1-based positions p with round(start) <= p < round(start) + round(length). */
export function substring(text: string, start: number, length?: number): string {
  const first = xpathRound(start);
  const end = length === undefined ? Infinity : first + xpathRound(length);
  if (Number.isNaN(first) || Number.isNaN(end)) return '';
  const chars = Array.from(text);
  const from = Math.max(first, 1);
  const to = Math.min(end, chars.length + 1);
  return from < to ? chars.slice(from - 1, to - 1).join('') : '';
}

/** Two string arguments checked for compatibility (§17.4.3.1.2). */
function pair(a: Term, b: Term, fn: string): [StringArg, StringArg] {
  const x = stringArg(a, fn);
  const y = stringArg(b, fn);
  checkCompatible(x, y, fn);
  return [x, y];
}

/** fn:encode-for-uri: percent-encodes everything but the RFC 3986 unreserved characters. */
export function encodeForUri(text: string): string {
  try {
    return encodeURIComponent(text).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  } catch {
    return fail('ENCODE_FOR_URI: the string holds a lone surrogate');
  }
}

/** RFC 4647 basic filtering, with `*` matching any non-empty tag. */
export function langMatches(tag: string, range: string): boolean {
  if (range === '*') return tag !== '';
  if (tag === '' || range === '') return false;
  const t = tag.toLowerCase();
  const r = range.toLowerCase();
  return t === r || (t.startsWith(r) && t.charCodeAt(r.length) === 45 /* - */);
}

export const stringFunctions: FunctionTable = {
  strlen: fn1((a) => integerLiteral(codepointLength(stringArg(a, 'STRLEN').value))),
  substr: fnRange(2, 3, ([source, start, length]) => {
    const s = stringArg(source!, 'SUBSTR');
    const from = toNumber(numericArg(start!, 'SUBSTR'));
    const count = length === undefined ? undefined : toNumber(numericArg(length, 'SUBSTR'));
    return stringLiteral(substring(s.value, from, count), s.lang);
  }),
  ucase: fn1((a) => {
    const s = stringArg(a, 'UCASE');
    return stringLiteral(s.value.toUpperCase(), s.lang);
  }),
  lcase: fn1((a) => {
    const s = stringArg(a, 'LCASE');
    return stringLiteral(s.value.toLowerCase(), s.lang);
  }),
  strstarts: fn2((a, b) => {
    const [x, y] = pair(a, b, 'STRSTARTS');
    return bool(x.value.startsWith(y.value));
  }),
  strends: fn2((a, b) => {
    const [x, y] = pair(a, b, 'STRENDS');
    return bool(x.value.endsWith(y.value));
  }),
  contains: fn2((a, b) => {
    const [x, y] = pair(a, b, 'CONTAINS');
    return bool(x.value.includes(y.value));
  }),
  /** No match gives the simple literal ""; a match (even of "") keeps the first argument's tag. */
  strbefore: fn2((a, b) => {
    const [x, y] = pair(a, b, 'STRBEFORE');
    const at = x.value.indexOf(y.value);
    return at < 0 ? EMPTY_STRING : stringLiteral(x.value.slice(0, at), x.lang);
  }),
  strafter: fn2((a, b) => {
    const [x, y] = pair(a, b, 'STRAFTER');
    const at = x.value.indexOf(y.value);
    return at < 0 ? EMPTY_STRING : stringLiteral(x.value.slice(at + y.value.length), x.lang);
  }),
  encode_for_uri: fn1((a) => stringLiteral(encodeForUri(stringArg(a, 'ENCODE_FOR_URI').value))),
  /** The result keeps a language tag only when every argument has that same tag. */
  concat: fnRange(0, Infinity, (args) => {
    let text = '';
    let lang: string | undefined;
    for (const arg of args) {
      const s = stringArg(arg, 'CONCAT');
      text += s.value;
      lang = lang === undefined ? s.lang : sameLanguage(lang, s.lang) ? lang : '';
    }
    return stringLiteral(text, lang ?? '');
  }),
  langmatches: fn2((a, b) => bool(langMatches(simpleStringArg(a, 'langMatches'), simpleStringArg(b, 'langMatches')))),
};
