import { createHmac } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUser, PASSWORD, signIn, startIdpWithPool, verifyWithJwks, type AuthResult, type TestIdp } from './support/harness.js';

// Every test gets a fresh IdP (and clock) with user ivy: clock advances, revocations and clients made
// by one test never reach another.
let idp: TestIdp, poolId: string, clientId: string;
beforeEach(async () => {
  ({ idp, poolId, clientId } = await startIdpWithPool((f) =>
    createUser(f.idp, f.poolId, 'ivy', {
      attributes: { email: 'ivy@example.org', email_verified: 'true', 'custom:clearance': 'TS', name: 'Ivy' },
      groups: ['ianode_admin', 'ianode_read'],
    }),
  ));
});
afterEach(() => idp.close());

type AuthBody = { AuthenticationResult?: AuthResult; ChallengeName?: string; Session?: string; ChallengeParameters?: Record<string, string>; __type?: string; message?: string };

/** Answers the NEW_PASSWORD_REQUIRED challenge of a sign-in's session (RespondToAuthChallenge on the test client). */
const answerNewPassword = (session: string | undefined, responses: Record<string, string>) =>
  idp.call<AuthBody>('RespondToAuthChallenge', { ClientId: clientId, ChallengeName: 'NEW_PASSWORD_REQUIRED', Session: session, ChallengeResponses: responses });

describe('InitiateAuth USER_PASSWORD_AUTH', () => {
  it('returns the SPEC §7 token set; the ID token verifies against the JWKS with every claim', async () => {
    const res = await signIn(idp, clientId, 'ivy');
    expect(res.status).toBe(200);
    const r = res.body.AuthenticationResult!;
    expect(r).toMatchObject({ ExpiresIn: 3600, TokenType: 'Bearer' });
    expect(r.RefreshToken).toMatch(/^[A-Za-z0-9_-]{64}$/);

    const header = decodeProtectedHeader(r.IdToken);
    expect(header.alg).toBe('RS256');
    const jwks = (await (await fetch(`${idp.base}/${poolId}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toContain(header.kid);

    const id = await verifyWithJwks(idp, poolId, r.IdToken, { audience: clientId });
    expect(id.sub).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(id).toMatchObject({
      aud: clientId,
      iss: `${idp.url}/${poolId}`,
      token_use: 'id',
      'cognito:username': 'ivy',
      email: 'ivy@example.org',
      email_verified: true,
      'cognito:groups': ['ianode_admin', 'ianode_read'],
      'custom:clearance': 'TS',
      name: 'Ivy',
    });
    for (const claim of ['auth_time', 'iat', 'exp', 'jti', 'origin_jti', 'event_id']) expect(id[claim]).toBeDefined();
    expect(id.exp! - id.iat!).toBe(3600);

    const access = await verifyWithJwks(idp, poolId, r.AccessToken);
    expect(access).toMatchObject({
      token_use: 'access',
      client_id: clientId,
      username: 'ivy',
      scope: 'aws.cognito.signin.user.admin',
      'cognito:groups': ['ianode_admin', 'ianode_read'],
      origin_jti: id.origin_jti,
      event_id: id.event_id,
    });
    expect(access.aud).toBeUndefined();
  });

  it('uses the client validity settings for lifetimes', async () => {
    const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string } }>('CreateUserPoolClient', {
      UserPoolId: poolId,
      ClientName: 'short',
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      IdTokenValidity: 5,
      AccessTokenValidity: 10,
      RefreshTokenValidity: 2,
      TokenValidityUnits: { IdToken: 'minutes', AccessToken: 'minutes', RefreshToken: 'hours' },
    });
    const r = (await signIn(idp, UserPoolClient.ClientId, 'ivy')).body.AuthenticationResult!;
    const id = decodeJwt(r.IdToken);
    const access = decodeJwt(r.AccessToken);
    expect(id.exp! - id.iat!).toBe(300);
    expect(access.exp! - access.iat!).toBe(600);
    expect(r.ExpiresIn).toBe(600);
  });

  it('needs the flow enabled on the client, and USERNAME/PASSWORD', async () => {
    const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string } }>('CreateUserPoolClient', { UserPoolId: poolId, ClientName: 'srp-only' });
    const res = await signIn(idp, UserPoolClient.ClientId, 'ivy');
    expect(res.body).toEqual({ __type: 'InvalidParameterException', message: 'USER_PASSWORD_AUTH flow not enabled for this client' });
    const missing = await idp.call<AuthBody>('InitiateAuth', { AuthFlow: 'USER_PASSWORD_AUTH', ClientId: clientId, AuthParameters: { USERNAME: 'ivy' } });
    expect(missing.body).toEqual({ __type: 'InvalidParameterException', message: 'Missing required parameter PASSWORD' });
    const srp = await idp.call<AuthBody>('InitiateAuth', { AuthFlow: 'USER_SRP_AUTH', ClientId: clientId, AuthParameters: {} });
    expect(srp.body.__type).toBe('InvalidParameterException');
    const bogus = await idp.call<AuthBody>('InitiateAuth', { AuthFlow: 'MAGIC', ClientId: clientId });
    expect(bogus.body.__type).toBe('InvalidParameterException');
  });

  it('a client with a secret requires SECRET_HASH', async () => {
    const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string; ClientSecret: string } }>('CreateUserPoolClient', {
      UserPoolId: poolId,
      ClientName: 'confidential',
      GenerateSecret: true,
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
    });
    const id = UserPoolClient.ClientId;
    const hash = createHmac('sha256', UserPoolClient.ClientSecret).update(`ivy${id}`).digest('base64');
    const without = await signIn(idp, id, 'ivy');
    expect(without.body.__type).toBe('NotAuthorizedException');
    const wrong = await idp.call<AuthBody>('InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: id,
      AuthParameters: { USERNAME: 'ivy', PASSWORD, SECRET_HASH: Buffer.from('nope').toString('base64') },
    });
    expect(wrong.body).toEqual({ __type: 'NotAuthorizedException', message: `Unable to verify secret hash for client ${id}` });
    const ok = await idp.call<AuthBody>('InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: id,
      AuthParameters: { USERNAME: 'ivy', PASSWORD, SECRET_HASH: hash },
    });
    expect(ok.status).toBe(200);
    const refreshed = await idp.call<AuthBody>('InitiateAuth', {
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      ClientId: id,
      AuthParameters: { REFRESH_TOKEN: ok.body.AuthenticationResult!.RefreshToken!, SECRET_HASH: hash, USERNAME: 'ivy' },
    });
    expect(refreshed.status).toBe(200);
  });
});

describe('REFRESH_TOKEN_AUTH', () => {
  it('issues new ID and access tokens for the same session, no new refresh token', async () => {
    const first = (await signIn(idp, clientId, 'ivy')).body.AuthenticationResult!;
    idp.clock.advance(5_000);
    const res = await idp.call<AuthBody>('InitiateAuth', {
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      ClientId: clientId,
      AuthParameters: { REFRESH_TOKEN: first.RefreshToken },
    });
    expect(res.status).toBe(200);
    const r = res.body.AuthenticationResult!;
    expect(r.RefreshToken).toBeUndefined();
    const a = decodeJwt(first.IdToken);
    const b = await verifyWithJwks(idp, poolId, r.IdToken, { audience: clientId });
    expect(b.origin_jti).toBe(a.origin_jti);
    expect(b.auth_time).toBe(a.auth_time);
    expect(b.jti).not.toBe(a.jti);
    expect(b.iat).toBeGreaterThan(a.iat!);
  });

  it('refuses a refresh token of another client or an unknown one', async () => {
    const first = (await signIn(idp, clientId, 'ivy')).body.AuthenticationResult!;
    const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string } }>('CreateUserPoolClient', {
      UserPoolId: poolId,
      ClientName: 'other',
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
    });
    for (const [client, token] of [
      [UserPoolClient.ClientId, first.RefreshToken],
      [clientId, 'not-a-token'],
    ]) {
      const res = await idp.call<AuthBody>('InitiateAuth', { AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId: client, AuthParameters: { REFRESH_TOKEN: token } });
      expect(res.body).toEqual({ __type: 'NotAuthorizedException', message: 'Invalid Refresh Token' });
    }
  });
});

describe('NEW_PASSWORD_REQUIRED', () => {
  it('InitiateAuth → challenge → RespondToAuthChallenge → tokens, user CONFIRMED', async () => {
    await idp.ok('AdminCreateUser', { UserPoolId: poolId, Username: 'jack', TemporaryPassword: 'Temp-pass-1', UserAttributes: [{ Name: 'email', Value: 'j@x.org' }] });
    const res = await signIn(idp, clientId, 'jack', 'Temp-pass-1');
    expect(res.status).toBe(200);
    expect(res.body.ChallengeName).toBe('NEW_PASSWORD_REQUIRED');
    expect(res.body.AuthenticationResult).toBeUndefined();
    const params = (res.body as AuthBody).ChallengeParameters!;
    expect(params.USER_ID_FOR_SRP).toBe('jack');
    expect(JSON.parse(params.userAttributes!)).toEqual({ email: 'j@x.org' });

    const weak = await answerNewPassword(res.body.Session, { USERNAME: 'jack', NEW_PASSWORD: 'weak' });
    expect(weak.body.__type).toBe('InvalidPasswordException');

    const done = await answerNewPassword(res.body.Session, { USERNAME: 'jack', NEW_PASSWORD: 'Jacks-own-pass-1', 'userAttributes.name': 'Jack' });
    expect(done.status).toBe(200);
    const id = await verifyWithJwks(idp, poolId, done.body.AuthenticationResult!.IdToken);
    expect(id.name).toBe('Jack');
    expect((await idp.ok<{ UserStatus: string }>('AdminGetUser', { UserPoolId: poolId, Username: 'jack' })).UserStatus).toBe('CONFIRMED');

    const replay = await answerNewPassword(res.body.Session, { USERNAME: 'jack', NEW_PASSWORD: 'Another-pass-1' });
    expect(replay.body.__type).toBe('NotAuthorizedException');
    expect((await signIn(idp, clientId, 'jack', 'Jacks-own-pass-1')).status).toBe(200);
    expect((await signIn(idp, clientId, 'jack', 'Temp-pass-1')).body.__type).toBe('NotAuthorizedException');
  });

  it('the challenge session expires and is bound to its user', async () => {
    await idp.ok('AdminCreateUser', { UserPoolId: poolId, Username: 'kate', TemporaryPassword: 'Temp-pass-1' });
    const res = await signIn(idp, clientId, 'kate', 'Temp-pass-1');
    const otherUser = await answerNewPassword(res.body.Session, { USERNAME: 'ivy', NEW_PASSWORD: 'Hijack-pass-1' });
    expect(otherUser.body.__type).toBe('NotAuthorizedException');

    const again = await signIn(idp, clientId, 'kate', 'Temp-pass-1');
    idp.clock.advance(4 * 60_000);
    const late = await answerNewPassword(again.body.Session, { USERNAME: 'kate', NEW_PASSWORD: 'Kates-pass-12' });
    expect(late.body).toMatchObject({ __type: 'NotAuthorizedException', message: 'Invalid session for the user, session is expired.' });
  });

  it('a temporary password older than the pool allows must be reset by an admin', async () => {
    await idp.ok('AdminCreateUser', { UserPoolId: poolId, Username: 'liam', TemporaryPassword: 'Temp-pass-1' });
    idp.clock.advance(8 * 86_400_000);
    const res = await signIn(idp, clientId, 'liam', 'Temp-pass-1');
    expect(res.body).toEqual({
      __type: 'NotAuthorizedException',
      message: 'Temporary password has expired and must be reset by an administrator.',
    });
  });
});

describe('AdminInitiateAuth / AdminRespondToAuthChallenge', () => {
  it('ADMIN_USER_PASSWORD_AUTH and ADMIN_NO_SRP_AUTH sign in', async () => {
    for (const flow of ['ADMIN_USER_PASSWORD_AUTH', 'ADMIN_NO_SRP_AUTH']) {
      const res = await idp.call<AuthBody>('AdminInitiateAuth', {
        UserPoolId: poolId,
        ClientId: clientId,
        AuthFlow: flow,
        AuthParameters: { USERNAME: 'ivy', PASSWORD },
      });
      expect(res.status).toBe(200);
      await verifyWithJwks(idp, poolId, res.body.AuthenticationResult!.IdToken, { audience: clientId });
    }
  });

  it('REFRESH_TOKEN_AUTH and the challenge work through the admin variants', async () => {
    const first = (await signIn(idp, clientId, 'ivy')).body.AuthenticationResult!;
    const refreshed = await idp.call<AuthBody>('AdminInitiateAuth', {
      UserPoolId: poolId,
      ClientId: clientId,
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      AuthParameters: { REFRESH_TOKEN: first.RefreshToken },
    });
    expect(refreshed.status).toBe(200);

    await idp.ok('AdminCreateUser', { UserPoolId: poolId, Username: 'mona', TemporaryPassword: 'Temp-pass-1' });
    const challenge = await idp.call<AuthBody>('AdminInitiateAuth', {
      UserPoolId: poolId,
      ClientId: clientId,
      AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: 'mona', PASSWORD: 'Temp-pass-1' },
    });
    expect(challenge.body.ChallengeName).toBe('NEW_PASSWORD_REQUIRED');
    const done = await idp.call<AuthBody>('AdminRespondToAuthChallenge', {
      UserPoolId: poolId,
      ClientId: clientId,
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      Session: challenge.body.Session,
      ChallengeResponses: { USERNAME: 'mona', NEW_PASSWORD: 'Monas-pass-12' },
    });
    expect(done.status).toBe(200);
    expect(done.body.AuthenticationResult?.IdToken).toBeDefined();
  });

  it('needs the admin flow enabled and the client to belong to the pool', async () => {
    const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string } }>('CreateUserPoolClient', {
      UserPoolId: poolId,
      ClientName: 'no-admin',
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH'],
    });
    const res = await idp.call<AuthBody>('AdminInitiateAuth', {
      UserPoolId: poolId,
      ClientId: UserPoolClient.ClientId,
      AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: 'ivy', PASSWORD },
    });
    expect(res.body).toEqual({ __type: 'InvalidParameterException', message: 'Auth flow not enabled for this client' });
    const other = (await idp.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'elsewhere' })).UserPool.Id;
    const wrongPool = await idp.call<AuthBody>('AdminInitiateAuth', {
      UserPoolId: other,
      ClientId: clientId,
      AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: 'ivy', PASSWORD },
    });
    expect(wrongPool.body.__type).toBe('ResourceNotFoundException');
  });
});

describe('GetUser / ChangePassword / GlobalSignOut / RevokeToken / AdminUserGlobalSignOut', () => {
  it('GetUser returns the caller from the access token; an ID token is refused', async () => {
    const r = (await signIn(idp, clientId, 'ivy')).body.AuthenticationResult!;
    const me = await idp.call<{ Username: string; UserAttributes: { Name: string; Value: string }[] }>('GetUser', { AccessToken: r.AccessToken });
    expect(me.status).toBe(200);
    expect(me.body.Username).toBe('ivy');
    expect(me.body.UserAttributes.find((a) => a.Name === 'email')?.Value).toBe('ivy@example.org');
    const withId = await idp.call('GetUser', { AccessToken: r.IdToken });
    expect(withId.body).toEqual({ __type: 'NotAuthorizedException', message: 'Invalid Access Token' });
  });

  it('ChangePassword needs the previous password and the policy', async () => {
    await createUser(idp, poolId, 'nina');
    const r = (await signIn(idp, clientId, 'nina')).body.AuthenticationResult!;
    const wrong = await idp.call('ChangePassword', { AccessToken: r.AccessToken, PreviousPassword: 'Wrong-pass-1', ProposedPassword: 'Ninas-new-pass-1' });
    expect(wrong.body).toEqual({ __type: 'NotAuthorizedException', message: 'Incorrect username or password.' });
    const weak = await idp.call('ChangePassword', { AccessToken: r.AccessToken, PreviousPassword: PASSWORD, ProposedPassword: 'weak' });
    expect(weak.body.__type).toBe('InvalidPasswordException');
    await idp.ok('ChangePassword', { AccessToken: r.AccessToken, PreviousPassword: PASSWORD, ProposedPassword: 'Ninas-new-pass-1' });
    expect((await signIn(idp, clientId, 'nina', 'Ninas-new-pass-1')).status).toBe(200);
  });

  it('GlobalSignOut revokes every refresh token and access token of the user', async () => {
    await createUser(idp, poolId, 'oscar');
    const a = (await signIn(idp, clientId, 'oscar')).body.AuthenticationResult!;
    const b = (await signIn(idp, clientId, 'oscar')).body.AuthenticationResult!;
    await idp.ok('GlobalSignOut', { AccessToken: a.AccessToken });
    for (const token of [a.RefreshToken, b.RefreshToken]) {
      const res = await idp.call('InitiateAuth', { AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId: clientId, AuthParameters: { REFRESH_TOKEN: token } });
      expect(res.body).toEqual({ __type: 'NotAuthorizedException', message: 'Refresh Token has been revoked' });
    }
    expect((await idp.call('GetUser', { AccessToken: b.AccessToken })).body).toEqual({
      __type: 'NotAuthorizedException',
      message: 'Access Token has been revoked',
    });
    // A new sign-in works again.
    expect((await signIn(idp, clientId, 'oscar')).status).toBe(200);
  });

  it('AdminUserGlobalSignOut does the same for an admin', async () => {
    await createUser(idp, poolId, 'otto');
    const a = (await signIn(idp, clientId, 'otto')).body.AuthenticationResult!;
    await idp.ok('AdminUserGlobalSignOut', { UserPoolId: poolId, Username: 'otto' });
    expect((await idp.call('GetUser', { AccessToken: a.AccessToken })).body.__type).toBe('NotAuthorizedException');
  });

  it('RevokeToken revokes one refresh token and the access tokens issued from it', async () => {
    const a = (await signIn(idp, clientId, 'ivy')).body.AuthenticationResult!;
    const b = (await signIn(idp, clientId, 'ivy')).body.AuthenticationResult!;
    await idp.ok('RevokeToken', { Token: a.RefreshToken, ClientId: clientId });
    const res = await idp.call('InitiateAuth', { AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId: clientId, AuthParameters: { REFRESH_TOKEN: a.RefreshToken } });
    expect(res.body.message).toBe('Refresh Token has been revoked');
    expect((await idp.call('GetUser', { AccessToken: a.AccessToken })).body.__type).toBe('NotAuthorizedException');
    expect((await idp.call('GetUser', { AccessToken: b.AccessToken })).status).toBe(200);
    // Unknown tokens: no error (RFC 7009); access tokens: not revocable this way.
    expect((await idp.call('RevokeToken', { Token: 'unknown-token', ClientId: clientId })).status).toBe(200);
    expect((await idp.call('RevokeToken', { Token: b.AccessToken, ClientId: clientId })).body.__type).toBe('UnsupportedTokenTypeException');
  });

  it('RevokeToken from another client is refused', async () => {
    const a = (await signIn(idp, clientId, 'ivy')).body.AuthenticationResult!;
    const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string } }>('CreateUserPoolClient', { UserPoolId: poolId, ClientName: 'x' });
    const res = await idp.call('RevokeToken', { Token: a.RefreshToken, ClientId: UserPoolClient.ClientId });
    expect(res.body.__type).toBe('UnauthorizedException');
  });
});
