/** Refreshing a session: new ID and access tokens, same `origin_jti`; the refresh token is not rotated. */
import type { IdpContext } from '../context.js';
import { invalidParameter, notAuthorized } from '../errors.js';
import { authFlowAllowed, type Client } from '../model/clients.js';
import { requirePool } from '../model/pools.js';
import { findSessionByRefreshToken } from '../model/sessions.js';
import { findUserBySub, type User } from '../model/users.js';
import { issueTokens, type IssuedTokens } from '../tokens/issue.js';

/**
 * Checks the refresh token (this client's, not revoked, not expired, user still enabled) and issues
 * tokens. `beforeIssue` lets the Cognito API check SECRET_HASH against the user first.
 */
export async function refreshSession(
  ctx: IdpContext,
  client: Client,
  refreshToken: string,
  beforeIssue?: (user: User) => void,
): Promise<IssuedTokens> {
  if (!authFlowAllowed(client, 'ALLOW_REFRESH_TOKEN_AUTH'))
    throw invalidParameter('REFRESH_TOKEN_AUTH flow not enabled for this client');
  const session = findSessionByRefreshToken(ctx.db, refreshToken);
  if (!session || session.clientId !== client.id) throw notAuthorized('Invalid Refresh Token');
  if (session.revokedAt !== null) throw notAuthorized('Refresh Token has been revoked');
  if (session.expiresAt <= ctx.now()) throw notAuthorized('Refresh Token has expired');
  const user = findUserBySub(ctx.db, session.userSub);
  if (!user) throw notAuthorized('Invalid Refresh Token');
  beforeIssue?.(user);
  if (!user.enabled) throw notAuthorized('User is disabled.');
  return issueTokens(ctx, {
    pool: requirePool(ctx.db, session.poolId),
    client,
    user,
    scope: session.scope,
    refresh: { originJti: session.originJti, authTime: session.authTime },
  });
}
