import { AuthError, authChallenge } from '@ianode/auth';
import { createErrorHandler, fastifyStatus, type ErrorReply } from '@ianode/service';
import type { FastifyError } from 'fastify';
import { AccessError, errorStatus, type AccessErrorCode } from '../errors.js';

/** The body of every error reply. */
export interface AccessErrorBody {
  code: string;
  message: string;
}

/**
 * The reply for any thrown value: `{ code, message }` with the status of `errorStatus`. Auth
 * failures carry `WWW-Authenticate`; unexpected errors show the client only `INTERNAL`.
 */
export function accessErrorReply(error: unknown): ErrorReply<AccessErrorBody> {
  if (error instanceof AuthError) {
    const challenge = authChallenge(error);
    return { status: errorStatus(error.code), headers: challenge === undefined ? {} : { 'www-authenticate': challenge }, body: { code: error.code, message: error.message } };
  }
  if (error instanceof AccessError) return reply(error.code, error.message);
  const fastifyError = error as FastifyError;
  if (fastifyError.validation !== undefined) {
    return reply('VALIDATION', validationMessage(fastifyError.validationContext ?? 'request', fastifyError.validation));
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return reply('UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return reply('BODY_TOO_LARGE', 'the body is too large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return reply('BAD_REQUEST', 'the JSON body is empty');
    default:
      break;
  }
  const status = fastifyStatus(error);
  if (status !== undefined && status >= 400 && status < 500) {
    const message = error instanceof SyntaxError ? `the body is not valid JSON: ${error.message}` : (error as Error).message;
    return { status, headers: {}, body: { code: 'BAD_REQUEST', message } };
  }
  return reply('INTERNAL', 'internal error; the log has the details');
}

function reply(code: AccessErrorCode, message: string): ErrorReply<AccessErrorBody> {
  return { status: errorStatus(code), headers: {}, body: { code, message } };
}

/**
 * The one error handler (the service skeleton's): auth failures are logged with their reason
 * (never the token) at info, or warn when a dependency is down; other 5xx at error with the cause.
 */
export const handleError = createErrorHandler<AccessErrorBody>({
  reply: accessErrorReply,
  isInternal: (out, error) => out.status >= 500 && !(error instanceof AuthError),
  logFields: (_error, request, out) => ({ code: out.body.code, user: request.caller?.user }),
});

interface SchemaError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** One readable sentence from Ajv's errors: where (`body.attributes.clearance`) and what is wrong. */
export function validationMessage(context: string, errors: readonly SchemaError[]): string {
  const first = errors[0];
  if (first === undefined) return `invalid ${context}`;
  const where = `${context}${first.instancePath.replace(/\//g, '.')}`;
  const sameSpot = errors.filter((error) => error.instancePath === first.instancePath);
  if (sameSpot.some((error) => error.keyword === 'anyOf')) {
    const types = sameSpot.filter((error) => error.keyword === 'type').map((error) => String(error.params.type));
    return `${where} must be ${types.join(' or ') || 'of another form'}`;
  }
  let detail = first.message ?? 'is invalid';
  if (first.keyword === 'additionalProperties') detail = `must not have property ${JSON.stringify(first.params.additionalProperty)}`;
  if (first.keyword === 'enum') detail = `must be one of ${(first.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  return `${where} ${detail}`;
}
