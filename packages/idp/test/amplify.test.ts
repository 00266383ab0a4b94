/**
 * Amplify v6 against the IdP, unchanged: `signIn` (its default flow is USER_SRP_AUTH), `signUp`,
 * `confirmSignUp`, `resetPassword`, `confirmResetPassword`; `userPoolEndpoint` points it at the
 * IdP. Amplify runs in Node (tokens in its in-memory store), no browser needed.
 */
import { Amplify } from '@aws-amplify/core';
import { confirmResetPassword, confirmSignUp, fetchAuthSession, resetPassword, signIn, signOut, signUp } from '@aws-amplify/auth';
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
  await idp.ok('UpdateUserPool', { UserPoolId: poolId, AutoVerifiedAttributes: ['email'], AdminCreateUserConfig: { AllowAdminCreateUserOnly: false } });
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

  it('signUp → confirmSignUp → signIn, and resetPassword → confirmResetPassword, with codes from the outbox', async () => {
    const code = async (username: string, purpose: string) => {
      const { Messages } = await idp.ok<{ Messages: { Purpose: string; Code: string }[] }>('IanodeIdp.ListMessages', { UserPoolId: poolId, Username: username });
      return Messages.find((m) => m.Purpose === purpose)!.Code;
    };
    const up = await signUp({ username: 'ben', password: 'Ben-pass-1234!', options: { userAttributes: { email: 'ben@example.org' } } });
    expect(up).toMatchObject({ isSignUpComplete: false, nextStep: { signUpStep: 'CONFIRM_SIGN_UP', codeDeliveryDetails: { destination: 'b***@e***', deliveryMedium: 'EMAIL' } } });
    expect(await confirmSignUp({ username: 'ben', confirmationCode: await code('ben', 'SIGN_UP') })).toMatchObject({ isSignUpComplete: true });
    expect(await signIn({ username: 'ben', password: 'Ben-pass-1234!' })).toMatchObject({ isSignedIn: true });
    await signOut();

    const reset = await resetPassword({ username: 'ben' });
    expect(reset.nextStep.resetPasswordStep).toBe('CONFIRM_RESET_PASSWORD_WITH_CODE');
    await confirmResetPassword({ username: 'ben', confirmationCode: await code('ben', 'FORGOT_PASSWORD'), newPassword: 'Ben-new-pass-12!' });
    await expect(signIn({ username: 'ben', password: 'Ben-pass-1234!' })).rejects.toMatchObject({ name: 'NotAuthorizedException' });
    expect(await signIn({ username: 'ben', password: 'Ben-new-pass-12!' })).toMatchObject({ isSignedIn: true });
    await signOut();
  });
});
