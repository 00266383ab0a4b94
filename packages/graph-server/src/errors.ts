/**
 * The graph server's errors and the ONE table mapping every error code it can meet (its own, and
 * those of auth, sparql, store, rdf and abac) to an HTTP status (STYLE.md, "Errors").
 */
import { LabelSyntaxError } from '@ianode/abac';
import { AuthError, authChallenge, authErrorStatus, type AuthErrorCode } from '@ianode/auth';
import { RdfSyntaxError } from '@ianode/rdf';
import { createErrorHandler, reasonPhrase, ServiceError, type ErrorReply as ServiceErrorReply } from '@ianode/service';
import type { FastifyInstance } from 'fastify';
import { isStackOverflow, RdfXmlError, SparqlError, type SparqlErrorCode } from '@ianode/sparql';
import { StoreError, type StoreErrorCode } from '@ianode/store';

export type GraphServerErrorCode =
  | 'BAD_REQUEST'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  /** The request clashes with the server's state: a dataset name in use, a dataset of the configuration file (409). */
  | 'CONFLICT'
  | 'NOT_ACCEPTABLE'
  | 'REQUEST_TIMEOUT'
  | 'PAYLOAD_TOO_LARGE'
  | 'RESULT_TOO_LARGE'
  | 'QUERY_LIMIT'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'NOT_IMPLEMENTED'
  | 'SHUTTING_DOWN'
  | 'UNAVAILABLE'
  | 'CLIENT_CLOSED'
  | 'LABEL_NOT_VISIBLE_TO_WRITER'
  /** A valid token whose user the access service does not know (403 unless `security.unknownUsers: empty`). */
  | 'UNKNOWN_USER'
  /** A valid token whose directory entry is inactive (403). */
  | 'INACTIVE_USER'
  /** A read asked (`Ianode-Offset`) for a log position this replica has not applied in time (503). */
  | 'KAFKA_BEHIND'
  /** The Kafka connector is stopped or not connected: writes through the log cannot be taken (503). */
  | 'KAFKA_UNAVAILABLE'
  /** A write taken into the log but not yet applied here within `kafka.readWaitMs` (202). */
  | 'WRITE_PENDING'
  /** A write body too large for one Kafka message (413). */
  | 'MESSAGE_TOO_LARGE'
  /** A feature the configuration does not switch on, e.g. backups without `backup.dir` (503). */
  | 'NOT_CONFIGURED'
  | 'INTERNAL';

export class GraphServerError extends ServiceError<GraphServerErrorCode> {
  /** Extra reply headers (`allow` of a 405). */
  readonly headers: Readonly<Record<string, string>>;
  /** Where in the request text the problem is (1-based), when it is in a text. */
  readonly position: { line: number; column: number } | undefined;

  constructor(
    code: GraphServerErrorCode,
    message: string,
    options?: { cause?: unknown; headers?: Record<string, string>; position?: { line: number; column: number } },
  ) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.headers = options?.headers ?? {};
    this.position = options?.position;
  }
}

/**
 * An error a query worker (pool/worker.ts) met and turned into its reply with this same table:
 * the main thread sends that reply as it is. `fault` (server faults only) is for the log.
 */
export class ForwardedError extends Error {
  constructor(
    readonly reply: ErrorReply,
    fault?: { message: string; stack: string | undefined },
  ) {
    super(fault?.message ?? reply.body.message);
    this.name = 'ForwardedError';
    if (fault?.stack !== undefined) this.stack = fault.stack;
  }
}

type AnyCode = GraphServerErrorCode | AuthErrorCode | SparqlErrorCode | StoreErrorCode | 'RDF_SYNTAX' | 'LABEL_SYNTAX';

/** Every code -> HTTP status (auth codes come from @ianode/auth's own table). */
const STATUS: Record<Exclude<AnyCode, AuthErrorCode>, number> = {
  BAD_REQUEST: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  NOT_ACCEPTABLE: 406,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  RESULT_TOO_LARGE: 413,
  QUERY_LIMIT: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  NOT_IMPLEMENTED: 501,
  SHUTTING_DOWN: 503,
  UNAVAILABLE: 503,
  KAFKA_BEHIND: 503,
  KAFKA_UNAVAILABLE: 503,
  WRITE_PENDING: 202,
  MESSAGE_TOO_LARGE: 413,
  NOT_CONFIGURED: 503,
  CLIENT_CLOSED: 400,
  LABEL_NOT_VISIBLE_TO_WRITER: 400,
  UNKNOWN_USER: 403,
  INACTIVE_USER: 403,
  INTERNAL: 500,
  SPARQL_SYNTAX: 400,
  SPARQL_UNSUPPORTED: 501,
  QUERY_TOO_COMPLEX: 400,
  QUERY_TIMEOUT: 503,
  ROW_BUDGET: 413,
  LABELS_GRAPH: 400,
  STORE_CLOSED: 503,
  STORE_CORRUPT: 500,
  STORE_IO: 503,
  STORE_LOCKED: 503,
  RDF_SYNTAX: 400,
  LABEL_SYNTAX: 400,
};

/** The HTTP status of an error code (for replies built without throwing, e.g. GraphQL bodies). */
export function statusOf(code: Exclude<AnyCode, AuthErrorCode>): number {
  return STATUS[code];
}

/** What a client is told: status, JSON body (`error` is the status's reason phrase), extra headers. */
export type ErrorReply = ServiceErrorReply<{ error: string; code: string; message: string; line?: number; column?: number; position?: number }>;

/** The reply for any thrown value; unknown errors become a 500 that says nothing of the cause. */
export function errorReply(error: unknown): ErrorReply {
  if (error instanceof ForwardedError) return { status: error.reply.status, body: { ...error.reply.body }, headers: { ...error.reply.headers } };
  const headers: Record<string, string> = {};
  if (error instanceof AuthError) {
    const challenge = authChallenge(error);
    if (challenge !== undefined) headers['www-authenticate'] = challenge;
    const status = authErrorStatus(error.code);
    return { status, headers, body: { error: reasonPhrase(status), code: error.code, message: error.message } };
  }
  if (error instanceof RdfSyntaxError) {
    return { status: 400, headers, body: { error: 'Bad Request', code: 'RDF_SYNTAX', message: `RDF syntax error at ${error.message}; nothing was stored`, line: error.line, column: error.column } };
  }
  if (error instanceof LabelSyntaxError) {
    return { status: 400, headers, body: { error: 'Bad Request', code: 'LABEL_SYNTAX', message: `${error.message} (label ${JSON.stringify(error.label)}); nothing was stored`, position: error.position } };
  }
  if (error instanceof RdfXmlError) {
    // A graph RDF/XML cannot hold (a predicate without an XML name, a control character).
    return { status: 406, headers, body: { error: 'Not Acceptable', code: 'NOT_ACCEPTABLE', message: error.message } };
  }
  if (error instanceof SparqlError) {
    const status = STATUS[error.code];
    const body: ErrorReply['body'] = { error: reasonPhrase(status), code: error.code, message: error.message };
    if (error.position) Object.assign(body, error.position);
    return { status, headers, body };
  }
  if (error instanceof StoreError || error instanceof GraphServerError) {
    const status = STATUS[error.code];
    const body: ErrorReply['body'] = { error: reasonPhrase(status), code: error.code, message: error.message };
    if (error instanceof GraphServerError) {
      Object.assign(headers, error.headers);
      if (error.position) Object.assign(body, error.position);
    }
    return { status, headers, body };
  }
  if (isStackOverflow(error)) {
    // A last line of defence: the shape limits (../query-shape.ts) keep every construct within
    // the stack, but an overflow anywhere in parse, plan or evaluation is the request's shape, not
    // a server fault, and the stack is never shown.
    return { status: 400, headers, body: { error: 'Bad Request', code: 'QUERY_TOO_COMPLEX', message: STACK_MESSAGE } };
  }
  if (isClientAbort(error)) {
    // The client closed its connection in the middle of the body: its doing, not a server fault
    // (no one reads this reply; the log line says what happened, at info level).
    return { status: STATUS.CLIENT_CLOSED, headers, body: { error: 'Bad Request', code: 'CLIENT_CLOSED', message: 'the client closed the connection before sending the whole body; nothing was stored' } };
  }
  const fastifyStatus = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof fastifyStatus === 'number' && fastifyStatus >= 400 && fastifyStatus < 500) {
    const code = fastifyStatus === 413 ? 'PAYLOAD_TOO_LARGE' : fastifyStatus === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'BAD_REQUEST';
    return { status: fastifyStatus, headers, body: { error: reasonPhrase(fastifyStatus), code, message: (error as Error).message } };
  }
  return { status: 500, headers, body: { error: 'Internal Server Error', code: 'INTERNAL', message: 'internal error; see the server log' } };
}

/** Node's error for a request body whose connection closed before its end (`abortIncoming`). */
function isClientAbort(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && ((code === 'ECONNRESET' && error.message === 'aborted') || code === 'ERR_STREAM_PREMATURE_CLOSE');
}

const STACK_MESSAGE = 'the request is nested too deeply or chains too many operators to be evaluated: split it, or nest less';

/**
 * The graph server's error handling on one Fastify app (the front app and each dataset's): replies
 * from the one table above (`Retry-After` when the error carries one; a query timeout's message
 * naming `queryTimeoutMs` when given), the code of a refused request kept for its audit record,
 * and log lines with the caller but never the raw message (it can echo what the caller sent: the
 * handler redacts it).
 */
export function installErrorHandling(app: FastifyInstance, options: { queryTimeoutMs?: number } = {}): void {
  app.addHook('onError', async (request, _reply, error) => {
    request.auditCode = errorReply(error).body.code;
  });
  app.setErrorHandler(createErrorHandler({
    reply: (error) => {
      const out = errorReply(error);
      const retryAfter = (error as { retryAfter?: number }).retryAfter;
      if (retryAfter !== undefined) out.headers['retry-after'] = String(retryAfter);
      if (options.queryTimeoutMs !== undefined && out.status === 503 && out.body.code === 'QUERY_TIMEOUT') {
        out.body.message = `query cancelled: over the time limit of ${options.queryTimeoutMs} ms (${out.body.message})`;
      }
      return out;
    },
    isInternal: (out) => out.status >= 500 && out.body.code === 'INTERNAL',
    logFields: (_error, request, out) => ({ code: out.body.code, user: request.caller?.user, identity: request.caller?.id }),
    logMessage: (_error, out) => out.body.message,
  }));
}
