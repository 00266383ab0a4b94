/**
 * What is stored when a password is set: the scrypt hash (password sign-in, OIDC page) and the SRP
 * salt and verifier (USER_SRP_AUTH). Every path that sets a password goes through here.
 */
import type { IdpContext } from '../context.js';
import { hashPassword } from '../crypto/password.js';
import { createVerifier } from '../crypto/srp.js';
import type { User } from '../model/users.js';

export type PasswordCredentials = Pick<User, 'passwordHash' | 'srpSalt' | 'srpVerifier'>;

/** `userId` is the stored user name (Cognito's USER_ID_FOR_SRP), which the SRP verifier depends on. */
export async function passwordCredentials(ctx: IdpContext, poolId: string, userId: string, password: string): Promise<PasswordCredentials> {
  const passwordHash = await hashPassword(password, ctx.scryptCost);
  const { salt, verifier } = createVerifier(poolId, userId, password);
  return { passwordHash, srpSalt: salt, srpVerifier: verifier };
}
