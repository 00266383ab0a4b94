/**
 * Turtle and TriG parser core over N3.js (streaming), emitting dictionary keys.
 *
 * N3.js reports the line of every error and the column of parser errors (through the offending
 * token); for lexer errors it gives only the previous token, so this core keeps the text since the
 * line of the last token and finds the error column there (the lexer fails at the first character
 * after the previous token that is not white space or a comment).
 */
import { DataFactory, Parser } from 'n3';
import type * as RDF from '@rdfjs/types';
import { RdfSyntaxError } from '../errors.js';
import { termToKey } from '../terms.js';
import type { ParseResult, QuadKeyParser, QuadKeySink } from './types.js';

interface N3Token {
  type: string;
  line: number;
  start?: number;
  end?: number;
  endLine?: number;
}
interface N3Error extends Error {
  context?: { token?: N3Token; line?: number; previousToken?: N3Token };
}
/** The parts of N3.js's parser this module relies on that its type declarations leave out. */
interface N3ParserInternals {
  _lexer: { previousToken?: N3Token };
  parse(
    input: { on(event: string, callback: (data?: string) => void): void },
    callbacks: {
      onQuad: (error: N3Error | null, quad: RDF.Quad | null) => void;
      onPrefix: (prefix: string, iri: RDF.NamedNode) => void;
    },
  ): void;
}

/** The index in `text` just after `breaks` line breaks (CRLF, CR or LF), or -1. */
function skipLines(text: string, breaks: number): number {
  let i = 0;
  let cr = text.indexOf('\r'); // the next CR at or after i (kept, so CR-free text is scanned once)
  while (breaks > 0) {
    const lf = text.indexOf('\n', i);
    if (cr >= 0 && cr < i) cr = text.indexOf('\r', i);
    if (lf < 0 && cr < 0) return -1;
    if (cr >= 0 && (lf < 0 || cr < lf)) {
      if (cr === text.length - 1) return -1; // may still be the CR of a CRLF
      i = text.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
    } else {
      i = lf + 1;
    }
    breaks--;
  }
  return i;
}

class TurtleParser implements QuadKeyParser {
  private readonly parser: N3ParserInternals;
  private onData: (data?: string) => void = () => {};
  private onEnd: () => void = () => {};
  private readonly prefixes: Record<string, string> = {};
  private failure: unknown;
  private done = false;
  private ended = false;
  /** The fed text from the start of line `textLine` on (for lexer error columns). */
  private text = '';
  private textLine = 1;
  private anonymous = 0;
  private seenInput = false;

  constructor(format: 'text/turtle' | 'application/trig', baseIRI: string | undefined, prefix: string, private readonly sink: QuadKeySink) {
    // Labelled blank nodes become prefix + label (N3.js's blankNodePrefix); anonymous ones
    // (`[]`, collections) prefix + '-' + n, which no label can produce as labels never start with '-'.
    const factory = {
      ...DataFactory,
      blankNode: (name?: string) => DataFactory.blankNode(name ?? `${prefix}-${this.anonymous++}`),
    };
    const parser = new Parser({ format, baseIRI, blankNodePrefix: prefix, factory });
    this.parser = parser as unknown as N3ParserInternals;
    this.parser.parse(
      {
        on: (event, callback) => {
          if (event === 'data') this.onData = callback;
          else if (event === 'end') this.onEnd = callback;
        },
      },
      {
        onQuad: (error, quad) => {
          if (this.failure !== undefined) return;
          if (error) this.failure = this.toSyntaxError(error);
          else if (quad) this.emit(quad);
          else this.ended = true;
        },
        onPrefix: (name, iri) => {
          this.prefixes[name] = iri.value;
        },
      },
    );
  }

  feed(chunk: string): void {
    this.check('feed');
    if (chunk.length === 0) return;
    this.seenInput = true;
    this.text += chunk;
    this.guard(() => this.onData(chunk));
    this.check('feed');
    this.trimText();
  }

  end(): ParseResult {
    this.check('end');
    if (!this.seenInput) this.onData(' '); // N3.js only ends input it has seen
    this.guard(() => this.onEnd());
    this.done = true;
    if (this.failure !== undefined) throw this.failure;
    if (!this.ended) throw new RdfSyntaxError('unexpected end of input', ...this.positionAfter(this.parser._lexer.previousToken));
    this.text = '';
    return { prefixes: { ...this.prefixes } };
  }

  /** Runs N3.js; an exception from the sink leaves it unusable, so remember it like an error. */
  private guard(run: () => void): void {
    try {
      run();
    } catch (e) {
      this.failure ??= e;
      throw e;
    }
  }

  private check(what: string): void {
    if (this.failure !== undefined) {
      this.done = true;
      throw this.failure;
    }
    if (this.done) throw new TypeError(`${what}() called after end()`);
  }

  private emit(q: RDF.Quad): void {
    const { subject, predicate, object, graph } = q;
    if (subject.termType === 'Quad' || object.termType === 'Quad') {
      this.failure = this.errorAfterLastToken('RDF 1.2 triple terms are not supported');
      return;
    }
    if (object.termType === 'Literal' && (object as RDF.Literal & { direction?: string }).direction) {
      this.failure = this.errorAfterLastToken('RDF 1.2 literals with a base direction are not supported');
      return;
    }
    this.sink(termToKey(subject), termToKey(predicate), termToKey(object), termToKey(graph));
  }

  private errorAfterLastToken(detail: string): RdfSyntaxError {
    const t = this.parser._lexer.previousToken;
    return new RdfSyntaxError(detail, t?.line ?? 1, (t?.start ?? 0) + 1);
  }

  private toSyntaxError(error: N3Error): RdfSyntaxError {
    let detail = error.message.replace(/ on line \d+\.$/, '');
    detail = detail.charAt(0).toLowerCase() + detail.slice(1);
    const ctx = error.context;
    const token = ctx?.token;
    if (token && typeof token.start === 'number') {
      return new RdfSyntaxError(detail, token.line, token.start + 1, { cause: error });
    }
    const [line, column] = this.positionAfter(ctx?.previousToken);
    return new RdfSyntaxError(detail, ctx?.line ?? line, column, { cause: error });
  }

  /** Line and column of the first character after `token` that is not white space or a comment. */
  private positionAfter(token: N3Token | undefined): [number, number] {
    let line = token ? (token.endLine ?? token.line) : 1;
    const start = skipLines(this.text, line - this.textLine);
    if (start < 0) return [line, 1];
    const text = this.text;
    let i = start + (token?.end ?? 0);
    let lineStart = start;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9) i++;
      else if (c === 10 || c === 13) {
        i += c === 13 && text.charCodeAt(i + 1) === 10 ? 2 : 1;
        line++;
        lineStart = i;
      } else if (c === 35) {
        while (i < text.length && text.charCodeAt(i) !== 10 && text.charCodeAt(i) !== 13) i++;
      } else break;
    }
    return [line, i - lineStart + 1];
  }

  /** Drops the text before the line of the last token. */
  private trimText(): void {
    const t = this.parser._lexer.previousToken;
    if (!t) return;
    const keepLine = t.endLine ?? t.line;
    if (keepLine <= this.textLine) return;
    const i = skipLines(this.text, keepLine - this.textLine);
    if (i < 0) return;
    this.text = this.text.slice(i);
    this.textLine = keepLine;
  }
}

export function createTurtleParser(
  format: 'text/turtle' | 'application/trig',
  baseIRI: string | undefined,
  blankNodePrefix: string,
  sink: QuadKeySink,
): QuadKeyParser {
  return new TurtleParser(format, baseIRI, blankNodePrefix, sink);
}
