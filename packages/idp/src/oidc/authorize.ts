/**
 * `/oauth2/authorize`: GET shows the sign-in page; POST signs in (the same throttled password check
 * as the API) and redirects back with a single-use code bound to the PKCE challenge. The IdP keeps
 * no browser session, so every authorization asks for the password.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { completeNewPassword, signInWithPassword } from '../auth/sign-in.js';
import type { IdpContext } from '../context.js';
import { newOpaqueToken } from '../crypto/random.js';
import { IdpError } from '../errors.js';
import { insertAuthCode } from '../model/auth-codes.js';
import type { User } from '../model/users.js';
import { checkAuthorizeRequest, redirectTo, type AuthorizeParams, type AuthorizeRequest } from './authorize-request.js';
import { messagePage, newPasswordPage, sendHtml, signInPage } from './html.js';

const CODE_LIFETIME_MS = 5 * 60_000;

const str = { type: 'string', maxLength: 2048 } as const;
const authorizeQuery = {
  type: 'object',
  properties: {
    response_type: str,
    client_id: str,
    redirect_uri: str,
    scope: str,
    state: str,
    nonce: str,
    code_challenge: str,
    code_challenge_method: str,
  },
} as const;
const signInBody = {
  type: 'object',
  properties: {
    ...authorizeQuery.properties,
    username: { type: 'string', maxLength: 128 },
    password: { type: 'string', maxLength: 256 },
    session: { type: 'string', maxLength: 2048 },
    new_password: { type: 'string', maxLength: 256 },
  },
} as const;

interface SignInForm extends AuthorizeParams {
  username?: string;
  password?: string;
  session?: string;
  new_password?: string;
}

function issueCode(ctx: IdpContext, reply: FastifyReply, req: AuthorizeRequest, user: User): FastifyReply {
  const code = newOpaqueToken(32);
  const now = ctx.now();
  insertAuthCode(ctx.db, code, {
    poolId: req.pool.id,
    clientId: req.client.id,
    userSub: user.sub,
    redirectUri: req.redirectUri,
    codeChallenge: req.codeChallenge,
    scope: req.scope,
    nonce: req.nonce ?? null,
    authTime: Math.floor(now / 1000),
    expiresAt: now + CODE_LIFETIME_MS,
  });
  return reply.header('cache-control', 'no-store').redirect(redirectTo(req.redirectUri, { code, state: req.state }), 302);
}

export async function authorizeRoutes(app: FastifyInstance, ctx: IdpContext): Promise<void> {
  app.get<{ Querystring: AuthorizeParams }>('/oauth2/authorize', { schema: { querystring: authorizeQuery } }, async (request, reply) => {
    const check = checkAuthorizeRequest(ctx, request.query);
    if (check.kind === 'page') return sendHtml(reply, 400, messagePage('Sign-in request not valid', check.message));
    if (check.kind === 'redirect') return reply.redirect(check.location, 302);
    return sendHtml(reply, 200, signInPage({ clientName: check.request.client.name, params: check.request.params }));
  });

  app.post<{ Body: SignInForm }>('/oauth2/authorize', { schema: { body: signInBody } }, async (request, reply) => {
    const form = request.body;
    const check = checkAuthorizeRequest(ctx, form);
    if (check.kind === 'page') return sendHtml(reply, 400, messagePage('Sign-in request not valid', check.message));
    if (check.kind === 'redirect') return reply.redirect(check.location, 302);
    const req = check.request;
    const username = form.username ?? '';
    try {
      if (form.session !== undefined) {
        const user = await completeNewPassword(ctx, req.pool, req.client, form.session, username, form.new_password ?? '', {});
        return issueCode(ctx, reply, req, user);
      }
      const outcome = await signInWithPassword(ctx, req.pool, req.client, username, form.password ?? '');
      if (outcome.kind === 'new-password-required')
        return sendHtml(reply, 200, newPasswordPage({ params: req.params, username, session: outcome.session }));
      return issueCode(ctx, reply, req, outcome.user);
    } catch (err) {
      if (!(err instanceof IdpError) || err.status >= 500) throw err;
      request.log.info({ code: err.code }, `sign-in page: ${err.message}`);
      if (err.code === 'InvalidPasswordException' && form.session !== undefined) {
        // The challenge session was consumed only if the password met the policy; it did not, so it is still valid.
        return sendHtml(reply, 400, newPasswordPage({ params: req.params, username, session: form.session, error: err.message }));
      }
      return sendHtml(reply, 400, signInPage({ clientName: req.client.name, params: req.params, username, error: err.message }));
    }
  });
}
