/**
 * ForgotPassword and ConfirmForgotPassword (public) and AdminResetUserPassword. A reset code goes
 * to the outbox (`model/confirmation-codes.ts`) for a user with a verified e-mail address; an
 * unknown name gets the same kind of answer as a known one (Cognito's PreventUserExistenceErrors).
 */
import { passwordCredentials } from '../../auth/credentials.js';
import { checkPasswordPolicy } from '../../crypto/password-policy.js';
import { invalidParameter, notAuthorized } from '../../errors.js';
import { codeMismatch, consumeCode } from '../../model/confirmation-codes.js';
import { requirePool } from '../../model/pools.js';
import { clearFailures } from '../../model/throttle.js';
import { findUser, findUserBySub, requireUser, saveUser, throttleKey, type User } from '../../model/users.js';
import { operation } from '../operation.js';
import { ClientId, ConfirmationCode, obj, Password, SecretHash, strMap, Username, UserPoolId } from '../schema.js';
import { deliveryDetails, publicClient, sendCode } from './code-delivery.js';

const hasVerifiedEmail = (user: User): boolean => Boolean(user.attributes.email) && user.attributes.email_verified === 'true';

export const forgotPasswordOperations = [
  operation<{ ClientId: string; Username: string; SecretHash?: string }>(
    'ForgotPassword',
    false,
    obj({ ClientId, Username, SecretHash, ClientMetadata: strMap(), AnalyticsMetadata: obj({}), UserContextData: obj({}) }, [
      'ClientId',
      'Username',
    ]),
    (ctx, body) => {
      const { pool } = publicClient(ctx, body.ClientId, body.Username, body.SecretHash);
      const user = findUser(ctx.db, pool, body.Username);
      if (!user) return { CodeDeliveryDetails: deliveryDetails(body.Username) };
      if (!user.enabled) throw notAuthorized('User is disabled.');
      if (!hasVerifiedEmail(user))
        throw invalidParameter('Cannot reset password for the user as there is no registered/verified email or phone_number');
      return { CodeDeliveryDetails: sendCode(ctx, user, 'FORGOT_PASSWORD') };
    },
  ),

  operation<{ ClientId: string; Username: string; ConfirmationCode: string; Password: string; SecretHash?: string }>(
    'ConfirmForgotPassword',
    false,
    obj({ ClientId, Username, ConfirmationCode, Password, SecretHash, ClientMetadata: strMap() }, [
      'ClientId',
      'Username',
      'ConfirmationCode',
      'Password',
    ]),
    async (ctx, body) => {
      const { pool } = publicClient(ctx, body.ClientId, body.Username, body.SecretHash);
      checkPasswordPolicy(body.Password, pool.config.PasswordPolicy); // before the code, so a bad password does not spend it
      const user = findUser(ctx.db, pool, body.Username);
      if (!user) throw codeMismatch();
      consumeCode(ctx.db, user.sub, 'FORGOT_PASSWORD', body.ConfirmationCode, ctx.now());
      const credentials = await passwordCredentials(ctx, pool.id, user.username, body.Password);
      ctx.db.tx(() => {
        const current = findUserBySub(ctx.db, user.sub);
        if (!current) throw codeMismatch();
        const now = ctx.now();
        const status = current.status === 'RESET_REQUIRED' || current.status === 'FORCE_CHANGE_PASSWORD' ? 'CONFIRMED' : current.status;
        saveUser(ctx.db, { ...current, ...credentials, status, passwordSetAt: now, updatedAt: now });
        clearFailures(ctx.db, pool.id, throttleKey(current, current.username));
      });
      return {};
    },
  ),

  operation<{ UserPoolId: string; Username: string }>(
    'AdminResetUserPassword',
    true,
    obj({ UserPoolId, Username, ClientMetadata: strMap() }, ['UserPoolId', 'Username']),
    (ctx, body) => {
      const pool = requirePool(ctx.db, body.UserPoolId);
      ctx.db.tx(() => {
        const user = requireUser(ctx.db, pool, body.Username);
        // The password stops working for sign-in (PasswordResetRequiredException after it) until
        // ConfirmForgotPassword with the code, or AdminSetUserPassword, sets a new one.
        const reset: User = { ...user, status: 'RESET_REQUIRED', updatedAt: ctx.now() };
        saveUser(ctx.db, reset);
        if (hasVerifiedEmail(reset)) sendCode(ctx, reset, 'FORGOT_PASSWORD');
      });
      return {};
    },
  ),
];
