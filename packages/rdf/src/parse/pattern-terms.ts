/**
 * Short sequences of Turtle terms, such as the quad patterns of security labels
 * (`:person4321 :phone "0400 111 333"`), parsed to dictionary keys (terms.ts).
 *
 * Accepts IRIs (`<...>`, resolved against `baseIRI`), prefixed names, `a` as a predicate, and
 * literals: quoted strings with a language tag or datatype, numbers and booleans (Turtle section
 * 2.5). Blank nodes, collections and variables are rejected: a pattern names concrete terms.
 */
import { Parser } from 'n3';
import { RdfSyntaxError } from '../errors.js';
import { RDF_NS, XSD, XSD_STRING } from '../terms.js';
import { describeChar, hexValue } from './chars.js';
import { hasScheme, IRI_FORBIDDEN, IRI_FORBIDDEN_ALL } from '../iri.js';

const BASE = 'A-Za-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const CHARS = `${BASE}_\\-0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;
const PLX = `%[0-9A-Fa-f]{2}|\\\\[_~.\\-!$&'()*+,;=/?#@%]`;
// PN_CHARS lists combining marks (U+0300-U+036F) as characters of their own, as the grammar does.
const PREFIXED_NAME = new RegExp(
  // eslint-disable-next-line no-misleading-character-class
  `((?:[${BASE}](?:[${CHARS}.]*[${CHARS}])?)?):` +
    `((?:[${BASE}_:0-9]|${PLX})(?:(?:[${CHARS}.:]|${PLX})*(?:[${CHARS}:]|${PLX}))?)?`,
  'uy',
);
const DOUBLE = /[+-]?(?:[0-9]+\.[0-9]*[eE][+-]?[0-9]+|\.[0-9]+[eE][+-]?[0-9]+|[0-9]+[eE][+-]?[0-9]+)/y;
const DECIMAL = /[+-]?[0-9]*\.[0-9]+/y;
const INTEGER = /[+-]?[0-9]+/y;
const LANGTAG = /@([a-zA-Z]+(?:-[a-zA-Z0-9]+)*)/y;
const KEYWORD = /(?:true|false|a)(?=[\s]|$)/y;

/** Fast paths: a run of IRI characters (no escape) up to '>', and of string characters (no
 * escape, no line break, no quote) of a short string. On anything else the character loops below
 * take over from the start, so errors and escapes are handled in one place. */
// eslint-disable-next-line no-control-regex
const PLAIN_IRI = /<([^\x00-\x20<>"{}|^`\\]*)>/y;
const PLAIN_STRING_DQ = /"([^"\\\n\r]*)"/y;
const PLAIN_STRING_SQ = /'([^'\\\n\r]*)'/y;

const ECHAR: Readonly<Record<string, string>> = { t: '\t', b: '\b', n: '\n', r: '\r', f: '\f', '"': '"', "'": "'", '\\': '\\' };

interface Term {
  key: string;
  kind: 'iri' | 'literal';
  at: number;
  /** Written as the keyword `a` (rdf:type), allowed only as the predicate. */
  isA?: boolean;
}

class PatternScanner {
  private i = 0;

  constructor(
    private readonly s: string,
    private readonly prefixes: Record<string, string>,
    private readonly baseIRI: string | undefined,
  ) {}

  terms(): Term[] {
    const out: Term[] = [];
    for (;;) {
      this.skipSpace();
      if (this.i >= this.s.length) return out;
      out.push(this.term());
      const c = this.s.charCodeAt(this.i);
      if (this.i < this.s.length && c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 35 /* # */) {
        this.fail(this.i, `unexpected ${describeChar(this.s, this.i)} (expected white space between terms)`);
      }
    }
  }

  /** White space and `#` comments to the end of the line (as RDF-ABAC's pattern tokenizer, Jena RIOT's). */
  private skipSpace(): void {
    for (;;) {
      let c = this.s.charCodeAt(this.i);
      while (c === 32 || c === 9 || c === 10 || c === 13) c = this.s.charCodeAt(++this.i);
      if (c !== 35) return;
      while (this.i < this.s.length && c !== 10 && c !== 13) c = this.s.charCodeAt(++this.i);
    }
  }

  private term(): Term {
    const s = this.s;
    const at = this.i;
    const c = s[at]!;
    if (c === '<') return { key: '<' + this.iriRef(), kind: 'iri', at };
    if (c === '"' || c === "'") return { key: this.literal(), kind: 'literal', at };
    if (c === '_' && s[at + 1] === ':') this.fail(at, 'blank nodes are not allowed in a pattern');
    if (c === '[' || c === '(') this.fail(at, 'blank nodes and collections are not allowed in a pattern');
    if (c === '?' || c === '$') this.fail(at, 'variables are not allowed in a pattern');
    if (c === '*') this.fail(at, 'wildcards are not allowed in a pattern');
    const word = this.sticky(KEYWORD);
    if (word === 'true' || word === 'false') return { key: `"${word}"^^${XSD}boolean`, kind: 'literal', at };
    if (word === 'a') return { key: `<${RDF_NS}type`, kind: 'iri', at, isA: true };
    const number = this.number();
    if (number) return { key: number, kind: 'literal', at };
    return { key: '<' + this.prefixedName(), kind: 'iri', at };
  }

  private sticky(re: RegExp): string | undefined {
    re.lastIndex = this.i;
    const m = re.exec(this.s);
    if (!m) return undefined;
    this.i = re.lastIndex;
    return m[0];
  }

  private number(): string | undefined {
    let lexical = this.sticky(DOUBLE);
    if (lexical) return `"${lexical}"^^${XSD}double`;
    lexical = this.sticky(DECIMAL);
    if (lexical) return `"${lexical}"^^${XSD}decimal`;
    lexical = this.sticky(INTEGER);
    if (lexical) return `"${lexical}"^^${XSD}integer`;
    return undefined;
  }

  /** IRIREF at i: returns the (resolved) IRI. */
  private iriRef(): string {
    const s = this.s;
    const start = this.i;
    PLAIN_IRI.lastIndex = start;
    const plain = PLAIN_IRI.exec(s);
    if (plain !== null) {
      this.i = PLAIN_IRI.lastIndex;
      return this.resolve(plain[1]!, start);
    }
    let iri = '';
    let i = start + 1;
    for (;;) {
      if (i >= s.length) this.fail(start, 'unterminated IRI (missing ">")');
      const c = s.charCodeAt(i);
      if (c === 0x3e) break;
      if (c === 0x5c) {
        const ch = this.uchar(i);
        if (IRI_FORBIDDEN.test(ch)) this.fail(i, 'the escape stands for a character not allowed in an IRI');
        iri += ch;
        i += s[i + 1] === 'u' ? 6 : 10;
        continue;
      }
      if (c <= 0x20 || '<"{}|^`'.includes(s[i]!)) this.fail(i, `${describeChar(s, i)} is not allowed in an IRI`);
      iri += s[i];
      i++;
    }
    this.i = i + 1;
    return this.resolve(iri, start);
  }

  private resolve(iri: string, at: number): string {
    if (hasScheme(iri)) return iri;
    if (!this.baseIRI) this.fail(at, `relative IRI <${iri}> needs a base IRI`);
    // N3.js resolves as RFC 3986 section 5.2 prescribes, like the document parsers.
    const escaped = iri.replace(IRI_FORBIDDEN_ALL, (ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0'));
    const [q] = new Parser({ baseIRI: this.baseIRI }).parse(`<${escaped}> <urn:x:p> <urn:x:o> .`);
    return q!.subject.value;
  }

  private uchar(i: number): string {
    const s = this.s;
    const n = s[i + 1] === 'u' ? 4 : s[i + 1] === 'U' ? 8 : 0;
    const v = n === 0 ? -1 : hexValue(s, i + 2, n);
    if (v < 0 || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) this.fail(i, `invalid escape ${JSON.stringify(s.slice(i, i + 2 + n))}`);
    return String.fromCodePoint(v);
  }

  private literal(): string {
    const s = this.s;
    const start = this.i;
    const q = s[start]!;
    const long = s.startsWith(q + q + q, start);
    let i = start + (long ? 3 : 1);
    let value = '';
    const run = q === '"' ? PLAIN_STRING_DQ : PLAIN_STRING_SQ;
    run.lastIndex = start;
    const plain = long ? null : run.exec(s);
    if (plain !== null) {
      value = plain[1]!;
      i = run.lastIndex - 1; // at the closing quote
    }
    for (;;) {
      if (i >= s.length) this.fail(start, 'unterminated string');
      const ch = s[i]!;
      if (long ? s.startsWith(q + q + q, i) : ch === q) break;
      if (!long && (ch === '\n' || ch === '\r')) this.fail(start, 'unterminated string (a line break needs """ quotes)');
      if (ch === '\\') {
        const e = s[i + 1] ?? '';
        const simple = ECHAR[e];
        if (simple !== undefined) {
          value += simple;
          i += 2;
        } else {
          value += this.uchar(i);
          i += e === 'u' ? 6 : 10;
        }
        continue;
      }
      value += ch;
      i++;
    }
    this.i = i + (long ? 3 : 1);
    const lang = this.langTag();
    if (lang !== undefined) return `"${value}"@${lang.toLowerCase()}`;
    if (s.startsWith('^^', this.i)) {
      this.i += 2;
      const dt = s[this.i] === '<' ? this.iriRef() : this.prefixedName();
      return dt === XSD_STRING ? `"${value}"` : `"${value}"^^${dt}`;
    }
    return `"${value}"`;
  }

  private langTag(): string | undefined {
    if (this.s[this.i] !== '@') return undefined;
    LANGTAG.lastIndex = this.i;
    const m = LANGTAG.exec(this.s);
    if (!m) this.fail(this.i, 'invalid language tag');
    this.i = LANGTAG.lastIndex;
    return m[1]!;
  }

  private prefixedName(): string {
    const at = this.i;
    PREFIXED_NAME.lastIndex = at;
    const m = PREFIXED_NAME.exec(this.s);
    if (!m) this.fail(at, `unexpected ${describeChar(this.s, at)} (expected an IRI, a prefixed name or a literal)`);
    const prefix = m[1] ?? '';
    const ns = Object.prototype.hasOwnProperty.call(this.prefixes, prefix) ? this.prefixes[prefix] : undefined;
    if (ns === undefined) this.fail(at, `undefined prefix "${prefix}:"`);
    this.i = PREFIXED_NAME.lastIndex;
    const local = (m[2] ?? '').replace(/\\(.)/gu, '$1');
    return this.resolve(ns + local, at);
  }

  fail(at: number, detail: string): never {
    const before = this.s.slice(0, at);
    const lineBreaks = before.match(/\r\n|\r|\n/g);
    const lastBreak = Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r'));
    throw new RdfSyntaxError(detail, (lineBreaks?.length ?? 0) + 1, at - lastBreak);
  }
}

/**
 * Parses a space-separated sequence of 3 Turtle terms (subject predicate object, default graph) or
 * 4 (graph subject predicate object: graph first, SPEC §3) into their dictionary keys, in the order
 * written. Graph and subject must be IRIs, the predicate an IRI (or `a`), the object any term.
 * Throws RdfSyntaxError with the column inside `text`.
 */
export function parsePatternTerms(text: string, prefixes: Record<string, string>, baseIRI?: string): string[] {
  const scanner = new PatternScanner(text, prefixes, baseIRI);
  const terms = scanner.terms();
  if (terms.length < 3 || terms.length > 4) {
    scanner.fail(terms.length > 4 ? terms[4]!.at : text.length, `expected 3 or 4 terms ([graph] subject predicate object), found ${terms.length}`);
  }
  const names = terms.length === 4 ? ['graph', 'subject', 'predicate', 'object'] : ['subject', 'predicate', 'object'];
  terms.forEach((t, i) => {
    const name = names[i]!;
    if (t.isA === true && name !== 'predicate') scanner.fail(t.at, '"a" (rdf:type) is only allowed as the predicate');
    if (name !== 'object' && t.kind !== 'iri') scanner.fail(t.at, `the ${name} must be an IRI`);
  });
  return terms.map((t) => t.key);
}

/** Parses exactly one Turtle term (IRI, prefixed name or literal) into its dictionary key. */
export function parseTurtleTerm(text: string, prefixes: Record<string, string>, baseIRI?: string): string {
  const scanner = new PatternScanner(text, prefixes, baseIRI);
  const terms = scanner.terms();
  if (terms.length !== 1) scanner.fail(terms[1]?.at ?? text.length, `expected one term, found ${terms.length}`);
  if (terms[0]!.isA === true) scanner.fail(terms[0]!.at, '"a" (rdf:type) is only allowed as the predicate');
  return terms[0]!.key;
}
