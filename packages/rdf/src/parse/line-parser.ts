/**
 * A strict, validating N-Triples / N-Quads parser core (RDF 1.1 N-Triples section 7 and
 * N-Quads section 5) that produces dictionary keys (terms.ts) without building term objects.
 *
 * Text is buffered until a line end; complete lines are parsed straight from the buffer (sticky
 * regular expressions for the long runs inside IRIs and strings, `charCodeAt` for the rest), and
 * keys are cut out of it whenever no escape needs decoding: `<iri`, `"lexical"` and
 * `"lexical"@lang` are substrings of the source as written. About 3M triples/s (bench/parse.mjs).
 */
import { RdfSyntaxError } from '../errors.js';
import { XSD_STRING } from '../terms.js';
import { blankLabelEnd, describeChar, hexValue } from './chars.js';
import type { ParseResult, QuadKeyParser, QuadKeySink } from './types.js';
import { hasScheme, IRI_FORBIDDEN } from '../iri.js';

// Sticky runs of plain characters, scanned by the regular expression engine (much faster than a
// charCodeAt loop): an IRI up to '>' or '\', a string up to '"' or '\' (or a line end).
// eslint-disable-next-line no-control-regex -- IRIREF excludes #x00-#x20 by definition
const IRI_RUN = /[^\u0000-\u0020<>"{}|^`\\]*/y;
// eslint-disable-next-line no-control-regex -- as above
const ABSOLUTE_IRI_RUN = /[A-Za-z][A-Za-z0-9+.-]*:[^\u0000-\u0020<>"{}|^`\\]*/y;
const STRING_RUN = /[^"\\\n\r]*/y;
const XSD_STRING_KEY = '<' + XSD_STRING;
// ECHAR: the character each escape letter stands for
const ECHAR: (string | undefined)[] = [];
for (const [e, ch] of Object.entries({ t: '\t', b: '\b', n: '\n', r: '\r', f: '\f', '"': '"', "'": "'", '\\': '\\' })) ECHAR[e.charCodeAt(0)] = ch;

/** The index of the last CR or LF in `s`, or -1 (without scanning all of `s` for a CR). */
function lastLineEnd(s: string): number {
  const lf = s.lastIndexOf('\n');
  for (let i = s.length - 1; i > lf; i--) if (s.charCodeAt(i) === 13) return i;
  return lf >= 0 ? lf : s.lastIndexOf('\r');
}

class LineParser implements QuadKeyParser {
  private buf = '';
  /** Read position in `buf`. */
  private p = 0;
  /** 1-based number of the line being read, and the index in `buf` where it starts. */
  private line = 1;
  private lineStart = 0;
  private started = false;
  private done = false;
  private failure: unknown;
  private readonly formatName: string;

  constructor(
    private readonly quads: boolean,
    private readonly bnodePrefix: string,
    private readonly sink: QuadKeySink,
  ) {
    this.formatName = quads ? 'N-Quads' : 'N-Triples';
  }

  feed(chunk: string): void {
    this.checkUsable('feed');
    if (chunk.length === 0) return;
    if (!this.started) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1); // a byte order mark
    }
    const old = this.buf;
    const buf = old.length === 0 ? chunk : old + chunk;
    // Parse up to the last line end of the new text. A final CR may still be followed by LF,
    // so it stays buffered (its line, before it, is complete).
    const k = lastLineEnd(chunk);
    let limit: number;
    if (k >= 0) {
      const at = buf.length - chunk.length + k;
      limit = at === buf.length - 1 && buf.charCodeAt(at) === 13 ? at : at + 1;
    } else if (old.length > 0 && old.charCodeAt(old.length - 1) === 13) {
      limit = old.length;
    } else {
      this.buf = buf;
      return;
    }
    this.buf = buf;
    this.run(limit);
  }

  end(): ParseResult {
    this.checkUsable('end');
    this.buf += '\n'; // a sentinel line end: every scan below stops at a line end
    this.started = true;
    this.run(this.buf.length);
    this.done = true;
    this.buf = '';
    return { prefixes: {} };
  }

  private checkUsable(what: string): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.done) throw new TypeError(`${what}() called after end()`);
  }

  /** Parses statements in buf[p, limit), then drops the parsed text. */
  private run(limit: number): void {
    try {
      this.statements(limit);
    } catch (e) {
      this.failure = e;
      throw e;
    }
    this.buf = this.buf.slice(this.p);
    this.lineStart -= this.p;
    this.p = 0;
  }

  private statements(limit: number): void {
    const buf = this.buf;
    while (this.p < limit) {
      const c = buf.charCodeAt(this.p);
      if (c === 10) {
        this.newLine(this.p + 1);
      } else if (c === 13) {
        this.newLine(buf.charCodeAt(this.p + 1) === 10 ? this.p + 2 : this.p + 1);
      } else if (c === 32 || c === 9) {
        this.p++;
      } else if (c === 35) {
        this.skipComment();
      } else {
        this.statement();
      }
    }
  }

  private newLine(next: number): void {
    this.p = next;
    this.line++;
    this.lineStart = next;
  }

  private skipComment(): void {
    const buf = this.buf;
    let i = this.p;
    let c = buf.charCodeAt(i);
    while (c !== 10 && c !== 13) c = buf.charCodeAt(++i);
    this.p = i;
  }

  private skipSpace(): number {
    const buf = this.buf;
    let c = buf.charCodeAt(this.p);
    while (c === 32 || c === 9) c = buf.charCodeAt(++this.p);
    return c;
  }

  /** subject predicate object graph? '.' — up to (not including) the line end. */
  private statement(): void {
    const buf = this.buf;
    let c = buf.charCodeAt(this.p);
    let s: string;
    if (c === 60) s = this.iri();
    else if (c === 95) s = this.blank();
    else if (c === 34) return this.fail(this.p, 'a literal cannot be a subject');
    else return this.unexpected('a subject: an IRI or a blank node');

    c = this.skipSpace();
    if (c !== 60) {
      if (c === 95) return this.fail(this.p, 'a blank node cannot be a predicate');
      if (c === 34) return this.fail(this.p, 'a literal cannot be a predicate');
      return this.unexpected('a predicate IRI');
    }
    const pr = this.iri();

    c = this.skipSpace();
    let o: string;
    if (c === 60) o = this.iri();
    else if (c === 95) o = this.blank();
    else if (c === 34) o = this.literal();
    else return this.unexpected('an object: an IRI, a blank node or a literal');

    c = this.skipSpace();
    let g = '';
    if (c !== 46 && this.quads) {
      if (c === 60) g = this.iri();
      else if (c === 95) g = this.blank();
      else if (c === 34) return this.fail(this.p, 'a literal cannot be a graph name');
      else return this.unexpected('"." or a graph name: an IRI or a blank node');
      c = this.skipSpace();
    }
    if (c !== 46) return this.unexpected(this.quads ? '"." after the quad' : '"." after the triple');
    this.p++;
    c = this.skipSpace();
    if (c === 35) this.skipComment();
    else if (c !== 10 && c !== 13) return this.unexpected('the end of the line after "."');
    this.sink(s, pr, o, g);
  }

  /** IRIREF at p (which is '<'): returns `<` + iri. */
  private iri(): string {
    const buf = this.buf;
    const start = this.p;
    ABSOLUTE_IRI_RUN.lastIndex = start + 1;
    if (ABSOLUTE_IRI_RUN.test(buf)) {
      const i = ABSOLUTE_IRI_RUN.lastIndex;
      if (buf.charCodeAt(i) === 0x3e) {
        this.p = i + 1;
        return buf.slice(start, i);
      }
    }
    // Not a plain absolute IRI: an escape, a relative IRI or an error.
    IRI_RUN.lastIndex = start + 1;
    IRI_RUN.test(buf);
    const i = IRI_RUN.lastIndex;
    const c = buf.charCodeAt(i);
    if (c === 0x5c) return this.iriEscaped(start, i);
    if (c === 0x3e) return this.fail(start + 1, `relative IRI ${buf.slice(start, i + 1)} is not allowed in ${this.formatName}`);
    if (c === 10 || c === 13) return this.fail(i, 'unterminated IRI (missing ">")');
    return this.fail(i, `${describeChar(buf, i)} is not allowed in an IRI`);
  }

  /** The rest of an IRI from its first backslash at `i`: decodes UCHARs. */
  private iriEscaped(start: number, i: number): string {
    const buf = this.buf;
    let out = buf.slice(start, i);
    for (;;) {
      const c = buf.charCodeAt(i);
      if (c === 0x3e) break;
      if (c !== 92) {
        if (c === 10 || c === 13) return this.fail(i, 'unterminated IRI (missing ">")');
        return this.fail(i, `${describeChar(buf, i)} is not allowed in an IRI`);
      }
      const ch = this.uchar(i, 'IRI');
      if (IRI_FORBIDDEN.test(ch)) return this.fail(i, `escape ${buf.slice(i, this.p)} stands for a character not allowed in an IRI`);
      out += ch;
      i = this.p;
      IRI_RUN.lastIndex = i;
      IRI_RUN.test(buf);
      out += buf.slice(i, IRI_RUN.lastIndex);
      i = IRI_RUN.lastIndex;
    }
    if (!hasScheme(out.slice(1))) return this.fail(start + 1, `relative IRI <${out.slice(1)}> is not allowed in ${this.formatName}`);
    this.p = i + 1;
    return out;
  }

  /** UCHAR at `i` (a backslash): sets p after it and returns the character. */
  private uchar(i: number, where: string): string {
    const buf = this.buf;
    const kind = buf.charCodeAt(i + 1);
    const n = kind === 0x75 ? 4 : kind === 0x55 ? 8 : 0;
    if (n === 0) return this.fail(i, `invalid escape ${JSON.stringify(buf.slice(i, i + 2))} in ${where === 'IRI' ? 'an IRI (only \\u and \\U escapes are allowed)' : 'a literal'}`);
    const v = hexValue(buf, i + 2, n);
    if (v < 0) return this.fail(i, `invalid escape ${JSON.stringify(buf.slice(i, i + 2 + n))} (expected ${n} hex digits)`);
    if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return this.fail(i, `escape ${buf.slice(i, i + 2 + n)} is not a Unicode scalar value`);
    this.p = i + 2 + n;
    return n === 4 ? String.fromCharCode(v) : String.fromCodePoint(v);
  }

  /** BLANK_NODE_LABEL at p (which is '_'). */
  private blank(): string {
    const buf = this.buf;
    const start = this.p;
    if (buf.charCodeAt(start + 1) !== 58) return this.fail(start + 1, `unexpected ${describeChar(buf, start + 1)} (expected ":" of a blank node "_:label")`);
    const end = blankLabelEnd(buf, start + 2);
    if (end < 0) return this.fail(start + 2, `unexpected ${describeChar(buf, start + 2)} (expected a blank node label)`);
    this.p = end;
    return '_:' + this.bnodePrefix + buf.slice(start + 2, end);
  }

  /** A literal at p (which is '"'), with its language tag or datatype. */
  private literal(): string {
    const buf = this.buf;
    const start = this.p;
    STRING_RUN.lastIndex = start + 1;
    STRING_RUN.test(buf);
    const i = STRING_RUN.lastIndex;
    const c = buf.charCodeAt(i);
    if (c !== 34) {
      if (c === 92) return this.literalEscaped(start, i);
      return this.fail(start, 'unterminated literal (missing closing ")');
    }
    // buf[start..i] is `"lexical"`, and with a lower-case tag `"lexical"@tag`, as keys want them
    this.p = i + 1;
    if (buf.charCodeAt(this.p) === 64) {
      if (!this.langTag()) return buf.slice(start, this.p);
      return buf.slice(start, i + 2) + buf.slice(i + 2, this.p).toLowerCase();
    }
    return this.literalSuffix(buf.slice(start, i + 1));
  }

  /** The rest of a literal from its first backslash at `i`: decodes ECHARs and UCHARs. */
  private literalEscaped(start: number, i: number): string {
    const buf = this.buf;
    let out = buf.slice(start, i);
    for (;;) {
      const c = buf.charCodeAt(i);
      if (c === 34) break;
      if (c !== 92) return this.fail(start, 'unterminated literal (missing closing ")');
      const e = buf.charCodeAt(i + 1);
      const simple = e < 128 ? ECHAR[e] : undefined;
      if (simple !== undefined) {
        out += simple;
        i += 2;
      } else {
        out += this.uchar(i, 'literal');
        i = this.p;
      }
      STRING_RUN.lastIndex = i;
      STRING_RUN.test(buf);
      out += buf.slice(i, STRING_RUN.lastIndex);
      i = STRING_RUN.lastIndex;
    }
    this.p = i + 1;
    return this.literalSuffix(out + '"');
  }

  /** After the closing quote (at p - 1): `@lang`, `^^<datatype>` or nothing. */
  private literalSuffix(quoted: string): string {
    const buf = this.buf;
    const c = buf.charCodeAt(this.p);
    if (c === 64) {
      const tagStart = this.p + 1;
      this.langTag();
      return quoted + '@' + buf.slice(tagStart, this.p).toLowerCase();
    }
    if (c === 94) {
      if (buf.charCodeAt(this.p + 1) !== 94) return this.fail(this.p + 1, `unexpected ${describeChar(buf, this.p + 1)} (expected "^^" before a datatype IRI)`);
      this.p += 2;
      if (buf.charCodeAt(this.p) !== 60) return this.unexpected('a datatype IRI');
      const dt = this.iri();
      return dt === XSD_STRING_KEY ? quoted : quoted + '^^' + dt.slice(1);
    }
    return quoted;
  }

  /** LANGTAG at p (which is '@'): [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*. Moves p after it; returns
   * whether it has upper-case letters (keys hold tags in lower case, as N3.js does). */
  private langTag(): boolean {
    const buf = this.buf;
    let i = this.p + 1;
    let upper = false;
    let c = buf.charCodeAt(i);
    let sub = false; // in a subtag after '-' (digits allowed)
    let len = 0;
    for (;;) {
      if (c >= 0x61 && c <= 0x7a) len++;
      else if (c >= 0x41 && c <= 0x5a) {
        len++;
        upper = true;
      } else if (sub && c >= 0x30 && c <= 0x39) len++;
      else if (c === 0x2d && len > 0) {
        sub = true;
        len = 0;
      } else break;
      c = buf.charCodeAt(++i);
    }
    if (len === 0) return this.fail(i, `unexpected ${describeChar(buf, i)} in a language tag (expected a letter${sub ? ' or digit' : ''})`);
    this.p = i;
    return upper;
  }

  private unexpected(expected: string): never {
    return this.fail(this.p, `unexpected ${describeChar(this.buf, this.p)} (expected ${expected})`);
  }

  private fail(at: number, detail: string): never {
    throw new RdfSyntaxError(detail, this.line, at - this.lineStart + 1);
  }
}

/** A parser core for N-Triples (`quads` false: a fourth term is an error) or N-Quads. */
export function createLineParser(quads: boolean, blankNodePrefix: string, sink: QuadKeySink): QuadKeyParser {
  return new LineParser(quads, blankNodePrefix, sink);
}
