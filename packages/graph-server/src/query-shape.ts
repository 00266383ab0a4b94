/**
 * Limits on the shape of a query text, checked BEFORE it is parsed (issue 14): the parsers
 * (sparqljs's tree building, sparqlalgebrajs, graphql-js) and parts of the engine recurse once per
 * level of nesting, so a small text of thousands of nested `{` could hold the process for seconds
 * and end in a stack overflow. One linear scan, with the lexical rules of the language so that
 * brackets inside strings, IRIs and comments do not count, measures:
 *
 * - the size in bytes (UTF-8) against `limits.queryMaxBytes`;
 * - the deepest nesting of `{`, `(` and `[` against `limits.queryMaxDepth`.
 *
 * Every entry point runs its text through `checkQueryShape` first: SPARQL queries (GET, POST
 * form, POST direct), SPARQL updates and GraphQL documents. A text over a limit is a 400
 * (`QUERY_LIMIT`) that names the limit, the value found and where (line and column, 1-based).
 *
 * SPARQL is scanned after its `\uXXXX` / `\UXXXXXXXX` escapes are replaced, as the parser does
 * (SPARQL 1.1 §19.2): `\u007B` is a `{` to the parser, so it is one to the scan too. Positions then
 * refer to the unescaped text (they differ only after such an escape).
 */
import { unescapeCodepoints } from '@ianode/sparql';
import { GraphServerError } from './errors.js';

export type QueryLanguage = 'sparql-query' | 'sparql-update' | 'graphql';

export interface ShapeLimits {
  /** Largest query text in bytes (UTF-8); 0 = no limit. */
  queryMaxBytes: number;
  /** Deepest nesting of brackets; 0 = no limit. */
  queryMaxDepth: number;
}

/** What the scan found: the deepest nesting and where it was first reached. */
export interface Shape {
  depth: number;
  line: number;
  column: number;
}

const NOUN: Record<QueryLanguage, string> = { 'sparql-query': 'query', 'sparql-update': 'update', graphql: 'GraphQL document' };

/**
 * Throws a 400 `QUERY_LIMIT` when `text` is over a limit. The scan stops at the first bracket past
 * the depth limit, so a refused text costs no more than reading it once.
 */
export function checkQueryShape(text: string, language: QueryLanguage, limits: ShapeLimits): void {
  const noun = NOUN[language];
  if (limits.queryMaxBytes > 0) {
    // Cheap bound first: a UTF-16 code unit is at most 3 UTF-8 bytes.
    const bytes = text.length * 3 <= limits.queryMaxBytes ? text.length : Buffer.byteLength(text, 'utf8');
    if (bytes > limits.queryMaxBytes) {
      throw new GraphServerError('QUERY_LIMIT', `${noun} of ${bytes} bytes exceeds the limit of ${limits.queryMaxBytes} bytes (limits.queryMaxBytes)`);
    }
  }
  const stopAt = limits.queryMaxDepth > 0 ? limits.queryMaxDepth + 1 : Infinity;
  const shape = language === 'graphql' ? scanGraphql(text, stopAt) : scanSparql(unescapeCodepoints(text), stopAt);
  if (shape.depth >= stopAt) {
    throw new GraphServerError(
      'QUERY_LIMIT',
      `${noun} nesting depth ${shape.depth} at line ${shape.line} column ${shape.column} exceeds the limit of ${limits.queryMaxDepth} (limits.queryMaxDepth): nest fewer { }, ( ) or [ ]`,
      { position: { line: shape.line, column: shape.column } },
    );
  }
}

/** A running position (line and column of the character at `i`, both 1-based). */
class Cursor {
  i = 0;
  line = 1;
  lineStart = 0;
  depth = 0;
  max = 0;
  maxLine = 1;
  maxColumn = 1;

  constructor(readonly text: string) {}

  /** Moves past `n` characters, counting line breaks (`\r\n`, `\n` or `\r`). */
  skip(n: number): void {
    const end = Math.min(this.i + n, this.text.length);
    while (this.i < end) this.advance();
  }

  advance(): void {
    const c = this.text.charCodeAt(this.i++);
    if (c === 10 || (c === 13 && this.text.charCodeAt(this.i) !== 10)) {
      this.line++;
      this.lineStart = this.i;
    }
  }

  open(): void {
    this.depth++;
    if (this.depth > this.max) {
      this.max = this.depth;
      this.maxLine = this.line;
      this.maxColumn = this.i - this.lineStart + 1;
    }
    this.i++;
  }

  close(): void {
    // An unbalanced closer is the parser's error to report; it never lowers the depth below 0.
    if (this.depth > 0) this.depth--;
    this.i++;
  }

  shape(): Shape {
    return { depth: this.max, line: this.maxLine, column: this.maxColumn };
  }

  /** Skips to the end of the line (a `#` comment); the line break itself is left. */
  skipComment(): void {
    const t = this.text;
    while (this.i < t.length) {
      const c = t.charCodeAt(this.i);
      if (c === 10 || c === 13) return;
      this.i++;
    }
  }
}

/** Characters that may not appear in an IRIREF (SPARQL 1.1 grammar [139]): `<>"{}|^\`` and #x00-#x20.
 * A backslash is let through: a `\u` escape in an IRI has been replaced already, and anything else is
 * the parser's error. */
function iriChar(c: number): boolean {
  return c > 0x20 && c !== 0x3c && c !== 0x3e && c !== 0x22 && c !== 0x7b && c !== 0x7d && c !== 0x7c && c !== 0x5e && c !== 0x60;
}

/** The SPARQL 1.1 tokens that matter to nesting (grammar §19.8): strings, IRIs, comments, brackets. */
export function scanSparql(text: string, stopAt = Infinity): Shape {
  const cur = new Cursor(text);
  const t = text;
  while (cur.i < t.length) {
    const c = t.charCodeAt(cur.i);
    switch (c) {
      case 0x7b: // {
      case 0x28: // (
      case 0x5b: // [
        cur.open();
        if (cur.max >= stopAt) return cur.shape();
        break;
      case 0x7d: // }
      case 0x29: // )
      case 0x5d: // ]
        cur.close();
        break;
      case 0x23: // # comment
        cur.skipComment();
        break;
      case 0x22: // "
      case 0x27: // '
        skipSparqlString(cur, c);
        break;
      case 0x3c: { // < : an IRIREF when IRI characters run up to a '>', else the operator
        let j = cur.i + 1;
        while (j < t.length && iriChar(t.charCodeAt(j))) j++;
        if (j < t.length && t.charCodeAt(j) === 0x3e) cur.skip(j + 1 - cur.i);
        else cur.i++;
        break;
      }
      case 0x5c: // \ outside a string: a local-name escape (`ex:a\#b`, `\(`); the next character is not syntax
        cur.skip(2);
        break;
      default:
        cur.advance();
    }
  }
  return cur.shape();
}

/** Skips a SPARQL string literal starting at the quote (STRING_LITERAL1/2 and the LONG forms). */
function skipSparqlString(cur: Cursor, quote: number): void {
  const t = cur.text;
  const long = t.charCodeAt(cur.i + 1) === quote && t.charCodeAt(cur.i + 2) === quote;
  cur.skip(long ? 3 : 1);
  while (cur.i < t.length) {
    const c = t.charCodeAt(cur.i);
    if (c === 0x5c) {
      cur.skip(2);
      continue;
    }
    if (c === quote) {
      if (!long) {
        cur.i++;
        return;
      }
      if (t.charCodeAt(cur.i + 1) === quote && t.charCodeAt(cur.i + 2) === quote) {
        cur.skip(3);
        return;
      }
    }
    // A short string cannot span lines: a line break ends it (the parser reports the error).
    if (!long && (c === 10 || c === 13)) return;
    cur.advance();
  }
}

/** The GraphQL tokens that matter to nesting (GraphQL spec §2.1): strings, block strings, comments. */
export function scanGraphql(text: string, stopAt = Infinity): Shape {
  const cur = new Cursor(text);
  const t = text;
  while (cur.i < t.length) {
    const c = t.charCodeAt(cur.i);
    switch (c) {
      case 0x7b:
      case 0x28:
      case 0x5b:
        cur.open();
        if (cur.max >= stopAt) return cur.shape();
        break;
      case 0x7d:
      case 0x29:
      case 0x5d:
        cur.close();
        break;
      case 0x23:
        cur.skipComment();
        break;
      case 0x22:
        skipGraphqlString(cur);
        break;
      default:
        cur.advance();
    }
  }
  return cur.shape();
}

/** Skips a GraphQL string (`"..."` with `\` escapes) or block string (`"""..."""`, where only `\"""` is an escape). */
function skipGraphqlString(cur: Cursor): void {
  const t = cur.text;
  const block = t.startsWith('"""', cur.i);
  cur.skip(block ? 3 : 1);
  while (cur.i < t.length) {
    const c = t.charCodeAt(cur.i);
    if (block) {
      if (c === 0x5c && t.startsWith('\\"""', cur.i)) {
        cur.skip(4);
        continue;
      }
      if (t.startsWith('"""', cur.i)) {
        cur.skip(3);
        return;
      }
    } else {
      if (c === 0x5c) {
        cur.skip(2);
        continue;
      }
      if (c === 0x22) {
        cur.i++;
        return;
      }
      if (c === 10 || c === 13) return;
    }
    cur.advance();
  }
}
