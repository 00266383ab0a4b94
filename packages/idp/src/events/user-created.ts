/**
 * User-creation notifications (issue 15; docs/operations.md "Provisioning users"): when a user is
 * created (AdminCreateUser, the seed, and any other creation path that calls
 * `ctx.notifyUserCreated`), the IdP POSTs the configured webhook URL (the access service's
 * `/provisioning/user-created`) with `Authorization: Bearer <JWT>`: a token signed with the pool's
 * own signing key (the one its JWKS publishes), `iss` the pool's issuer, `aud` the configured
 * audience, `token_use: user_created`, a 60 s lifetime and a fresh `jti`, carrying the user's
 * `sub`, profile claims and `cognito:groups`. The receiver verifies it through the JWKS: no shared
 * secret exists, and the token is never logged.
 *
 * Delivery never holds up or fails the creation: it runs after the user is stored, with a 5 s
 * timeout, and a failure is one warning in the log (the access service still records the user at
 * its first `/whoami` or attribute lookup).
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { UserCreatedWebhook } from '../config.js';
import type { IdpContext } from '../context.js';
import { SIGNING_ALG } from '../keys/key-store.js';
import { groupsOfUser } from '../model/groups.js';
import type { User } from '../model/users.js';
import { attributeClaims, groupClaims } from '../tokens/claims.js';

export const DEFAULT_WEBHOOK_AUDIENCE = 'ianode-access-service';
const LIFETIME_S = 60;

/** What the notifier logs with (pino's shape). */
export interface NotifyLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** The signed notification token of a created user. */
export async function userCreatedToken(ctx: IdpContext, poolId: string, user: User, audience: string): Promise<string> {
  const signing = await ctx.keys.signingKey(poolId);
  const iat = Math.floor(ctx.now() / 1000);
  const exp = iat + LIFETIME_S;
  const token = await new SignJWT({
    ...attributeClaims(user.attributes),
    ...groupClaims(groupsOfUser(ctx.db, user.sub)),
    'cognito:username': user.username,
    token_use: 'user_created',
  })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: signing.kid, typ: 'JWT' })
    .setIssuer(ctx.issuer(poolId))
    .setAudience(audience)
    .setSubject(user.sub)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(randomUUID())
    .sign(signing.key);
  // The key stays published while a token it signed is valid.
  ctx.keys.noteSigned(signing.kid, exp);
  return token;
}

/**
 * A notifier for `ctx.notifyUserCreated`. The returned function starts the delivery and answers
 * its promise (which never rejects); callers do not wait for it.
 */
export function createUserCreatedNotifier(ctx: IdpContext, webhook: UserCreatedWebhook, log: NotifyLog): (poolId: string, user: User) => Promise<void> {
  const audience = webhook.audience ?? DEFAULT_WEBHOOK_AUDIENCE;
  const target = new URL(webhook.url);
  const where = `${target.origin}${target.pathname}`; // never a query string in the log
  return async (poolId, user) => {
    try {
      const token = await userCreatedToken(ctx, poolId, user, audience);
      const response = await fetch(target, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
        signal: AbortSignal.timeout(webhook.timeoutMs ?? 5_000),
      });
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) {
        log.warn({ webhook: where, pool: poolId, sub: user.sub, status: response.status }, 'user-creation notification refused; the access service records the user at its first /whoami or lookup');
        return;
      }
      log.info({ webhook: where, pool: poolId, sub: user.sub }, 'user-creation notification delivered');
    } catch (error) {
      const cause = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      log.warn({ webhook: where, pool: poolId, sub: user.sub, cause }, 'user-creation notification not delivered; the access service records the user at its first /whoami or lookup');
    }
  };
}
