/**
 * A results document (JSON, XML, CSV, TSV or a result-set graph) that does not follow its format.
 * It is a SparqlError with code `SPARQL_SYNTAX` (the closed code set of ../errors.ts has no code of
 * its own for results documents), told apart from query syntax errors by its class and name.
 */
import { SparqlError } from '../errors.js';

export class ResultsSyntaxError extends SparqlError {
  /** `format` is the media type being read. */
  constructor(
    readonly format: string,
    detail: string,
    position?: { line: number; column: number },
    options?: { cause?: unknown },
  ) {
    super('SPARQL_SYNTAX', `${format}${position ? ` line ${position.line}, column ${position.column}` : ''}: ${detail}`, position, options);
    this.name = 'ResultsSyntaxError';
  }
}
