/**
 * The error pattern of every service (STYLE.md, "Errors"): one error class per service with a
 * closed set of codes, one table from code to HTTP status, one function that turns any thrown
 * value into the reply the client sees, and one Fastify error handler that logs and sends it.
 * Each service keeps its own codes and reply body (`{ code, message }`, the Cognito
 * `{ __type, message }`, the graph server's `{ error, code, message }`); this module holds what
 * they share.
 */
import { redactCredentials } from '@ianode/auth';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The base of a service's error class: a code from the service's closed set, a client message, an optional cause (logs only). */
export class ServiceError<C extends string = string> extends Error {
  readonly code: C;

  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/** The one table of a service: every code to its HTTP status. */
export interface ErrorTable<C extends string> {
  readonly statuses: Readonly<Record<C, number>>;
  /** The status of a code of the table. */
  status(code: C): number;
  /** Whether a code is one of the table's. */
  has(code: string): code is C;
}

export function errorTable<C extends string>(statuses: Readonly<Record<C, number>>): ErrorTable<C> {
  const frozen = Object.freeze({ ...statuses });
  return {
    statuses: frozen,
    status: (code) => frozen[code],
    has: (code): code is C => Object.prototype.hasOwnProperty.call(frozen, code),
  };
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

/** The reason phrase of a status (RFC 9110 §15); `Error` for an unlisted 4xx, `Internal Server Error` for an unlisted 5xx. */
export function reasonPhrase(status: number): string {
  return REASONS[status] ?? (status >= 500 ? 'Internal Server Error' : 'Error');
}

/** What a client is told about a failure: status, body, extra headers. */
export interface ErrorReply<B = unknown> {
  status: number;
  body: B;
  headers: Record<string, string>;
}

/** The status of an error Fastify raised itself (bad JSON, body too large, wrong media type: 4xx), if it has one. */
export function fastifyStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

export interface ErrorHandlerOptions<B> {
  /** The reply for any thrown value (the service's mapping through its table). */
  reply(error: unknown, request: FastifyRequest): ErrorReply<B>;
  /**
   * Whether the reply reports a fault the service did not expect: logged at `error` with the
   * error itself (stack and cause). Default: any 5xx.
   */
  isInternal?(reply: ErrorReply<B>, error: unknown): boolean;
  /** Fields added to the log line (who asked, the code, …). */
  logFields?(error: unknown, request: FastifyRequest, reply: ErrorReply<B>): Record<string, unknown>;
  /** The log message of an expected failure (default: the error's message). */
  logMessage?(error: unknown, reply: ErrorReply<B>): string;
}

/**
 * The Fastify error handler of a service: maps the error with `reply`, logs it once, sends it.
 * An internal fault is logged at `error` with the error (its stack and cause, for the operator;
 * the client sees only the generic body). Any other failure is logged at `info` (a 4xx) or `warn`
 * (a 5xx such as an unreachable dependency) with its code, reason and cause, and message and cause
 * go through `redactCredentials`: they can echo what the caller sent.
 */
export function createErrorHandler<B>(options: ErrorHandlerOptions<B>): (error: unknown, request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  const isInternal = options.isInternal ?? ((reply) => reply.status >= 500);
  return (error, request, reply) => {
    const out = options.reply(error, request);
    const fields = options.logFields?.(error, request, out) ?? {};
    if (isInternal(out, error)) {
      request.log.error({ ...fields, status: out.status, err: error }, 'request failed');
    } else {
      const cause = error instanceof Error && error.cause instanceof Error ? redactCredentials(error.cause.message) : undefined;
      const reason = (error as { reason?: unknown } | null)?.reason;
      const message = options.logMessage?.(error, out) ?? (error instanceof Error ? error.message : String(error));
      request.log[out.status >= 500 ? 'warn' : 'info'](
        { code: (error as { code?: unknown } | null)?.code, status: out.status, ...(reason === undefined ? {} : { reason }), ...(cause === undefined ? {} : { cause }), ...fields },
        redactCredentials(message),
      );
    }
    return reply.code(out.status).headers(out.headers).send(out.body);
  };
}
