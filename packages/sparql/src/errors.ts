/** Errors of the SPARQL engine, with a closed set of codes (servers map codes to HTTP statuses). */
export type SparqlErrorCode =
  | 'SPARQL_SYNTAX' // the query does not parse (400); line/column when known
  | 'SPARQL_UNSUPPORTED' // a feature outside what we evaluate, e.g. SERVICE (501)
  | 'QUERY_TIMEOUT' // the deadline passed; the work was stopped (503)
  | 'ROW_BUDGET'; // an operator would hold more rows than allowed (413/503)

export class SparqlError extends Error {
  constructor(
    readonly code: SparqlErrorCode,
    message: string,
    readonly position?: { line: number; column: number },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SparqlError';
  }
}

/** An expression without a value (SPARQL 1.1 §17.3 "error"): FILTER treats it as false, BIND and
 * SELECT expressions leave the variable unbound, ORDER BY sorts it first. */
export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionError';
  }
}
