import { AuthError, authChallenge } from '@ianode/auth';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AccessError, errorStatus, type AccessErrorCode } from '../errors.js';

/**
 * The one error handler: every failure becomes `{ code, message }` with the status of
 * `errorStatus`. Auth failures carry `WWW-Authenticate` and log their reason (never the token);
 * unexpected errors log their cause and show the client only `INTERNAL`.
 */
export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof AuthError) {
    const status = errorStatus(error.code);
    const challenge = authChallenge(error);
    if (challenge !== undefined) void reply.header('www-authenticate', challenge);
    const cause = error.cause instanceof Error ? error.cause.message : undefined;
    request.log[status >= 500 ? 'warn' : 'info']({ code: error.code, reason: error.reason, cause }, 'authentication refused');
    return reply.code(status).send({ code: error.code, message: error.message });
  }
  if (error instanceof AccessError) {
    const status = errorStatus(error.code);
    if (status >= 500) request.log.error({ err: error.cause ?? error }, error.message);
    return reply.code(status).send({ code: error.code, message: error.message });
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation !== undefined) {
    return send(reply, 'VALIDATION', validationMessage(fastifyError.validationContext ?? 'request', fastifyError.validation));
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return send(reply, 'UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return send(reply, 'BODY_TOO_LARGE', 'the body is too large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return send(reply, 'BAD_REQUEST', 'the JSON body is empty');
    default:
      break;
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return reply.code(status).send({ code: 'BAD_REQUEST', message: error instanceof SyntaxError ? `the body is not valid JSON: ${error.message}` : error.message });
  }
  request.log.error({ err: error }, 'unexpected error');
  return send(reply, 'INTERNAL', 'internal error; the log has the details');
}

function send(reply: FastifyReply, code: AccessErrorCode, message: string): FastifyReply {
  return reply.code(errorStatus(code)).send({ code, message });
}

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
