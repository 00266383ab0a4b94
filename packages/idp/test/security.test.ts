/**
 * Security properties (issue acceptance): refusals, no clear-text passwords at rest or in logs,
 * the IdP's own token verification, throttling, key rotation.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_COST } from '../src/crypto/password.js';
import { BAD_CREDENTIALS } from '../src/errors.js';
import { createPoolAndClient, createUser, signIn, startIdp, startIdpWithPool, testSigningKeys, verifyWithJwks, type TestIdp } from './support/harness.js';

const SECRET_PASSWORD = 'Very-distinctive-Pa55word';

// Every test gets a fresh IdP (and clock) with user pat: lock-outs, revocations, key rotations and
// clock advances stay in the test that made them.
let idp: TestIdp, poolId: string, clientId: string;
beforeEach(async () => {
  ({ idp, poolId, clientId } = await startIdpWithPool((f) =>
    createUser(f.idp, f.poolId, 'pat', { password: SECRET_PASSWORD, attributes: { email: 'pat@example.org' } }),
  ));
});
afterEach(() => idp.close());

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('sign-in refusals', () => {
  it('a wrong password and an unknown user get the same status, type and text', async () => {
    const wrong = await signIn(idp, clientId, 'pat', 'Wrong-password-1');
    const unknown = await signIn(idp, clientId, 'nobody-here', 'Wrong-password-1');
    expect(wrong.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(wrong.body).toEqual({ __type: 'NotAuthorizedException', message: BAD_CREDENTIALS });
    expect(unknown.body).toEqual(wrong.body);
    expect(BAD_CREDENTIALS).toBe('Incorrect username or password.');
  });

  it('a disabled user is refused (and only after the password is right)', async () => {
    await createUser(idp, poolId, 'quinn');
    await idp.ok('AdminDisableUser', { UserPoolId: poolId, Username: 'quinn' });
    expect((await signIn(idp, clientId, 'quinn')).body).toEqual({ __type: 'NotAuthorizedException', message: 'User is disabled.' });
    expect((await signIn(idp, clientId, 'quinn', 'Wrong-password-1')).body.message).toBe(BAD_CREDENTIALS);
  });

  it('a disabled user can no longer refresh, nor use an access token', async () => {
    await createUser(idp, poolId, 'rita');
    const r = (await signIn(idp, clientId, 'rita')).body.AuthenticationResult!;
    await idp.ok('AdminDisableUser', { UserPoolId: poolId, Username: 'rita' });
    const refresh = await idp.call('InitiateAuth', { AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId: clientId, AuthParameters: { REFRESH_TOKEN: r.RefreshToken } });
    expect(refresh.body).toEqual({ __type: 'NotAuthorizedException', message: 'User is disabled.' });
    expect((await idp.call('GetUser', { AccessToken: r.AccessToken })).body.message).toBe('User is disabled.');
  });

  it('an expired refresh token is refused', async () => {
    const r = (await signIn(idp, clientId, 'pat', SECRET_PASSWORD)).body.AuthenticationResult!;
    idp.clock.advance(30 * 86_400_000 + 1_000);
    const res = await idp.call('InitiateAuth', { AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId: clientId, AuthParameters: { REFRESH_TOKEN: r.RefreshToken } });
    expect(res.body).toEqual({ __type: 'NotAuthorizedException', message: 'Refresh Token has expired' });
  });

  it('a revoked refresh token is refused', async () => {
    const r = (await signIn(idp, clientId, 'pat', SECRET_PASSWORD)).body.AuthenticationResult!;
    await idp.ok('RevokeToken', { Token: r.RefreshToken, ClientId: clientId });
    const res = await idp.call('InitiateAuth', { AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId: clientId, AuthParameters: { REFRESH_TOKEN: r.RefreshToken } });
    expect(res.body).toEqual({ __type: 'NotAuthorizedException', message: 'Refresh Token has been revoked' });
  });
});

describe('the IdP verifies tokens itself (GetUser, userInfo)', () => {
  let access: string;
  beforeEach(async () => {
    access = (await signIn(idp, clientId, 'pat', SECRET_PASSWORD)).body.AuthenticationResult!.AccessToken;
  });

  const userInfo = (token: string) => fetch(`${idp.base}/oauth2/userInfo`, { headers: { authorization: `Bearer ${token}` } });

  it('accepts the genuine token', async () => {
    expect((await idp.call('GetUser', { AccessToken: access })).status).toBe(200);
    expect((await userInfo(access)).status).toBe(200);
  });

  it('refuses a tampered payload (signature no longer matches)', async () => {
    const [h, p, s] = access.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = `${h}.${b64url({ ...claims, username: 'admin', 'cognito:groups': ['ianode_admin'] })}.${s}`;
    expect((await idp.call('GetUser', { AccessToken: forged })).body).toEqual({ __type: 'NotAuthorizedException', message: 'Invalid Access Token' });
    const res = await userInfo(forged);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('refuses alg: none (unsigned) and an HMAC token keyed with the public key', async () => {
    const [h, p] = access.split('.');
    const header = JSON.parse(Buffer.from(h!, 'base64url').toString());
    const none = `${b64url({ ...header, alg: 'none' })}.${p}.`;
    expect((await idp.call('GetUser', { AccessToken: none })).body.message).toBe('Invalid Access Token');
    expect((await userInfo(none)).status).toBe(401);
    const hs = `${b64url({ ...header, alg: 'HS256' })}.${p}.${Buffer.from('sig').toString('base64url')}`;
    expect((await idp.call('GetUser', { AccessToken: hs })).body.message).toBe('Invalid Access Token');
  });

  it('refuses an unknown kid, a foreign issuer and an expired token', async () => {
    const [h, p, s] = access.split('.');
    const header = JSON.parse(Buffer.from(h!, 'base64url').toString());
    expect((await idp.call('GetUser', { AccessToken: `${b64url({ ...header, kid: 'nope' })}.${p}.${s}` })).body.message).toBe('Invalid Access Token');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    expect((await idp.call('GetUser', { AccessToken: `${h}.${b64url({ ...claims, iss: 'https://evil.example/x' })}.${s}` })).body.message).toBe(
      'Invalid Access Token',
    );
    expect((await idp.call('GetUser', { AccessToken: 'garbage' })).body.message).toBe('Invalid Access Token');
    const fresh = (await signIn(idp, clientId, 'pat', SECRET_PASSWORD)).body.AuthenticationResult!.AccessToken;
    idp.clock.advance(3601_000);
    expect((await idp.call('GetUser', { AccessToken: fresh })).body).toEqual({ __type: 'NotAuthorizedException', message: 'Access Token has expired' });
    expect((await userInfo(fresh)).status).toBe(401);
  });
});

describe('throttling of failed sign-ins', () => {
  it('after 5 failures even the right password is refused until the lock-out passes; unknown users too', async () => {
    await createUser(idp, poolId, 'sam');
    for (let i = 0; i < 5; i++) expect((await signIn(idp, clientId, 'sam', 'Wrong-password-1')).body.message).toBe(BAD_CREDENTIALS);
    const locked = await signIn(idp, clientId, 'sam');
    expect(locked.body).toEqual({ __type: 'NotAuthorizedException', message: 'Password attempts exceeded' });
    idp.clock.advance(2_000);
    expect((await signIn(idp, clientId, 'sam')).status).toBe(200);

    for (let i = 0; i < 5; i++) await signIn(idp, clientId, 'ghost', 'Wrong-password-1');
    expect((await signIn(idp, clientId, 'ghost', 'Wrong-password-1')).body.message).toBe('Password attempts exceeded');
  });

  it('counts failures per account, whatever the spelling of the name or alias (case-insensitive aliases)', async () => {
    const aliased = await idp.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'alias-pool', AliasAttributes: ['email'] });
    const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string } }>('CreateUserPoolClient', {
      UserPoolId: aliased.UserPool.Id,
      ClientName: 'alias-client',
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH'],
    });
    await createUser(idp, aliased.UserPool.Id, 'uma', { attributes: { email: 'Uma@Example.org', email_verified: 'true' } });
    expect((await signIn(idp, UserPoolClient.ClientId, 'UMA@example.ORG')).status).toBe(200);
    for (const spelling of ['uma@example.org', 'UMA@EXAMPLE.ORG', 'Uma@example.org', 'uMa@Example.Org', 'uma']) {
      expect((await signIn(idp, UserPoolClient.ClientId, spelling, 'Wrong-password-1')).body.message).toBe(BAD_CREDENTIALS);
    }
    expect((await signIn(idp, UserPoolClient.ClientId, 'uma')).body.message).toBe('Password attempts exceeded');
    expect((await signIn(idp, UserPoolClient.ClientId, 'uma@EXAMPLE.org')).body.message).toBe('Password attempts exceeded');
  });

  it('lock-outs double with further failures and an admin password reset lifts them', async () => {
    await createUser(idp, poolId, 'tess');
    for (let i = 0; i < 8; i++) {
      await signIn(idp, clientId, 'tess', 'Wrong-password-1');
      idp.clock.advance(200_000); // let each lock-out pass so the failure counts
    }
    await signIn(idp, clientId, 'tess', 'Wrong-password-1');
    idp.clock.advance(10_000);
    expect((await signIn(idp, clientId, 'tess')).body.message).toBe('Password attempts exceeded');
    await idp.ok('AdminSetUserPassword', { UserPoolId: poolId, Username: 'tess', Password: 'Reset-pass-123', Permanent: true });
    expect((await signIn(idp, clientId, 'tess', 'Reset-pass-123')).status).toBe(200);
  });
});

describe('passwords are never stored or logged in clear', () => {
  it('the database files hold no password, only scrypt hashes', async () => {
    await signIn(idp, clientId, 'pat', SECRET_PASSWORD);
    await signIn(idp, clientId, 'pat', 'Another-Distinct-Pass-9');
    const files = await readdir(idp.dir);
    expect(files).toContain('idp.sqlite');
    for (const f of files) {
      const bytes = await readFile(join(idp.dir, f));
      expect(bytes.includes(Buffer.from(SECRET_PASSWORD)), f).toBe(false);
      expect(bytes.includes(Buffer.from('Another-Distinct-Pass-9')), f).toBe(false);
    }
    const all = Buffer.concat(await Promise.all(files.map((f) => readFile(join(idp.dir, f)))));
    expect(all.includes(Buffer.from('scrypt$'))).toBe(true);
  });

  it('logs hold no password and no token', async () => {
    const r = (await signIn(idp, clientId, 'pat', SECRET_PASSWORD)).body.AuthenticationResult!;
    await idp.call('GetUser', { AccessToken: r.AccessToken });
    await fetch(`${idp.base}/oauth2/userInfo`, { headers: { authorization: `Bearer ${r.AccessToken}` } });
    // Credentials in a query string (where they do not belong) are not logged either.
    await fetch(`${idp.base}/oauth2/userInfo?access_token=${r.AccessToken}`);
    await fetch(`${idp.base}/logout?id_token_hint=${r.IdToken}&refresh_token=${r.RefreshToken}&code=c0de-in-url`);
    // Nor a token put in the path (a matrix parameter, an encoded `?`): the path is logged.
    await fetch(`${idp.base}/oauth2/userInfo;access_token=${r.AccessToken}`);
    await fetch(`${idp.base}/${poolId}/.well-known/jwks.json/%3Fid_token=${r.IdToken}`);
    const logs = idp.logs.join('');
    expect(logs).toContain('/oauth2/userInfo');
    expect(logs).not.toContain(r.IdToken.split('.')[2]);
    expect(logs).not.toContain(r.IdToken.split('.')[1]);
    expect(logs).not.toContain(r.AccessToken.split('.')[1]);
    expect(logs).not.toContain('c0de-in-url');
    expect(logs.length).toBeGreaterThan(1000);
    expect(logs).not.toContain(SECRET_PASSWORD);
    expect(logs).not.toContain('Another-Distinct-Pass-9');
    expect(logs).not.toContain(r.AccessToken.split('.')[2]);
    expect(logs).not.toContain(r.RefreshToken);
    expect(logs).not.toContain(idp.server.admin.secretAccessKey);
  });

  it('refresh tokens are stored as sha256 only', async () => {
    const r = (await signIn(idp, clientId, 'pat', SECRET_PASSWORD)).body.AuthenticationResult!;
    const all = Buffer.concat(await Promise.all((await readdir(idp.dir)).map((f) => readFile(join(idp.dir, f)))));
    expect(all.includes(Buffer.from(r.RefreshToken!))).toBe(false);
  });
});

describe('key rotation', () => {
  it('old tokens stay valid until they expire; new tokens carry the new kid; the old key then leaves the JWKS', async () => {
    const jwks = async () =>
      ((await (await fetch(`${idp.base}/${poolId}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    const before = (await signIn(idp, clientId, 'pat', SECRET_PASSWORD)).body.AuthenticationResult!;
    const oldKid = decodeProtectedHeader(before.IdToken).kid!;
    expect(await jwks()).toEqual([oldKid]);

    const rotated = await idp.ok<{ Kid: string; PreviousKid: string }>('IanodeIdp.RotateSigningKey', { UserPoolId: poolId });
    expect(rotated.PreviousKid).toBe(oldKid);
    expect(rotated.Kid).not.toBe(oldKid);

    const after = (await signIn(idp, clientId, 'pat', SECRET_PASSWORD)).body.AuthenticationResult!;
    expect(decodeProtectedHeader(after.IdToken).kid).toBe(rotated.Kid);
    expect(decodeProtectedHeader(after.AccessToken).kid).toBe(rotated.Kid);
    expect(await jwks()).toEqual([rotated.Kid, oldKid]);

    // Old tokens still verify (relying party and the IdP's own check) ...
    await verifyWithJwks(idp, poolId, before.IdToken);
    expect((await idp.call('GetUser', { AccessToken: before.AccessToken })).status).toBe(200);
    // ... until they expire; then the old key is no longer published.
    idp.clock.advance((decodeJwt(before.IdToken).exp! + 1) * 1000 - idp.clock.now());
    expect(await jwks()).toEqual([rotated.Kid]);
  });

  it('the rotation call is an admin operation (signed)', async () => {
    const res = await idp.call('IanodeIdp.RotateSigningKey', { UserPoolId: poolId }, { sign: false });
    expect(res.body.__type).toBe('UnrecognizedClientException');
  });
});

describe('production defaults (the test harness injects cheaper keys and hashing)', () => {
  it('left to its defaults, the IdP generates a fresh RSA-2048 key per pool and per rotation, and hashes at scrypt N=2^15', async () => {
    // The keys every harness IdP starts with: an IdP without `newSigningKey` must use none of them.
    const cached = testSigningKeys();
    const harnessKids = [(await cached()).kid, (await cached()).kid];
    const plain = await startIdp({ newSigningKey: undefined, scryptCost: undefined });
    try {
      const { poolId: pool, clientId: client } = await createPoolAndClient(plain);
      await createUser(plain, pool, 'dora');
      const { password_hash: hash } = plain.server.context.db.get<{ password_hash: string }>('SELECT password_hash FROM users WHERE username = ?', 'dora')!;
      expect(DEFAULT_COST).toEqual({ N: 2 ** 15, r: 8, p: 1 });
      expect(hash.startsWith(`scrypt$${DEFAULT_COST.N}$${DEFAULT_COST.r}$${DEFAULT_COST.p}$`)).toBe(true);
      expect((await signIn(plain, client, 'dora')).status).toBe(200); // the first key signed: it stays published

      const rotated = await plain.ok<{ Kid: string; PreviousKid: string }>('IanodeIdp.RotateSigningKey', { UserPoolId: pool });
      const keys = ((await (await fetch(`${plain.base}/${pool}/.well-known/jwks.json`)).json()) as { keys: { kid: string; kty: string; alg: string; n: string; e: string }[] }).keys;
      expect(keys.map((k) => k.kid)).toEqual([rotated.Kid, rotated.PreviousKid]);
      expect(new Set([rotated.Kid, rotated.PreviousKid, ...harnessKids]).size).toBe(4);
      for (const k of keys) {
        expect([k.kty, k.alg, k.e]).toEqual(['RSA', 'RS256', 'AQAB']);
        const modulus = Buffer.from(k.n, 'base64url');
        expect(modulus).toHaveLength(256);
        expect(modulus[0]! & 0x80).toBe(0x80); // exactly 2048 bits
      }
    } finally {
      await plain.close();
    }
  });
});
