/**
 * REGEX and REPLACE (SPARQL 1.1 §17.4.3.14, §17.4.3.15) with XPath regular expressions
 * (XPath F&O 3.1 §5.6), matched by re2js (a pure-JS RE2: time linear in the text, whatever the
 * pattern, so `REGEX(?x, "^(a+)+$")` cannot stall the process). The XPath pattern is translated to
 * JavaScript `u`-mode syntax first, then to RE2 syntax (`\u{...}` becomes `\x{...}`):
 *
 * - flags `s`, `m`, `i` map to RE2 flags; `x` drops whitespace outside character classes; `q`
 *   treats the pattern as a literal string;
 * - `.` excludes only `\n` and `\r`; `\d`, `\w`, `\s` and friends get the XPath (Unicode) sets;
 *   `\i` / `\c` (XML name characters) and a few `\p{IsBlock}` names are supported;
 * - class subtraction `[a-z-[aeiou]]` is computed once into a plain class of code point ranges
 *   (RE2 has no lookahead);
 * - back-references (`\1`) cannot be matched in linear time: a constant pattern with one is a
 *   SPARQL_UNSUPPORTED error of the query, a computed one an expression error;
 * - replacement strings use `$N` and `\$`, `\\` only; a pattern that matches "" is an error.
 */
import type { Literal, Term } from '@ianode/rdf';
import { RE2JS } from 're2js';
import { SparqlError } from '../errors.js';
import type { Evaluator, FunctionTable } from './functions.js';
import { constantOf, special } from './functions.js';
import { bool, checkCompatible, fail, simpleStringArg, stringArg, stringLiteral } from './literals.js';

const NAME_START = 'A-Z_a-z:\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME_CHAR = NAME_START + '\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040';

const BLOCKS: Record<string, string> = {
  BasicLatin: '\\u0000-\\u007F',
  'Latin-1Supplement': '\\u0080-\\u00FF',
  LatinExtended: '\\u0100-\\u024F',
  Greek: '\\u0370-\\u03FF',
  GreekandCoptic: '\\u0370-\\u03FF',
  Cyrillic: '\\u0400-\\u04FF',
  Hebrew: '\\u0590-\\u05FF',
  Arabic: '\\u0600-\\u06FF',
  Hiragana: '\\u3040-\\u309F',
  Katakana: '\\u30A0-\\u30FF',
  CJKUnifiedIdeographs: '\\u4E00-\\u9FFF',
};

const SINGLE_CHAR_ESCAPES = new Set(['n', 'r', 't', '\\', '|', '.', '?', '*', '+', '(', ')', '{', '}', '[', ']', '^', '$', '-']);

class Translator {
  private i = 0;
  constructor(
    private readonly p: string,
    private readonly extended: boolean,
    private readonly dotAll: boolean,
  ) {}

  translate(): string {
    let out = '';
    while (this.i < this.p.length) {
      const c = this.p[this.i]!;
      if (c === '\\') out += this.escape(false);
      else if (c === '[') out += this.charClass();
      else if (c === '.' && !this.dotAll) {
        out += '[^\\n\\r]';
        this.i++;
      } else if (this.extended && (c === ' ' || c === '\t' || c === '\n' || c === '\r')) this.i++;
      else {
        out += c;
        this.i++;
      }
    }
    return out;
  }

  /** Translates the escape at this.i, inside a character class or not. */
  private escape(inClass: boolean): string {
    const c = this.p[this.i + 1];
    this.i += 2;
    const set = (inside: string): string => (inClass ? inside : `[${inside}]`);
    switch (c) {
      case undefined:
        return fail('regex: trailing backslash');
      case 'd':
        return '\\p{Nd}';
      case 'D':
        return '\\P{Nd}';
      case 'w':
        return set('\\p{L}\\p{M}\\p{N}\\p{S}');
      case 'W':
        return set('\\p{P}\\p{Z}\\p{C}');
      case 's':
        return set(' \\t\\n\\r');
      case 'S':
        // XPath \S is everything but [ \t\n\r] (not RE2's \S, whose \s also has \f and \v).
        return inClass ? '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u0021-\\u{10FFFF}' : '[^ \\t\\n\\r]';
      case 'i':
        return set(NAME_START);
      case 'c':
        return set(NAME_CHAR);
      case 'I':
      case 'C':
        if (inClass) return fail(`regex: \\${c} inside a character class is not supported`);
        return `[^${c === 'I' ? NAME_START : NAME_CHAR}]`;
      case 'p':
      case 'P':
        return this.property(c === 'P', inClass);
      default:
        if (c >= '1' && c <= '9' && !inClass) throw new UnsupportedPattern(`back-references (\\${c}) are not supported: regular expressions are matched in linear time, without back-references`);
        if (SINGLE_CHAR_ESCAPES.has(c)) return c === '-' && !inClass ? '-' : '\\' + c;
        return fail(`regex: invalid escape \\${c}`);
    }
  }

  private property(negated: boolean, inClass: boolean): string {
    const end = this.p.indexOf('}', this.i);
    if (this.p[this.i] !== '{' || end < 0) return fail('regex: malformed \\p{...}');
    const name = this.p.slice(this.i + 1, end);
    this.i = end + 1;
    if (name.startsWith('Is')) {
      const range = BLOCKS[name.slice(2)];
      if (range === undefined) return fail(`regex: unsupported block ${name}`);
      if (negated && inClass) return fail(`regex: \\P{${name}} inside a character class is not supported`);
      return inClass ? range : `[${negated ? '^' : ''}${range}]`;
    }
    if (!/^[A-Z][a-z]?$/.test(name)) return fail(`regex: unknown category ${name}`);
    return `\\${negated ? 'P' : 'p'}{${name}}`;
  }

  /** Translates the character class starting at this.i (on '['), with subtraction. */
  private charClass(): string {
    this.i++;
    let negated = false;
    if (this.p[this.i] === '^') {
      negated = true;
      this.i++;
    }
    let items = '';
    let subtract: string | undefined;
    for (;;) {
      const c = this.p[this.i];
      if (c === undefined) return fail('regex: unterminated character class');
      if (c === ']' && items !== '') {
        this.i++;
        break;
      }
      if (c === '-' && this.p[this.i + 1] === '[') {
        this.i++;
        subtract = this.charClass();
        if (this.p[this.i] !== ']') return fail('regex: malformed class subtraction');
        this.i++;
        break;
      }
      if (c === '\\') items += this.escape(true);
      else {
        items += c === '[' ? '\\[' : c;
        this.i++;
      }
    }
    const base = `[${negated ? '^' : ''}${items}]`;
    return subtract === undefined ? base : subtractClass(base, subtract);
  }
}

/** A pattern XPath allows but a linear-time engine cannot match (back-references). */
class UnsupportedPattern extends Error {}

/** Every code point but the surrogates, in order (built once, on the first class subtraction). */
let allCodePoints: string | undefined;

function codePointString(): string {
  if (allCodePoints === undefined) {
    const parts: string[] = [];
    for (let start = 0; start <= 0x10ffff; start += 0x1000) {
      const chunk: number[] = [];
      for (let c = start; c < start + 0x1000 && c <= 0x10ffff; c++) if (c < 0xd800 || c > 0xdfff) chunk.push(c);
      parts.push(String.fromCodePoint(...chunk));
    }
    allCodePoints = parts.join('');
  }
  return allCodePoints;
}

/**
 * `base` minus `subtract` (both single-character classes in JS `u` syntax) as one class of code
 * point ranges. Found by one native scan of every code point with `(?:(?!sub)base)+`: a pattern of
 * one character at a time, which cannot backtrack more than one step.
 */
function subtractClass(base: string, subtract: string): string {
  const runs = new RegExp(`(?:(?!${subtract})${base})+`, 'gu');
  let out = '';
  for (const m of codePointString().matchAll(runs)) {
    const first = m[0].codePointAt(0)!;
    const last = m[0].codePointAt(m[0].length - (m[0].length > 1 && m[0].charCodeAt(m[0].length - 1) >= 0xdc00 && m[0].charCodeAt(m[0].length - 1) <= 0xdfff ? 2 : 1))!;
    out += first === last ? `\\u{${first.toString(16)}}` : `\\u{${first.toString(16)}}-\\u{${last.toString(16)}}`;
  }
  // Nothing left: a class that matches no character.
  return out === '' ? '[^\\u0000-\\u{10FFFF}]' : `[${out}]`;
}

/** JS `u`-mode escapes of the translation (`\uXXXX`, `\u{X}`) as RE2's `\x{X}`; `\\` is kept. */
function toRe2Syntax(source: string): string {
  return source.replace(/\\\\|\\u\{([0-9A-Fa-f]+)\}|\\u([0-9A-Fa-f]{4})/g, (m, braced: string | undefined, four: string | undefined) =>
    braced === undefined && four === undefined ? m : `\\x{${braced ?? four}}`,
  );
}

/** A compiled pattern and what REPLACE needs to know of it. */
export interface CompiledRegex {
  readonly re: RE2JS;
  /** Capturing groups. */
  readonly groups: number;
  /** Whether the pattern matches the empty string (REPLACE refuses those). */
  readonly matchesEmpty: boolean;
}

const cache = new Map<string, CompiledRegex>();
const CACHE_SIZE = 256;

/** Compiles an XPath pattern with XPath flags. Errors are ExpressionErrors, except a pattern we
 * cannot match (see above), which is SPARQL_UNSUPPORTED when `unsupportedIsQueryError`. */
export function compileRegex(pattern: string, flags: string, unsupportedIsQueryError = false): CompiledRegex {
  const key = `${flags}\u0000${pattern}`;
  const cached = cache.get(key);
  if (cached) return cached;
  let re2Flags = 0;
  for (const flag of flags) {
    if (!'smixq'.includes(flag)) fail(`regex: invalid flag ${flag}`);
    if (flag === 's') re2Flags |= RE2JS.DOTALL;
    else if (flag === 'm') re2Flags |= RE2JS.MULTILINE;
    else if (flag === 'i') re2Flags |= RE2JS.CASE_INSENSITIVE;
  }
  let source: string;
  try {
    source = flags.includes('q') ? RE2JS.quote(pattern) : toRe2Syntax(new Translator(pattern, flags.includes('x'), flags.includes('s')).translate());
  } catch (error) {
    if (!(error instanceof UnsupportedPattern)) throw error;
    if (unsupportedIsQueryError) throw new SparqlError('SPARQL_UNSUPPORTED', `regex ${JSON.stringify(pattern)}: ${error.message}`);
    return fail(`regex: ${error.message}`);
  }
  let compiled: CompiledRegex;
  try {
    const re = RE2JS.compile(source, re2Flags);
    compiled = { re, groups: re.groupCount(), matchesEmpty: re.testExact('') };
  } catch (error) {
    return fail(`regex: invalid pattern ${JSON.stringify(pattern)} (${(error as Error).message})`);
  }
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(key, compiled);
  return compiled;
}

type Part = string | number;

/** Parses an XPath replacement string (`$N`, `\$`, `\\`) given the pattern's group count. */
export function parseReplacement(replacement: string, groups: number): Part[] {
  const parts: Part[] = [];
  let text = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]!;
    if (c === '\\') {
      const next = replacement[i + 1];
      if (next !== '\\' && next !== '$') fail('REPLACE: invalid escape in replacement');
      text += next;
      i++;
    } else if (c === '$') {
      let j = i + 1;
      if (!/[0-9]/.test(replacement[j] ?? '')) fail('REPLACE: $ must be followed by a group number');
      let n = Number(replacement[j]);
      j++;
      while (j < replacement.length && /[0-9]/.test(replacement[j]!) && n * 10 + Number(replacement[j]) <= groups) {
        n = n * 10 + Number(replacement[j]);
        j++;
      }
      if (text) parts.push(text);
      text = '';
      if (n <= groups) parts.push(n); // a group the pattern lacks stands for ""
      i = j - 1;
    } else text += c;
  }
  if (text) parts.push(text);
  return parts;
}

/** A closure that yields the compiled regex, compiled once when pattern and flags are constant. */
function regexSource(pattern: Evaluator, flags: Evaluator | undefined, fn: string): (ctx: Parameters<Evaluator>[0]) => CompiledRegex {
  const read = (p: Term, f: Term | undefined, constant = false): CompiledRegex =>
    compileRegex(simpleStringArg(p, fn), f === undefined ? '' : simpleStringArg(f, fn), constant);
  const p = constantOf(pattern);
  const f = flags && constantOf(flags);
  if (p !== undefined && (flags === undefined || f !== undefined)) {
    try {
      const regex = read(p, f, true);
      return () => regex;
    } catch (error) {
      // A pattern we cannot match fails the query, clearly; any other error is raised again,
      // per solution, by the general path (an expression error).
      if (error instanceof SparqlError) throw error;
    }
  }
  return (ctx) => read(pattern(ctx), flags?.(ctx));
}

export const regexFunctions: FunctionTable = {
  regex: special(2, 3, (args) => {
    const [text, pattern, flags] = args as [Evaluator, Evaluator, Evaluator | undefined];
    const regex = regexSource(pattern, flags, 'REGEX');
    return (ctx) => {
      const value = stringArg(text(ctx), 'REGEX').value;
      return bool(regex(ctx).re.test(value));
    };
  }),
  replace: special(3, 4, (args) => {
    const [text, pattern, replacement, flags] = args as [Evaluator, Evaluator, Evaluator, Evaluator | undefined];
    const regex = regexSource(pattern, flags, 'REPLACE');
    return (ctx): Literal => {
      const arg = stringArg(text(ctx), 'REPLACE');
      const { re, groups, matchesEmpty } = regex(ctx);
      const rep = stringArg(replacement(ctx), 'REPLACE');
      checkCompatible(arg, rep, 'REPLACE');
      if (matchesEmpty) fail('REPLACE: the pattern matches the empty string');
      const parts = parseReplacement(rep.value, groups);
      const result = re.matcher(arg.value).replaceAll((...m: unknown[]) =>
        parts.map((part) => (typeof part === 'number' ? ((m[part] as string | undefined) ?? '') : part)).join(''),
      );
      return stringLiteral(result, arg.lang);
    };
  }),
};
