/**
 * Amplify v6 `signIn` against the IdP, unchanged: its default flow is USER_SRP_AUTH, and
 * `userPoolEndpoint` points it at the IdP. Amplify runs in Node (tokens in its in-memory store).
 */
import { Amplify } from '@aws-amplify/core';
import { fetchAuthSession, signIn, signOut } from '@aws-amplify/auth';
import { cognitoUserPoolsTokenProvider } from '@aws-amplify/auth/cognito';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPoolAndClient, createUser, PASSWORD, startIdp, verifyWithJwks, type TestIdp } from './support/harness.js';

let idp: TestIdp;
let poolId: string;
let clientId: string;

beforeAll(async () => {
  idp = await startIdp();
  ({ poolId, clientId } = await createPoolAndClient(idp, {
    ExplicitAuthFlows: ['ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
    EnableTokenRevocation: true,
  }));
  await createUser(idp, poolId, 'amy', { attributes: { email: 'amy@example.org', email_verified: 'true' } });
  // What `Amplify.configure` of the aws-amplify umbrella package does: the auth config plus its token provider.
  const auth = { Cognito: { userPoolId: poolId, userPoolClientId: clientId, userPoolEndpoint: idp.base } };
  cognitoUserPoolsTokenProvider.setAuthConfig(auth);
  Amplify.configure({ Auth: auth }, { Auth: { tokenProvider: cognitoUserPoolsTokenProvider } });
});
afterAll(() => idp?.close());

describe('Amplify v6 signIn (USER_SRP_AUTH by default)', () => {
  it('signs in; the session tokens verify against the JWKS', async () => {
    const result = await signIn({ username: 'amy', password: PASSWORD });
    expect(result).toMatchObject({ isSignedIn: true, nextStep: { signInStep: 'DONE' } });
    const { tokens } = await fetchAuthSession();
    const id = await verifyWithJwks(idp, poolId, tokens!.idToken!.toString(), { audience: clientId });
    expect(id).toMatchObject({ 'cognito:username': 'amy', email: 'amy@example.org' });
    await signOut();
  });

  it('a wrong password is NotAuthorizedException', async () => {
    await expect(signIn({ username: 'amy', password: 'Wrong-password-1' })).rejects.toMatchObject({ name: 'NotAuthorizedException' });
  });
});
