/**
 * Password sign-in, shared by InitiateAuth, AdminInitiateAuth and the OIDC sign-in page:
 * throttle check, password check (an unknown user costs the same scrypt time and gets the same
 * message), then the user's state: disabled, needs a new password (challenge), or signed in.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IdpContext } from '../context.js';
import { verifyAgainstDummy, verifyPassword } from '../crypto/password.js';
import { createVerifier } from '../crypto/srp.js';
import { passwordCredentials } from './credentials.js';
import { checkPasswordPolicy } from '../crypto/password-policy.js';
import { newOpaqueToken } from '../crypto/random.js';
import { IdpError, invalidParameter, notAuthorized } from '../errors.js';
import { checkAttributes } from '../model/attributes.js';
import type { Client } from '../model/clients.js';
import type { Pool } from '../model/pools.js';
import { insertChallenge, takeChallenge } from '../model/sessions.js';
import { clearFailures, isLockedOut, recordFailure } from '../model/throttle.js';
import { findUser, findUserBySub, saveUser, throttleKey, type User } from '../model/users.js';

export type SignInOutcome =
  | { kind: 'signed-in'; user: User }
  | { kind: 'new-password-required'; user: User; session: string };

const DAY_MS = 86_400_000;

export async function signInWithPassword(
  ctx: IdpContext,
  pool: Pool,
  client: Client,
  username: string,
  password: string,
): Promise<SignInOutcome> {
  const user = findUser(ctx.db, pool, username);
  const key = throttleKey(user, username);
  const now = ctx.now();
  if (isLockedOut(ctx.db, pool.id, key, now)) throw notAuthorized('Password attempts exceeded');

  const ok = user?.passwordHash ? await verifyPassword(password, user.passwordHash) : await verifyAgainstDummy(password, ctx.scryptCost);
  if (!user || !ok) {
    recordFailure(ctx.db, ctx.throttle, pool.id, key, ctx.now());
    throw notAuthorized();
  }
  clearFailures(ctx.db, pool.id, key);
  // A user from before SRP verifiers existed gets one now, from the password just verified.
  if (!user.srpVerifier) {
    const { salt, verifier } = createVerifier(pool.id, user.username, password);
    ctx.db.run('UPDATE users SET srp_salt = ?, srp_verifier = ? WHERE sub = ? AND srp_verifier IS NULL', salt, verifier, user.sub);
  }
  return afterCredentials(ctx, pool, client, user);
}

/** A required AuthParameters / ChallengeResponses entry (absent or empty: InvalidParameterException). */
export function requiredParameter(params: Readonly<Record<string, string>> | undefined, name: string): string {
  const v = params?.[name];
  if (v === undefined || v === '') throw invalidParameter(`Missing required parameter ${name}`);
  return v;
}

/**
 * What a sign-in whose credentials were proven (password or SRP) leads to, by the user's state:
 * disabled, unconfirmed, reset required, a temporary password (NEW_PASSWORD_REQUIRED), or signed in.
 */
export function afterCredentials(ctx: IdpContext, pool: Pool, client: Client, user: User): SignInOutcome {
  const now = ctx.now();
  if (!user.enabled) throw notAuthorized('User is disabled.');
  switch (user.status) {
    case 'CONFIRMED':
      return { kind: 'signed-in', user };
    case 'FORCE_CHANGE_PASSWORD': {
      const validDays = pool.config.PasswordPolicy.TemporaryPasswordValidityDays;
      if (user.passwordSetAt !== null && now - user.passwordSetAt > validDays * DAY_MS)
        throw notAuthorized('Temporary password has expired and must be reset by an administrator.');
      return { kind: 'new-password-required', user, session: startChallenge(ctx, client, user) };
    }
    case 'RESET_REQUIRED':
      throw new IdpError('PasswordResetRequiredException', 'Password reset required for the user');
    case 'UNCONFIRMED':
      throw new IdpError('UserNotConfirmedException', 'User is not confirmed.');
  }
}

function startChallenge(ctx: IdpContext, client: Client, user: User): string {
  const session = newOpaqueToken(48);
  insertChallenge(ctx.db, session, {
    poolId: user.poolId,
    clientId: client.id,
    userSub: user.sub,
    expiresAt: ctx.now() + client.config.AuthSessionValidity * 60_000,
  });
  return session;
}

/** The `ChallengeParameters` of NEW_PASSWORD_REQUIRED. */
export function newPasswordChallengeParameters(user: User): Record<string, string> {
  const writable = Object.fromEntries(Object.entries(user.attributes).filter(([n]) => !n.endsWith('_verified')));
  return { USER_ID_FOR_SRP: user.username, requiredAttributes: '[]', userAttributes: JSON.stringify(writable) };
}

/**
 * Answers NEW_PASSWORD_REQUIRED: the session must be the one issued to this client for this user
 * and still valid; the new password must meet the policy. The user becomes CONFIRMED.
 */
export async function completeNewPassword(
  ctx: IdpContext,
  pool: Pool,
  client: Client,
  session: string,
  username: string,
  newPassword: string,
  attributes: Record<string, string>,
): Promise<User> {
  checkPasswordPolicy(newPassword, pool.config.PasswordPolicy);
  const extra = checkAttributes(
    pool,
    Object.entries(attributes).map(([Name, Value]) => ({ Name, Value })),
  );
  const challenge = takeChallenge(ctx.db, session, ctx.now());
  const user = challenge && findUserBySub(ctx.db, challenge.userSub);
  const named = findUser(ctx.db, pool, username);
  if (!challenge || !user || challenge.clientId !== client.id || challenge.poolId !== pool.id || named?.sub !== user.sub)
    throw notAuthorized('Invalid session for the user, session is expired.');
  if (!user.enabled) throw notAuthorized('User is disabled.');
  const credentials = await passwordCredentials(ctx, pool.id, user.username, newPassword);
  const now = ctx.now();
  const updated: User = {
    ...user,
    ...credentials,
    status: 'CONFIRMED',
    passwordSetAt: now,
    attributes: { ...user.attributes, ...extra },
    updatedAt: now,
  };
  saveUser(ctx.db, updated);
  return updated;
}

/** SECRET_HASH = Base64(HMAC-SHA256(client secret, user name + client id)); required when the client has a secret. */
export function checkSecretHash(client: Client, secretHash: string | undefined, ...usernames: string[]): void {
  if (!client.secret) return;
  if (!secretHash) throw notAuthorized(`Client ${client.id} is configured with secret but SECRET_HASH was not received`);
  const given = Buffer.from(secretHash, 'base64');
  const matches = usernames.some((name) => {
    const expected = createHmac('sha256', client.secret ?? '').update(name + client.id).digest();
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!matches) throw notAuthorized(`Unable to verify secret hash for client ${client.id}`);
}
