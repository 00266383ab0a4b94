/**
 * The user-facing operations authorised by the user's own access token (no SigV4, as in Cognito):
 * GetUser, ChangePassword, GlobalSignOut; and RevokeToken (authorised by the client).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IdpContext } from '../../context.js';
import { passwordCredentials } from '../../auth/credentials.js';
import { verifyPassword } from '../../crypto/password.js';
import { checkPasswordPolicy } from '../../crypto/password-policy.js';
import { IdpError, notAuthorized } from '../../errors.js';
import { toAttributeList } from '../../model/attributes.js';
import { requireClient } from '../../model/clients.js';
import { revokeSubject } from '../../model/revocations.js';
import { findSessionByRefreshToken, revokeSession, revokeUserSessions } from '../../model/sessions.js';
import { clearFailures, isLockedOut, recordFailure } from '../../model/throttle.js';
import { findUserBySub, saveUser, throttleKey } from '../../model/users.js';
import { API_SCOPE } from '../../tokens/issue.js';
import { verifyAccessToken, type VerifiedAccessToken } from '../../tokens/verify.js';
import { operation } from '../operation.js';
import { ClientId, ClientSecret, obj, Password, Token } from '../schema.js';

/** The Cognito API accepts only tokens carrying `aws.cognito.signin.user.admin`. */
async function apiCaller(ctx: IdpContext, token: string): Promise<VerifiedAccessToken> {
  const verified = await verifyAccessToken(ctx, token);
  const scopes = String(verified.claims.scope ?? '').split(' ');
  if (!scopes.includes(API_SCOPE)) throw notAuthorized('Access Token does not have required scopes');
  return verified;
}

const sameSecret = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export const selfServiceOperations = [
  operation<{ AccessToken: string }>('GetUser', false, obj({ AccessToken: Token }, ['AccessToken']), async (ctx, body) => {
    const { user } = await apiCaller(ctx, body.AccessToken);
    return { Username: user.username, UserAttributes: toAttributeList(user.sub, user.attributes) };
  }),

  operation<{ AccessToken: string; PreviousPassword: string; ProposedPassword: string }>(
    'ChangePassword',
    false,
    obj({ AccessToken: Token, PreviousPassword: Password, ProposedPassword: Password }, [
      'AccessToken',
      'PreviousPassword',
      'ProposedPassword',
    ]),
    async (ctx, body) => {
      const { user, pool } = await apiCaller(ctx, body.AccessToken);
      const key = throttleKey(user, user.username);
      if (isLockedOut(ctx.db, pool.id, key, ctx.now())) throw notAuthorized('Password attempts exceeded');
      if (!user.passwordHash || !(await verifyPassword(body.PreviousPassword, user.passwordHash))) {
        recordFailure(ctx.db, ctx.throttle, pool.id, key, ctx.now());
        throw notAuthorized();
      }
      clearFailures(ctx.db, pool.id, key);
      checkPasswordPolicy(body.ProposedPassword, pool.config.PasswordPolicy);
      const credentials = await passwordCredentials(ctx, pool.id, user.username, body.ProposedPassword);
      ctx.db.tx(() => {
        const current = findUserBySub(ctx.db, user.sub); // re-read: the user may have changed while hashing
        if (current) saveUser(ctx.db, { ...current, ...credentials, passwordSetAt: ctx.now(), updatedAt: ctx.now() });
      });
      return {};
    },
  ),

  operation<{ AccessToken: string }>('GlobalSignOut', false, obj({ AccessToken: Token }, ['AccessToken']), async (ctx, body) => {
    const { user, pool } = await apiCaller(ctx, body.AccessToken);
    ctx.db.tx(() => {
      revokeUserSessions(ctx.db, user.sub, ctx.now());
      revokeSubject(ctx.db, pool.id, user.sub, ctx.now(), 'global-sign-out');
    });
    return {};
  }),

  operation<{ Token: string; ClientId: string; ClientSecret?: string }>(
    'RevokeToken',
    false,
    obj({ Token, ClientId, ClientSecret }, ['Token', 'ClientId']),
    (ctx, body) => {
      const client = requireClient(ctx.db, body.ClientId);
      if (client.secret && !sameSecret(body.ClientSecret ?? '', client.secret))
        throw new IdpError('UnauthorizedException', 'Client is not authorized to revoke this token.');
      if (!client.config.EnableTokenRevocation)
        throw new IdpError('UnsupportedOperationException', 'Token revocation is not enabled for this client.');
      if (body.Token.split('.').length === 3)
        throw new IdpError('UnsupportedTokenTypeException', 'Only refresh tokens can be revoked.');
      const session = findSessionByRefreshToken(ctx.db, body.Token);
      if (session && session.clientId !== client.id)
        throw new IdpError('UnauthorizedException', 'Client is not authorized to revoke this token.');
      // An unknown token is not an error (RFC 7009 §2.2): the answer does not tell which tokens exist.
      if (session) revokeSession(ctx.db, session.originJti, ctx.now());
      return {};
    },
  ),
];
