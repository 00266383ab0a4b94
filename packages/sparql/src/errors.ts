/** Errors of the SPARQL engine, with a closed set of codes (servers map codes to HTTP statuses). */
export type SparqlErrorCode =
  | 'SPARQL_SYNTAX' // the query does not parse (400); line/column when known
  | 'SPARQL_UNSUPPORTED' // a feature outside what we evaluate, e.g. SERVICE (501)
  | 'QUERY_TIMEOUT' // the deadline passed; the work was stopped (503)
  | 'QUERY_TOO_COMPLEX' // parsing, planning or evaluating the request ran out of stack (400)
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

/** V8's stack overflow ("Maximum call stack size exceeded"); other RangeErrors are real errors. */
export function isStackOverflow(error: unknown): error is RangeError {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/** The error a stack overflow in `stage` becomes: the request's shape, never an internal fault. */
export function tooComplex(stage: 'parse' | 'plan' | 'evaluate', cause: unknown): SparqlError {
  return new SparqlError(
    'QUERY_TOO_COMPLEX',
    `the request is nested too deeply or chains too many operators to ${stage === 'evaluate' ? 'be evaluated' : stage === 'plan' ? 'be planned' : 'be parsed'} (the stack ran out): split it, or nest less`,
    undefined,
    { cause },
  );
}

/** `fn()`, with a stack overflow turned into QUERY_TOO_COMPLEX. */
export function guardStack<T>(stage: 'parse' | 'plan' | 'evaluate', fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (isStackOverflow(error)) throw tooComplex(stage, error);
    throw error;
  }
}

/** An iterable whose iteration turns a stack overflow into QUERY_TOO_COMPLEX (lazy evaluation). */
export function guardIterable<T>(items: Iterable<T>): Iterable<T> {
  return {
    [Symbol.iterator]: () => {
      const it = guardStack('evaluate', () => items[Symbol.iterator]());
      return {
        next: () => guardStack('evaluate', () => it.next()),
        return: (value?: unknown) => (it.return ? guardStack('evaluate', () => it.return!(value)) : { done: true as const, value: undefined }),
      };
    },
  };
}

/** An expression without a value (SPARQL 1.1 §17.3 "error"): FILTER treats it as false, BIND and
 * SELECT expressions leave the variable unbound, ORDER BY sorts it first. */
export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionError';
  }
}
