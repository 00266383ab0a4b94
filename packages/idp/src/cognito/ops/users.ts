/**
 * AdminCreateUser, AdminGetUser, AdminDeleteUser, AdminSetUserPassword, AdminUpdateUserAttributes,
 * AdminEnableUser, AdminDisableUser, AdminUserGlobalSignOut.
 */
import { randomUUID } from 'node:crypto';
import type { IdpContext } from '../../context.js';
import { passwordCredentials, type PasswordCredentials } from '../../auth/credentials.js';
import { checkPasswordPolicy } from '../../crypto/password-policy.js';
import { IdpError, invalidParameter, userNotFound } from '../../errors.js';
import { checkAttributes, toAttributeList, type AttributeType } from '../../model/attributes.js';
import { requirePool, type Pool } from '../../model/pools.js';
import { revokeSubject } from '../../model/revocations.js';
import { revokeUserSessions } from '../../model/sessions.js';
import { clearFailures } from '../../model/throttle.js';
import {
  deleteUser,
  emailInUse,
  findUser,
  insertUser,
  newUser,
  requireUser,
  saveUser,
  throttleKey,
  type User,
} from '../../model/users.js';
import { operation } from '../operation.js';
import { AttributeList, bool, enumOf, obj, Password, strMap, Username, UserPoolId } from '../schema.js';
import { epochSeconds, userShape } from '../shapes.js';

export interface AdminCreateUserRequest {
  UserPoolId: string;
  Username: string;
  UserAttributes?: AttributeType[];
  TemporaryPassword?: string;
  MessageAction?: 'RESEND' | 'SUPPRESS';
}

const PoolUser = obj({ UserPoolId, Username }, ['UserPoolId', 'Username']);

const emailSignIn = (pool: Pool) =>
  pool.config.UsernameAttributes.includes('email') || pool.config.AliasAttributes.includes('email');

export function checkEmailUnique(ctx: IdpContext, pool: Pool, attributes: Record<string, string>, sub: string | null): void {
  const email = attributes.email;
  if (email && emailSignIn(pool) && emailInUse(ctx.db, pool, email, sub))
    throw new IdpError('UsernameExistsException', 'An account with the given email already exists.');
}

/**
 * The user name a new user is stored under: the given one, or, in a pool whose users sign in with
 * their e-mail address, the user's `sub` (the given name must then be an address and becomes the
 * `email` attribute unless one was given), as in Cognito. AdminCreateUser and SignUp share it.
 */
export function storedUsername(pool: Pool, given: string, attributes: Record<string, string>, sub: string): string {
  if (!pool.config.UsernameAttributes.includes('email')) return given;
  if (!/^[^\s@]+@[^\s@]+$/.test(given)) throw invalidParameter('Username should be an email.');
  attributes.email ??= given;
  return sub;
}

/**
 * Creates a user in FORCE_CHANGE_PASSWORD. In a pool whose UsernameAttributes include `email`, the
 * given user name is the e-mail address and the stored user name is the user's `sub`, as in Cognito.
 * No message is ever delivered: without TemporaryPassword the user cannot sign in until an admin
 * sets a password.
 */
export async function adminCreateUser(ctx: IdpContext, req: AdminCreateUserRequest, options: { notify?: boolean } = {}): Promise<User> {
  const pool = requirePool(ctx.db, req.UserPoolId);
  if (req.MessageAction === 'RESEND') return requireUser(ctx.db, pool, req.Username);
  const attributes = checkAttributes(pool, req.UserAttributes ?? []);
  const sub = randomUUID();
  const username = storedUsername(pool, req.Username, attributes, sub);
  if (req.TemporaryPassword !== undefined) checkPasswordPolicy(req.TemporaryPassword, pool.config.PasswordPolicy);
  const credentials: PasswordCredentials =
    req.TemporaryPassword !== undefined
      ? await passwordCredentials(ctx, pool.id, username, req.TemporaryPassword)
      : { passwordHash: null, srpSalt: null, srpVerifier: null };
  const user = newUser({ poolId: pool.id, username, sub, ...credentials, status: 'FORCE_CHANGE_PASSWORD', attributes }, ctx.now());
  ctx.db.tx(() => {
    if (findUser(ctx.db, pool, req.Username)) throw new IdpError('UsernameExistsException', 'User account already exists');
    checkEmailUnique(ctx, pool, attributes, null);
    insertUser(ctx.db, pool, user);
  });
  // The access service is told (events/user-created.ts); the seed tells it after adding groups.
  if (options.notify !== false) ctx.notifyUserCreated(pool.id, user);
  return user;
}

export async function adminSetUserPassword(
  ctx: IdpContext,
  poolId: string,
  username: string,
  password: string,
  permanent: boolean,
): Promise<void> {
  const pool = requirePool(ctx.db, poolId);
  const before = requireUser(ctx.db, pool, username);
  checkPasswordPolicy(password, pool.config.PasswordPolicy);
  const credentials = await passwordCredentials(ctx, pool.id, before.username, password);
  ctx.db.tx(() => {
    const user = requireUser(ctx.db, pool, username); // again: it may have gone while hashing
    if (user.sub !== before.sub) throw userNotFound();
    const now = ctx.now();
    saveUser(ctx.db, {
      ...user,
      ...credentials,
      status: permanent ? 'CONFIRMED' : 'FORCE_CHANGE_PASSWORD',
      passwordSetAt: now,
      updatedAt: now,
    });
    clearFailures(ctx.db, pool.id, throttleKey(user, user.username));
  });
}

export function adminUpdateUserAttributes(ctx: IdpContext, poolId: string, username: string, list: AttributeType[]): void {
  const pool = requirePool(ctx.db, poolId);
  const changes = checkAttributes(pool, list);
  ctx.db.tx(() => {
    const user = requireUser(ctx.db, pool, username);
    for (const name of Object.keys(changes)) {
      const custom = pool.config.CustomAttributes.find((a) => `custom:${a.Name}` === name);
      if (custom && !custom.Mutable && name in user.attributes)
        throw invalidParameter(`Cannot modify the non-mutable attribute ${name}`);
    }
    const attributes = { ...user.attributes, ...changes };
    // A new e-mail address is unverified unless the request says otherwise.
    if (changes.email !== undefined && changes.email !== user.attributes.email && changes.email_verified === undefined)
      attributes.email_verified = 'false';
    checkEmailUnique(ctx, pool, attributes, user.sub);
    saveUser(ctx.db, { ...user, attributes, updatedAt: ctx.now() });
  });
}

function setEnabled(ctx: IdpContext, poolId: string, username: string, enabled: boolean): object {
  const pool = requirePool(ctx.db, poolId);
  const user = requireUser(ctx.db, pool, username);
  ctx.db.tx(() => {
    saveUser(ctx.db, { ...user, enabled, updatedAt: ctx.now() });
    // Tokens issued before the disable stay refused after a later enable: the user signs in anew.
    if (!enabled) revokeSubject(ctx.db, pool.id, user.sub, ctx.now(), 'disabled');
  });
  return {};
}

export const userOperations = [
  operation<AdminCreateUserRequest>(
    'AdminCreateUser',
    true,
    obj(
      {
        UserPoolId,
        Username,
        UserAttributes: AttributeList,
        ValidationData: AttributeList,
        TemporaryPassword: Password,
        MessageAction: enumOf('RESEND', 'SUPPRESS'),
        ClientMetadata: strMap(),
      },
      ['UserPoolId', 'Username'],
    ),
    async (ctx, body) => ({ User: userShape(await adminCreateUser(ctx, body)) }),
  ),

  operation<{ UserPoolId: string; Username: string }>('AdminGetUser', true, PoolUser, (ctx, body) => {
    const user = requireUser(ctx.db, requirePool(ctx.db, body.UserPoolId), body.Username);
    return {
      Username: user.username,
      UserAttributes: toAttributeList(user.sub, user.attributes),
      UserCreateDate: epochSeconds(user.createdAt),
      UserLastModifiedDate: epochSeconds(user.updatedAt),
      Enabled: user.enabled,
      UserStatus: user.status,
    };
  }),

  operation<{ UserPoolId: string; Username: string }>('AdminDeleteUser', true, PoolUser, (ctx, body) => {
    const pool = requirePool(ctx.db, body.UserPoolId);
    const user = requireUser(ctx.db, pool, body.Username);
    ctx.db.tx(() => {
      if (!deleteUser(ctx.db, user.sub)) throw userNotFound();
      revokeSubject(ctx.db, pool.id, user.sub, ctx.now(), 'deleted');
    });
    return {};
  }),

  operation<{ UserPoolId: string; Username: string; Password: string; Permanent?: boolean }>(
    'AdminSetUserPassword',
    true,
    obj({ UserPoolId, Username, Password, Permanent: bool }, ['UserPoolId', 'Username', 'Password']),
    async (ctx, body) => {
      await adminSetUserPassword(ctx, body.UserPoolId, body.Username, body.Password, body.Permanent ?? false);
      return {};
    },
  ),

  operation<{ UserPoolId: string; Username: string; UserAttributes: AttributeType[] }>(
    'AdminUpdateUserAttributes',
    true,
    obj({ UserPoolId, Username, UserAttributes: AttributeList, ClientMetadata: strMap() }, [
      'UserPoolId',
      'Username',
      'UserAttributes',
    ]),
    (ctx, body) => {
      adminUpdateUserAttributes(ctx, body.UserPoolId, body.Username, body.UserAttributes);
      return {};
    },
  ),

  operation<{ UserPoolId: string; Username: string }>('AdminEnableUser', true, PoolUser, (ctx, body) =>
    setEnabled(ctx, body.UserPoolId, body.Username, true),
  ),
  operation<{ UserPoolId: string; Username: string }>('AdminDisableUser', true, PoolUser, (ctx, body) =>
    setEnabled(ctx, body.UserPoolId, body.Username, false),
  ),

  operation<{ UserPoolId: string; Username: string }>('AdminUserGlobalSignOut', true, PoolUser, (ctx, body) => {
    const pool = requirePool(ctx.db, body.UserPoolId);
    const user = requireUser(ctx.db, pool, body.Username);
    ctx.db.tx(() => {
      revokeUserSessions(ctx.db, user.sub, ctx.now());
      revokeSubject(ctx.db, pool.id, user.sub, ctx.now(), 'global-sign-out');
    });
    return {};
  }),
];

