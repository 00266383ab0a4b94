/**
 * Shared by the sign-up and forgot-password operations: the public client check (client, pool,
 * SecretHash) and "sending" a code, which writes it to the outbox (`model/confirmation-codes.ts`)
 * and answers Cognito's `CodeDeliveryDetails` with the address masked.
 */
import { checkSecretHash } from '../../auth/sign-in.js';
import type { IdpContext } from '../../context.js';
import { requireClient, type Client } from '../../model/clients.js';
import { issueCode, maskEmail, type CodePurpose } from '../../model/confirmation-codes.js';
import { requirePool, type Pool } from '../../model/pools.js';
import type { User } from '../../model/users.js';

export interface CodeDeliveryDetails {
  Destination: string;
  DeliveryMedium: 'EMAIL';
  AttributeName: 'email';
}

/** The app client and its pool for a public operation; SECRET_HASH when the client has a secret. */
export function publicClient(ctx: IdpContext, clientId: string, username: string, secretHash: string | undefined): { client: Client; pool: Pool } {
  const client = requireClient(ctx.db, clientId);
  checkSecretHash(client, secretHash, username);
  return { client, pool: requirePool(ctx.db, client.poolId) };
}

/** Issues a code to the user's e-mail address (the outbox) and describes the delivery. */
export function sendCode(ctx: IdpContext, user: User, purpose: CodePurpose): CodeDeliveryDetails {
  const email = user.attributes.email ?? null;
  issueCode(ctx.db, { poolId: user.poolId, sub: user.sub, purpose, destination: email, now: ctx.now() });
  return deliveryDetails(email ?? '');
}

/** What Cognito answers, also for a name that is no user (PreventUserExistenceErrors). */
export const deliveryDetails = (email: string): CodeDeliveryDetails => ({
  Destination: maskEmail(email),
  DeliveryMedium: 'EMAIL',
  AttributeName: 'email',
});
