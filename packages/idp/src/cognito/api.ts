/**
 * The Cognito JSON API: `POST /` with `X-Amz-Target: AWSCognitoIdentityProviderService.<Op>`.
 * Each operation is its own Fastify route (see `rewriteCognitoUrl`), with its body schema compiled
 * at registration. Admin operations verify SigV4 before validation.
 * Errors go out as AWS sends them: `{"__type", "message"}` and `x-amzn-ErrorType`.
 */
import { createErrorHandler, type ErrorReply } from '@ianode/service';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { IdpContext } from '../context.js';
import { verifySignatureV4 } from '../crypto/sigv4.js';
import { IdpError } from '../errors.js';
import type { Operation } from './operation.js';
import { authOperations } from './ops/auth.js';
import { groupOperations } from './ops/groups.js';
import { forgotPasswordOperations } from './ops/forgot-password.js';
import { keyOperations } from './ops/keys.js';
import { listUsersOperations } from './ops/list-users.js';
import { outboxOperations } from './ops/outbox.js';
import { selfServiceOperations } from './ops/self-service.js';
import { signUpOperations } from './ops/sign-up.js';
import { userPoolClientOperations } from './ops/user-pool-clients.js';
import { userPoolOperations } from './ops/user-pools.js';
import { userOperations } from './ops/users.js';

export const OPERATIONS: readonly Operation[] = [
  ...userPoolOperations,
  ...userPoolClientOperations,
  ...userOperations,
  ...listUsersOperations,
  ...groupOperations,
  ...authOperations,
  ...selfServiceOperations,
  ...signUpOperations,
  ...forgotPasswordOperations,
  ...keyOperations,
  ...outboxOperations,
];

const AMZ_JSON = 'application/x-amz-json-1.1';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received (SigV4 hashes it). */
    rawBody?: Buffer;
  }
}

/** Internal path prefix of the operation routes. */
const TARGET_PREFIX = '/_target/';
const KNOWN_TARGETS = new Set(OPERATIONS.map((op) => op.target));

/**
 * Fastify `rewriteUrl`: `POST /` with a known `X-Amz-Target` is routed to that operation's own
 * route (`/_target/<target>`), so each operation has its own compiled schema. (find-my-way allows
 * at most 31 constrained handlers per path, fewer than the operations, so a header constraint
 * cannot do this.) The internal paths cannot be reached directly.
 */
export function rewriteCognitoUrl(req: { method?: string; url?: string; headers: Record<string, string | string[] | undefined> }): string {
  const url = req.url ?? '/';
  if (url.startsWith(TARGET_PREFIX)) return '/_target-not-reachable';
  const target = req.headers['x-amz-target'];
  if (req.method === 'POST' && (url === '/' || url.startsWith('/?')) && typeof target === 'string' && KNOWN_TARGETS.has(target))
    return `${TARGET_PREFIX}${target}${url.slice(1)}`;
  return url;
}

/** Any thrown value as the Cognito error the client sees (schema violations, oversized bodies, or an internal error). */
function asIdpError(error: unknown): IdpError {
  if (error instanceof IdpError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return new IdpError('InvalidParameterException', validationMessage(fastifyError));
  if (fastifyError.statusCode === 413) return new IdpError('SerializationException', 'Request body too large.');
  return new IdpError('InternalErrorException', 'Internal error.');
}

/** The Cognito error reply: `{ __type, message }` as AMZ JSON, with `x-amzn-errortype`. */
function cognitoErrorReply(err: IdpError): ErrorReply<string> {
  return {
    status: err.status,
    headers: { 'content-type': AMZ_JSON, 'x-amzn-errortype': `${err.code}:` },
    body: JSON.stringify({ __type: err.code, message: err.message }),
  };
}

/** AWS-style message for a schema violation (`1 validation error detected: ...`). */
function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const params = first.params as { missingProperty?: string };
  const path = (params.missingProperty ? `${first.instancePath}/${params.missingProperty}` : first.instancePath)
    .split('/')
    .filter(Boolean)
    .map((p) => p.charAt(0).toLowerCase() + p.slice(1))
    .join('.');
  if (params.missingProperty) return `1 validation error detected: Value null at '${path}' failed to satisfy constraint: Member must not be null`;
  return `1 validation error detected: Value at '${path}' failed to satisfy constraint: Member ${first.message ?? 'is invalid'}`;
}

export async function cognitoApi(app: FastifyInstance, ctx: IdpContext): Promise<void> {
  const parseJson = (_req: FastifyRequest, body: Buffer, done: (err: Error | null, value?: unknown) => void) => {
    _req.rawBody = body;
    if (body.length === 0) return done(null, {});
    try {
      done(null, JSON.parse(body.toString('utf8')));
    } catch (cause) {
      done(new IdpError('SerializationException', 'Start of structure or map found where not expected.', { cause }));
    }
  };
  app.removeAllContentTypeParsers();
  app.addContentTypeParser([AMZ_JSON, 'application/x-amz-json-1.0', 'application/json'], { parseAs: 'buffer' }, parseJson);
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) =>
    done(new IdpError('SerializationException', `Content-Type must be ${AMZ_JSON}.`)),
  );

  // The service skeleton's handler: 5xx logged with the error, the rest at info (code, cause), never a secret.
  app.setErrorHandler(
    createErrorHandler({
      reply: (error) => cognitoErrorReply(asIdpError(error)),
      logFields: (error) => ({ code: asIdpError(error).code }),
    }),
  );

  const verify = async (request: FastifyRequest) => {
    verifySignatureV4(
      { method: request.method, url: request.originalUrl, headers: request.headers, body: request.rawBody ?? Buffer.alloc(0) },
      { ...ctx.admin, region: ctx.region, service: 'cognito-idp', now: ctx.now(), maxSkewMs: ctx.signatureMaxSkewMs },
    );
  };

  for (const op of OPERATIONS) {
    app.route({
      method: 'POST',
      url: `${TARGET_PREFIX}${op.target}`,
      schema: { body: op.body },
      ...(op.admin ? { preValidation: verify } : {}),
      handler: async (request, reply) => {
        const result = await op.handle(ctx, request.body as never, request);
        return reply.header('content-type', AMZ_JSON).send(JSON.stringify(result));
      },
    });
  }

  // Any other (or no) X-Amz-Target stays on `/`.
  app.post('/', async (request) => {
    const target = request.headers['x-amz-target'];
    throw new IdpError(
      'UnknownOperationException',
      typeof target === 'string' && target ? `Unknown operation ${target}` : 'Missing X-Amz-Target header.',
    );
  });
}
