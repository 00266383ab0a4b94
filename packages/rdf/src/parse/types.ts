/** The shapes shared by every parser core and adapter. */
import type { RdfFormat } from './format.js';

export interface QuadKeyParserOptions {
  format: RdfFormat;
  /** Base IRI for relative IRIs (Turtle and TriG; N-Triples and N-Quads need absolute IRIs). */
  baseIRI?: string | undefined;
  /** Put in front of every blank node label; default: a fresh random prefix per parser
   * (`b` + 8 hex digits + `_`), so two loads never share a blank node. */
  blankNodePrefix?: string | undefined;
}

/** Receives one quad as dictionary keys (see terms.ts); the default graph is `''`. Keys are often
 * slices of the input text, which V8 keeps alive as long as a slice lives: copy a key before
 * keeping it for long (TermDictionary.intern does). */
export type QuadKeySink = (s: string, p: string, o: string, g: string) => void;

export interface ParseResult {
  /** The prefixes the document declared (Turtle and TriG), prefix -> namespace IRI. */
  prefixes: Record<string, string>;
}

/** A push-style parser core: it does no I/O. `feed` may be given any split of the text; quads
 * reach the sink as soon as they are complete; `end` flushes and checks the document is whole.
 * Both throw RdfSyntaxError; after an error or `end` the parser must not be used again. */
export interface QuadKeyParser {
  feed(chunk: string): void;
  end(): ParseResult;
}
