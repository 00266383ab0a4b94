/**
 * SignUp, ConfirmSignUp, ResendConfirmationCode (public, as in Cognito) and AdminConfirmSignUp.
 * SignUp is refused with NotAuthorizedException in pools with
 * `AdminCreateUserConfig.AllowAdminCreateUserOnly` (this IdP's default for new pools). A new user is
 * UNCONFIRMED; when the pool auto-verifies `email` and the user gave one, a code goes to the outbox
 * and ConfirmSignUp with it confirms the user and marks the address verified. Otherwise only
 * AdminConfirmSignUp confirms. Either confirmation announces the new user (`auth/user-created.ts`).
 */
import { randomUUID } from 'node:crypto';
import { passwordCredentials } from '../../auth/credentials.js';
import { announceUserCreated } from '../../auth/user-created.js';
import type { IdpContext } from '../../context.js';
import { checkPasswordPolicy } from '../../crypto/password-policy.js';
import { IdpError, invalidParameter, notAuthorized } from '../../errors.js';
import { checkAttributes, type AttributeType } from '../../model/attributes.js';
import { codeMismatch, consumeCode, dropCode } from '../../model/confirmation-codes.js';
import { requirePool, type Pool } from '../../model/pools.js';
import { findUser, findUserBySub, insertUser, newUser, requireUser, saveUser, type User } from '../../model/users.js';
import { operation } from '../operation.js';
import { AttributeList, bool, ClientId, ConfirmationCode, obj, Password, SecretHash, strMap, Username, UserPoolId } from '../schema.js';
import { deliveryDetails, publicClient, sendCode, type CodeDeliveryDetails } from './code-delivery.js';
import { checkEmailUnique, storedUsername } from './users.js';

const autoVerifiesEmail = (pool: Pool, user: User): boolean =>
  pool.config.AutoVerifiedAttributes.includes('email') && Boolean(user.attributes.email);

interface SignUpRequest {
  ClientId: string;
  Username: string;
  Password: string;
  UserAttributes?: AttributeType[];
  SecretHash?: string;
}

async function signUp(ctx: IdpContext, req: SignUpRequest): Promise<object> {
  const { pool } = publicClient(ctx, req.ClientId, req.Username, req.SecretHash);
  if (pool.config.AllowAdminCreateUserOnly) throw notAuthorized('SignUp is not permitted for this user pool.');
  const attributes = checkAttributes(pool, req.UserAttributes ?? []);
  for (const name of Object.keys(attributes))
    if (name.endsWith('_verified')) throw invalidParameter(`Cannot set ${name} at sign-up.`);
  const sub = randomUUID();
  const username = storedUsername(pool, req.Username, attributes, sub);
  checkPasswordPolicy(req.Password, pool.config.PasswordPolicy);
  const credentials = await passwordCredentials(ctx, pool.id, username, req.Password);
  const user = newUser({ poolId: pool.id, username, sub, ...credentials, status: 'UNCONFIRMED', attributes }, ctx.now());
  const delivery = ctx.db.tx((): CodeDeliveryDetails | undefined => {
    if (findUser(ctx.db, pool, req.Username)) throw new IdpError('UsernameExistsException', 'User already exists');
    checkEmailUnique(ctx, pool, attributes, null);
    insertUser(ctx.db, pool, user);
    return autoVerifiesEmail(pool, user) ? sendCode(ctx, user, 'SIGN_UP') : undefined;
  });
  return { UserConfirmed: false, UserSub: sub, ...(delivery ? { CodeDeliveryDetails: delivery } : {}) };
}

function confirm(ctx: IdpContext, user: User, verifyEmail: boolean): User {
  const confirmed: User = {
    ...user,
    status: 'CONFIRMED',
    attributes: verifyEmail ? { ...user.attributes, email_verified: 'true' } : user.attributes,
    updatedAt: ctx.now(),
  };
  saveUser(ctx.db, confirmed);
  return confirmed;
}

const cannotConfirm = (user: User) => notAuthorized(`User cannot be confirmed. Current status is ${user.status}`);

export const signUpOperations = [
  operation<SignUpRequest>(
    'SignUp',
    false,
    obj(
      {
        ClientId,
        Username,
        Password,
        UserAttributes: AttributeList,
        ValidationData: AttributeList,
        SecretHash,
        ClientMetadata: strMap(),
      },
      ['ClientId', 'Username', 'Password'],
    ),
    signUp,
  ),

  operation<{ ClientId: string; Username: string; ConfirmationCode: string; SecretHash?: string }>(
    'ConfirmSignUp',
    false,
    obj({ ClientId, Username, ConfirmationCode, SecretHash, ForceAliasCreation: bool, ClientMetadata: strMap() }, [
      'ClientId',
      'Username',
      'ConfirmationCode',
    ]),
    async (ctx, body, request) => {
      const { pool } = publicClient(ctx, body.ClientId, body.Username, body.SecretHash);
      const user = findUser(ctx.db, pool, body.Username);
      if (!user) throw codeMismatch(); // as for a wrong code: the answer does not tell which names exist
      if (user.status !== 'UNCONFIRMED') throw cannotConfirm(user);
      consumeCode(ctx.db, user.sub, 'SIGN_UP', body.ConfirmationCode, ctx.now());
      const confirmed = ctx.db.tx(() => {
        const current = findUserBySub(ctx.db, user.sub);
        if (!current || current.status !== 'UNCONFIRMED') throw cannotConfirm(current ?? user);
        return confirm(ctx, current, autoVerifiesEmail(pool, current));
      });
      await announceUserCreated(ctx, confirmed, 'ConfirmSignUp', request.log);
      return {};
    },
  ),

  operation<{ ClientId: string; Username: string; SecretHash?: string }>(
    'ResendConfirmationCode',
    false,
    obj({ ClientId, Username, SecretHash, ClientMetadata: strMap() }, ['ClientId', 'Username']),
    (ctx, body) => {
      const { pool } = publicClient(ctx, body.ClientId, body.Username, body.SecretHash);
      const user = findUser(ctx.db, pool, body.Username);
      if (!user) return { CodeDeliveryDetails: deliveryDetails(body.Username) };
      if (user.status !== 'UNCONFIRMED') throw invalidParameter('User is already confirmed.');
      if (!autoVerifiesEmail(pool, user)) throw invalidParameter('Auto verification not turned on.');
      return { CodeDeliveryDetails: sendCode(ctx, user, 'SIGN_UP') };
    },
  ),

  operation<{ UserPoolId: string; Username: string }>(
    'AdminConfirmSignUp',
    true,
    obj({ UserPoolId, Username, ClientMetadata: strMap() }, ['UserPoolId', 'Username']),
    async (ctx, body, request) => {
      const pool = requirePool(ctx.db, body.UserPoolId);
      const confirmed = ctx.db.tx(() => {
        const user = requireUser(ctx.db, pool, body.Username);
        if (user.status !== 'UNCONFIRMED') throw cannotConfirm(user);
        dropCode(ctx.db, user.sub, 'SIGN_UP');
        return confirm(ctx, user, false);
      });
      await announceUserCreated(ctx, confirmed, 'AdminConfirmSignUp', request.log);
      return {};
    },
  ),
];
