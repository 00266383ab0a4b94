/**
 * `POST /oauth2/token` (authorization_code with PKCE S256, refresh_token) and `POST /oauth2/revoke`
 * (RFC 7009, refresh tokens). Responses are never cached; errors are RFC 6749 §5.2 JSON.
 */
import { timingSafeEqual } from 'node:crypto';
import { createErrorHandler, fastifyStatus, type ErrorReply } from '@ianode/service';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { refreshSession } from '../auth/refresh.js';
import type { IdpContext } from '../context.js';
import { sha256Base64Url } from '../crypto/random.js';
import { IdpError } from '../errors.js';
import { recordCodeSession, takeAuthCode } from '../model/auth-codes.js';
import type { Client } from '../model/clients.js';
import { requirePool } from '../model/pools.js';
import { findSessionByRefreshToken, revokeSession } from '../model/sessions.js';
import { findUserBySub } from '../model/users.js';
import { issueTokens, type IssuedTokens } from '../tokens/issue.js';
import { authenticateClient, OAuthError } from './client-auth.js';

type Form = Record<string, string | undefined>;

const s = { type: 'string', maxLength: 16_384 } as const;
const tokenBody = {
  type: 'object',
  properties: {
    grant_type: s,
    code: s,
    redirect_uri: s,
    code_verifier: s,
    refresh_token: s,
    client_id: s,
    client_secret: s,
    scope: s,
    token: s,
    token_type_hint: s,
  },
} as const;
const tokenResponse = {
  200: {
    type: 'object',
    properties: {
      access_token: { type: 'string' },
      id_token: { type: 'string' },
      refresh_token: { type: 'string' },
      token_type: { type: 'string' },
      expires_in: { type: 'integer' },
    },
    required: ['access_token', 'id_token', 'token_type', 'expires_in'],
  },
  '4xx': { type: 'object', properties: { error: { type: 'string' }, error_description: { type: 'string' } } },
};

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

const tokenJson = (t: IssuedTokens) => ({
  access_token: t.accessToken,
  id_token: t.idToken,
  ...(t.refreshToken ? { refresh_token: t.refreshToken } : {}),
  token_type: 'Bearer',
  expires_in: t.expiresIn,
});

function matchesChallenge(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(sha256Base64Url(verifier));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

async function authorizationCodeGrant(ctx: IdpContext, client: Client, form: Form): Promise<IssuedTokens> {
  const { code, redirect_uri: redirectUri, code_verifier: verifier } = form;
  if (!code || !redirectUri || !verifier) throw new OAuthError('invalid_request', 'code, redirect_uri and code_verifier are required.');
  const found = takeAuthCode(ctx.db, code, ctx.now());
  if (found.kind === 'replayed') {
    if (found.originJti) revokeSession(ctx.db, found.originJti, ctx.now()); // RFC 6749 §4.1.2
    throw new OAuthError('invalid_grant', 'The authorization code was already used.');
  }
  if (found.kind === 'missing') throw new OAuthError('invalid_grant', 'The authorization code is invalid or expired.');
  const grant = found.code;
  if (grant.clientId !== client.id) throw new OAuthError('invalid_grant', 'The authorization code was issued to another client.');
  if (grant.redirectUri !== redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request.');
  if (!matchesChallenge(verifier, grant.codeChallenge)) throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.');
  const user = findUserBySub(ctx.db, grant.userSub);
  if (!user || !user.enabled) throw new OAuthError('invalid_grant', 'The user can no longer sign in.');
  const tokens = await issueTokens(ctx, {
    pool: requirePool(ctx.db, grant.poolId),
    client,
    user,
    scope: grant.scope,
    nonce: grant.nonce,
    atHash: true,
    refresh: undefined,
  });
  recordCodeSession(ctx.db, code, tokens.originJti);
  return tokens;
}

async function refreshTokenGrant(ctx: IdpContext, client: Client, form: Form): Promise<IssuedTokens> {
  if (!form.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required.');
  try {
    return await refreshSession(ctx, client, form.refresh_token);
  } catch (err) {
    if (err instanceof IdpError && err.code === 'NotAuthorizedException') throw new OAuthError('invalid_grant', err.message);
    if (err instanceof IdpError && err.code === 'InvalidParameterException') throw new OAuthError('unauthorized_client', err.message);
    throw err;
  }
}

/** Any thrown value as the token endpoint's error (never cached). */
function oauthErrorReply(error: unknown): ErrorReply<{ error: string; error_description: string }> {
  const headers: Record<string, string> = { 'cache-control': 'no-store', pragma: 'no-cache' };
  if (error instanceof OAuthError) {
    if (error.status === 401) headers['www-authenticate'] = 'Basic realm="ianode-idp"';
    return { status: error.status, headers, body: { error: error.error, error_description: error.description } };
  }
  if ((error as { validation?: unknown }).validation || fastifyStatus(error) === 415) {
    return { status: 400, headers, body: { error: 'invalid_request', error_description: (error as Error).message } };
  }
  return { status: 500, headers, body: { error: 'server_error', error_description: 'Internal error.' } };
}

export async function tokenRoutes(app: FastifyInstance, ctx: IdpContext): Promise<void> {
  // The service skeleton's handler: OAuth errors (RFC 6749 §5.2) logged at info, the rest at error.
  app.setErrorHandler(
    createErrorHandler({
      reply: oauthErrorReply,
      logFields: (_error, _request, out) => ({ error: out.body.error }),
      logMessage: (_error, out) => out.body.error_description,
    }),
  );

  app.post<{ Body: Form }>('/oauth2/token', { schema: { body: tokenBody, response: tokenResponse } }, async (request, reply) => {
    const form = request.body ?? {};
    const client = authenticateClient(ctx, request, form);
    let tokens: IssuedTokens;
    if (form.grant_type === 'authorization_code') tokens = await authorizationCodeGrant(ctx, client, form);
    else if (form.grant_type === 'refresh_token') tokens = await refreshTokenGrant(ctx, client, form);
    else throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
    return noStore(reply).send(tokenJson(tokens));
  });

  app.post<{ Body: Form }>('/oauth2/revoke', { schema: { body: tokenBody } }, async (request, reply) => {
    const form = request.body ?? {};
    const client = authenticateClient(ctx, request, form);
    if (!form.token) throw new OAuthError('invalid_request', 'token is required.');
    const session = findSessionByRefreshToken(ctx.db, form.token);
    if (session && session.clientId !== client.id) throw new OAuthError('unauthorized_client', 'The token belongs to another client.');
    if (session) revokeSession(ctx.db, session.originJti, ctx.now());
    return noStore(reply).code(200).send({});
  });
}
