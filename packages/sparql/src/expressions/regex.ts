/**
 * REGEX and REPLACE (SPARQL 1.1 §17.4.3.14, §17.4.3.15) with XPath regular expressions
 * (XPath F&O 3.1 §5.6) translated to JavaScript `u`-mode regular expressions:
 *
 * - flags `s`, `m`, `i` map to JS flags; `x` drops whitespace outside character classes; `q`
 *   treats the pattern as a literal string;
 * - `.` excludes only `\n` and `\r`; `\d`, `\w`, `\s` and friends get the XPath (Unicode) sets;
 *   `\i` / `\c` (XML name characters) and a few `\p{IsBlock}` names are supported;
 * - class subtraction `[a-z-[aeiou]]` becomes a lookahead `(?:(?![aeiou])[a-z])`;
 * - replacement strings use `$N` and `\$`, `\\` only; a pattern that matches "" is an error.
 */
import type { Literal, Term } from '@ianode/rdf';
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
        return inClass ? '\\S' : '[^ \\t\\n\\r]';
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
        if (c >= '1' && c <= '9' && !inClass) return '\\' + c;
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
    return subtract === undefined ? base : `(?:(?!${subtract})${base})`;
  }
}

const cache = new Map<string, RegExp>();
const CACHE_SIZE = 256;

/** Compiles an XPath pattern with XPath flags; `global` for REPLACE. Errors are ExpressionErrors. */
export function compileRegex(pattern: string, flags: string, global = false): RegExp {
  const key = `${global ? 'g' : ''}${flags}\u0000${pattern}`;
  const cached = cache.get(key);
  if (cached) return cached;
  let js = 'u' + (global ? 'g' : '');
  for (const flag of flags) {
    if (!'smixq'.includes(flag)) fail(`regex: invalid flag ${flag}`);
    if ((flag === 's' || flag === 'm' || flag === 'i') && !js.includes(flag)) js += flag;
  }
  const source = flags.includes('q')
    ? pattern.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')
    : new Translator(pattern, flags.includes('x'), flags.includes('s')).translate();
  let regex: RegExp;
  try {
    regex = new RegExp(source, js);
  } catch (error) {
    return fail(`regex: invalid pattern ${JSON.stringify(pattern)} (${(error as Error).message})`);
  }
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(key, regex);
  return regex;
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

interface RegexFacts {
  readonly groups: number;
  readonly matchesEmpty: boolean;
}

const facts = new WeakMap<RegExp, RegexFacts>();

/** The group count of a regex and whether it can match the empty string (computed once). */
function factsOf(regex: RegExp): RegexFacts {
  let known = facts.get(regex);
  if (!known) {
    const flags = regex.flags.replace('g', '');
    known = {
      groups: new RegExp(regex.source + '|', flags).exec('')!.length - 1,
      matchesEmpty: new RegExp(`^(?:${regex.source})$`, flags).test(''),
    };
    facts.set(regex, known);
  }
  return known;
}

/** A closure that yields the compiled regex, compiled once when pattern and flags are constant. */
function regexSource(pattern: Evaluator, flags: Evaluator | undefined, global: boolean, fn: string): (ctx: Parameters<Evaluator>[0]) => RegExp {
  const read = (p: Term, f: Term | undefined): RegExp =>
    compileRegex(simpleStringArg(p, fn), f === undefined ? '' : simpleStringArg(f, fn), global);
  const p = constantOf(pattern);
  const f = flags && constantOf(flags);
  if (p !== undefined && (flags === undefined || f !== undefined)) {
    try {
      const regex = read(p, f);
      return () => regex;
    } catch {
      // The error is raised again, per solution, by the general path.
    }
  }
  return (ctx) => read(pattern(ctx), flags?.(ctx));
}

export const regexFunctions: FunctionTable = {
  regex: special(2, 3, (args) => {
    const [text, pattern, flags] = args as [Evaluator, Evaluator, Evaluator | undefined];
    const regex = regexSource(pattern, flags, false, 'REGEX');
    return (ctx) => {
      const value = stringArg(text(ctx), 'REGEX').value;
      return bool(regex(ctx).test(value));
    };
  }),
  replace: special(3, 4, (args) => {
    const [text, pattern, replacement, flags] = args as [Evaluator, Evaluator, Evaluator, Evaluator | undefined];
    const regex = regexSource(pattern, flags, true, 'REPLACE');
    return (ctx): Literal => {
      const arg = stringArg(text(ctx), 'REPLACE');
      const re = regex(ctx);
      const rep = stringArg(replacement(ctx), 'REPLACE');
      checkCompatible(arg, rep, 'REPLACE');
      const { groups, matchesEmpty } = factsOf(re);
      if (matchesEmpty) fail('REPLACE: the pattern matches the empty string');
      const parts = parseReplacement(rep.value, groups);
      re.lastIndex = 0;
      const result = arg.value.replace(re, (...m: unknown[]) =>
        parts.map((part) => (typeof part === 'number' ? ((m[part] as string | undefined) ?? '') : part)).join(''),
      );
      return stringLiteral(result, arg.lang);
    };
  }),
};
