/**
 * Errors of the rdf package: one base class with a closed set of codes (STYLE.md, "Errors").
 * Misuse of an API (a wrong argument type, an unknown format) throws `TypeError` instead.
 */

export type RdfErrorCode = 'RDF_SYNTAX';

export class RdfError extends Error {
  readonly code: RdfErrorCode;

  constructor(code: RdfErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RdfError';
    this.code = code;
  }
}

/** A document (or a pattern) that does not follow its syntax. `line` and `column` are 1-based;
 * the column counts UTF-16 code units from the start of the line. */
export class RdfSyntaxError extends RdfError {
  declare readonly code: 'RDF_SYNTAX';
  readonly line: number;
  readonly column: number;
  /** The problem without the position prefix, e.g. `unexpected "." (expected an object)`. */
  readonly detail: string;

  constructor(detail: string, line: number, column: number, options?: { cause?: unknown }) {
    super('RDF_SYNTAX', `line ${line}, column ${column}: ${detail}`, options);
    this.name = 'RdfSyntaxError';
    this.line = line;
    this.column = column;
    this.detail = detail;
  }
}
