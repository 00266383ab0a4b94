/** String and stream adapters over the push-style parser cores. */
import { RdfSyntaxError } from '../errors.js';
import { keyToTerm, quad, type Quad } from '../terms.js';
import { createQuadKeyParser } from './quad-key-parser.js';
import type { ParseResult, QuadKeyParserOptions, QuadKeySink } from './types.js';
import { createUtf8Decoder, Utf8DecodeError } from './utf8.js';

/** Parses a whole document held in a string. */
export function parseQuadKeys(input: string, options: QuadKeyParserOptions, sink: QuadKeySink): ParseResult {
  if (typeof input !== 'string') throw new TypeError('input must be a string');
  const parser = createQuadKeyParser(options, sink);
  parser.feed(input);
  return parser.end();
}

/** Line and column reached after some text (for errors found outside the parser: bad UTF-8). */
class TextPosition {
  line = 1;
  column = 1;
  private pendingCR = false;

  advance(t: string): void {
    if (t.length === 0) return;
    if (this.pendingCR && t.charCodeAt(0) === 10) t = t.slice(1); // the LF of a split CRLF
    this.pendingCR = false;
    let breaks = 0;
    let lastEnd = -1; // index after the last line break
    if (t.indexOf('\r') < 0) {
      for (let i = t.indexOf('\n'); i >= 0; i = t.indexOf('\n', i + 1)) {
        breaks++;
        lastEnd = i + 1;
      }
    } else {
      for (let i = 0; i < t.length; i++) {
        const c = t.charCodeAt(i);
        if (c === 10 || c === 13) {
          if (c === 13 && t.charCodeAt(i + 1) === 10) i++;
          breaks++;
          lastEnd = i + 1;
        }
      }
      this.pendingCR = t.charCodeAt(t.length - 1) === 13;
    }
    if (breaks === 0) this.column += t.length;
    else {
      this.line += breaks;
      this.column = t.length - lastEnd + 1;
    }
  }
}

/**
 * Parses a document arriving in chunks of text or UTF-8 bytes (e.g. an HTTP request body or a
 * file stream). Malformed UTF-8 is a syntax error at the place it occurs.
 */
export async function parseQuadKeyStream(
  input: AsyncIterable<string | Uint8Array>,
  options: QuadKeyParserOptions,
  sink: QuadKeySink,
): Promise<ParseResult> {
  const parser = createQuadKeyParser(options, sink);
  const decoder = createUtf8Decoder();
  const position = new TextPosition();
  const feed = (decode: () => string): void => {
    let text: string;
    try {
      text = decode();
    } catch (e) {
      if (!(e instanceof Utf8DecodeError)) throw e;
      parser.feed(e.text); // a syntax error before the bad bytes takes precedence
      position.advance(e.text);
      throw new RdfSyntaxError('invalid UTF-8 byte sequence', position.line, position.column, { cause: e });
    }
    parser.feed(text);
    position.advance(text);
  };
  for await (const chunk of input) {
    if (typeof chunk === 'string') feed(() => decoder.end() + chunk);
    else if (chunk instanceof Uint8Array) feed(() => decoder.decode(chunk));
    else throw new TypeError('stream chunks must be strings or Uint8Arrays');
  }
  feed(() => decoder.end());
  return parser.end();
}

/** Parses a whole document into RDF/JS quads (a convenience over parseQuadKeys). */
export function parseQuads(input: string, options: QuadKeyParserOptions): { quads: Quad[]; prefixes: Record<string, string> } {
  const quads: Quad[] = [];
  const { prefixes } = parseQuadKeys(input, options, (s, p, o, g) => {
    quads.push(quad(keyToTerm(s) as Quad['subject'], keyToTerm(p) as Quad['predicate'], keyToTerm(o) as Quad['object'], keyToTerm(g) as Quad['graph']));
  });
  return { prefixes, quads };
}
