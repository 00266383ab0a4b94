/** OIDC: discovery, JWKS, authorization code + PKCE (S256) with the HTML sign-in page, token, userInfo, logout. */
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, PASSWORD, startIdp, verifyWithJwks, type TestIdp } from './support/harness.js';

const REDIRECT = 'http://localhost:8080/callback';
let idp: TestIdp;
let poolId: string;
let clientId: string;

beforeAll(async () => {
  idp = await startIdp();
  poolId = (await idp.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'oidc', Schema: [{ Name: 'org' }] })).UserPool.Id;
  clientId = (
    await idp.ok<{ UserPoolClient: { ClientId: string } }>('CreateUserPoolClient', {
      UserPoolId: poolId,
      ClientName: 'Demo app',
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
      AllowedOAuthFlows: ['code'],
      AllowedOAuthScopes: ['openid', 'email', 'profile'],
      AllowedOAuthFlowsUserPoolClient: true,
      CallbackURLs: [REDIRECT],
      LogoutURLs: ['http://localhost:8080/'],
    })
  ).UserPoolClient.ClientId;
  await createUser(idp, poolId, 'uma', {
    attributes: { email: 'uma@example.org', email_verified: 'true', name: 'Uma', 'custom:org': 'ianode' },
    groups: ['ianode_read'],
  });
});
afterAll(() => idp.close());

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(params: Record<string, string>): string {
  return `${idp.base}/oauth2/authorize?${new URLSearchParams(params)}`;
}

/** Reads the hidden inputs of the sign-in form, as a browser would submit them. */
function hiddenFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    out[m[1]!] = m[2]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  }
  return out;
}

async function signInThroughPage(p: { challenge: string; state?: string; nonce?: string; username?: string; password?: string; scope?: string }) {
  const page = await fetch(
    authorizeUrl({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: p.scope ?? 'openid email profile',
      state: p.state ?? 'st4te',
      nonce: p.nonce ?? 'n0nce',
      code_challenge: p.challenge,
      code_challenge_method: 'S256',
    }),
  );
  expect(page.status).toBe(200);
  const html = await page.text();
  const form = { ...hiddenFields(html), username: p.username ?? 'uma', password: p.password ?? PASSWORD };
  return fetch(`${idp.base}/oauth2/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
    redirect: 'manual',
  });
}

const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${idp.base}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });

describe('discovery and JWKS', () => {
  it('serves the full discovery document from the public base URL', async () => {
    const res = await fetch(`${idp.base}/${poolId}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: `${idp.url}/${poolId}`,
      jwks_uri: `${idp.url}/${poolId}/.well-known/jwks.json`,
      authorization_endpoint: `${idp.url}/oauth2/authorize`,
      token_endpoint: `${idp.url}/oauth2/token`,
      userinfo_endpoint: `${idp.url}/oauth2/userInfo`,
      end_session_endpoint: `${idp.url}/logout`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email', 'profile']));
    expect(doc.claims_supported).toEqual(expect.arrayContaining(['sub', 'email', 'cognito:groups']));
  });

  it('JWKS lists {kty,kid,use,alg,n,e}; unknown pools are 404 JSON', async () => {
    const jwks = (await (await fetch(`${idp.base}/${poolId}/.well-known/jwks.json`)).json()) as { keys: Record<string, string>[] };
    expect(Object.keys(jwks.keys[0]!).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    for (const path of ['jwks.json', 'openid-configuration']) {
      const res = await fetch(`${idp.base}/local_unknown1/.well-known/${path}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
    }
  });

  it('builds URLs from a configured public URL, never from the Host header', async () => {
    const other = await startIdp({ publicUrl: 'https://idp.example.org/base/' });
    try {
      const pool = (await other.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'p' })).UserPool.Id;
      const doc = (await (await fetch(`${other.base}/${pool}/.well-known/openid-configuration`, { headers: { host: 'evil.example' } })).json()) as Record<string, string>;
      expect(doc.issuer).toBe(`https://idp.example.org/base/${pool}`);
      expect(doc.token_endpoint).toBe('https://idp.example.org/base/oauth2/token');
    } finally {
      await other.close();
    }
  });
});

describe('authorization code + PKCE', () => {
  it('sign-in page → code → tokens (verifier) → userInfo', async () => {
    const { verifier, challenge } = pkce();
    const res = await signInThroughPage({ challenge });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('st4te');
    const code = location.searchParams.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const tr = await token({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(tr.status).toBe(200);
    expect(tr.headers.get('cache-control')).toBe('no-store');
    const tokens = (await tr.json()) as { id_token: string; access_token: string; refresh_token: string; token_type: string; expires_in: number };
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const id = await verifyWithJwks(idp, poolId, tokens.id_token, { audience: clientId });
    expect(id).toMatchObject({ nonce: 'n0nce', email: 'uma@example.org', 'cognito:groups': ['ianode_read'], token_use: 'id' });
    const atHash = createHash('sha256').update(tokens.access_token).digest().subarray(0, 16).toString('base64url');
    expect(id.at_hash).toBe(atHash);
    expect(decodeJwt(tokens.access_token).scope).toBe('openid email profile');

    const info = await fetch(`${idp.base}/oauth2/userInfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(200);
    expect(await info.json()).toEqual({
      sub: id.sub,
      username: 'uma',
      email: 'uma@example.org',
      email_verified: true,
      name: 'Uma',
      'custom:org': 'ianode',
    });

    // refresh_token grant
    const refreshed = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(200);
    const again = (await refreshed.json()) as { id_token: string; refresh_token?: string };
    expect(again.refresh_token).toBeUndefined();
    expect(decodeJwt(again.id_token).origin_jti).toBe(id.origin_jti);
  });

  it('a wrong verifier is refused with invalid_grant', async () => {
    const { challenge } = pkce();
    const res = await signInThroughPage({ challenge });
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const tr = await token({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: pkce().verifier });
    expect(tr.status).toBe(400);
    expect(await tr.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a code is single use: a replay is refused and revokes what the first use gave', async () => {
    const { verifier, challenge } = pkce();
    const code = new URL((await signInThroughPage({ challenge })).headers.get('location')!).searchParams.get('code')!;
    const form = { grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier };
    const first = (await (await token(form)).json()) as { access_token: string; refresh_token: string };
    const second = await token(form);
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({ error: 'invalid_grant' });
    const refresh = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: first.refresh_token });
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant', error_description: 'Refresh Token has been revoked' });
  });

  it('the code is bound to redirect_uri, client and lifetime', async () => {
    const { verifier, challenge } = pkce();
    const code = new URL((await signInThroughPage({ challenge })).headers.get('location')!).searchParams.get('code')!;
    const wrongRedirect = await token({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: 'http://localhost:8080/other', code_verifier: verifier });
    expect(await wrongRedirect.json()).toMatchObject({ error: 'invalid_grant' });

    const p2 = pkce();
    const code2 = new URL((await signInThroughPage({ challenge: p2.challenge })).headers.get('location')!).searchParams.get('code')!;
    idp.clock.advance(6 * 60_000);
    const late = await token({ grant_type: 'authorization_code', client_id: clientId, code: code2, redirect_uri: REDIRECT, code_verifier: p2.verifier });
    expect(await late.json()).toMatchObject({ error: 'invalid_grant' });

    const unknownClient = await token({ grant_type: 'authorization_code', client_id: 'nope', code: 'x', redirect_uri: REDIRECT, code_verifier: verifier });
    expect(unknownClient.status).toBe(401);
    expect(await unknownClient.json()).toMatchObject({ error: 'invalid_client' });
    const badGrant = await token({ grant_type: 'password', client_id: clientId });
    expect(await badGrant.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('a wrong password re-shows the page with the same error text; the page is accessible HTML', async () => {
    const res = await signInThroughPage({ challenge: pkce().challenge, password: 'Wrong-pass-1' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('Incorrect username or password.');
    expect(html).toContain('role="alert"');
    expect(html).toMatch(/<label for="username">/);
    expect(html).toMatch(/<label for="password">/);
    expect(html).toMatch(/<html lang="en">/);
    expect(html).not.toMatch(/<script/i);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('escapes request parameters in the page', async () => {
    const res = await fetch(
      authorizeUrl({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, state: '"><script>alert(1)</script>', code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
    );
    const html = await res.text();
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&quot;&gt;&lt;script&gt;');
  });

  it('requires PKCE with S256; an unknown client or redirect URI is a page, never a redirect', async () => {
    const base = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, state: 's' };
    for (const extra of [{}, { code_challenge: pkce().challenge, code_challenge_method: 'plain' }] as Record<string, string>[]) {
      const res = await fetch(authorizeUrl({ ...base, ...extra }), { redirect: 'manual' });
      expect(res.status).toBe(302);
      const loc = new URL(res.headers.get('location')!);
      expect(loc.searchParams.get('error')).toBe('invalid_request');
      expect(loc.searchParams.get('state')).toBe('s');
    }
    const scope = await fetch(authorizeUrl({ ...base, scope: 'openid phone', code_challenge: pkce().challenge, code_challenge_method: 'S256' }), { redirect: 'manual' });
    expect(new URL(scope.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
    const evil = await fetch(authorizeUrl({ ...base, redirect_uri: 'https://evil.example/cb' }), { redirect: 'manual' });
    expect(evil.status).toBe(400);
    expect(evil.headers.get('location')).toBeNull();
    const unknown = await fetch(authorizeUrl({ ...base, client_id: 'nope' }), { redirect: 'manual' });
    expect(unknown.status).toBe(400);
  });

  it('a user who must change the password gets the new-password form, then a code', async () => {
    await idp.ok('AdminCreateUser', { UserPoolId: poolId, Username: 'vic', TemporaryPassword: 'Temp-pass-1' });
    const { verifier, challenge } = pkce();
    const res = await signInThroughPage({ challenge, username: 'vic', password: 'Temp-pass-1' });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<label for="new_password">');
    const form = { ...hiddenFields(html), new_password: 'Vics-new-pass-1' };
    const done = await fetch(`${idp.base}/oauth2/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
      redirect: 'manual',
    });
    expect(done.status).toBe(302);
    const code = new URL(done.headers.get('location')!).searchParams.get('code')!;
    const tr = await token({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(tr.status).toBe(200);
  });
});

describe('confidential clients, revocation, userInfo and logout', () => {
  it('a client with a secret must authenticate (Basic or post)', async () => {
    const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string; ClientSecret: string } }>('CreateUserPoolClient', {
      UserPoolId: poolId,
      ClientName: 'server',
      GenerateSecret: true,
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
      AllowedOAuthFlows: ['code'],
      AllowedOAuthScopes: ['openid'],
      AllowedOAuthFlowsUserPoolClient: true,
      CallbackURLs: [REDIRECT],
    });
    const id = UserPoolClient.ClientId;
    const secret = UserPoolClient.ClientSecret;
    const { verifier, challenge } = pkce();
    const page = await fetch(
      authorizeUrl({ response_type: 'code', client_id: id, redirect_uri: REDIRECT, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' }),
    );
    const res = await fetch(`${idp.base}/oauth2/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...hiddenFields(await page.text()), username: 'uma', password: PASSWORD }),
      redirect: 'manual',
    });
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    const noSecret = await token({ ...form, client_id: id });
    expect(noSecret.status).toBe(401);
    expect(noSecret.headers.get('www-authenticate')).toMatch(/^Basic/);
    const basic = Buffer.from(`${id}:${secret}`).toString('base64');
    const ok = await token(form, { authorization: `Basic ${basic}` });
    expect(ok.status).toBe(200);
    const tokens = (await ok.json()) as { refresh_token: string; access_token: string };

    // /oauth2/revoke (RFC 7009) with client_secret_post
    const revoke = await fetch(`${idp.base}/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token, client_id: id, client_secret: secret }),
    });
    expect(revoke.status).toBe(200);
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { authorization: `Basic ${basic}` });
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
    const info = await fetch(`${idp.base}/oauth2/userInfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(401);
  });

  it('userInfo without a token is 401 with a Bearer challenge; claims follow the scopes', async () => {
    const none = await fetch(`${idp.base}/oauth2/userInfo`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const { verifier, challenge } = pkce();
    const code = new URL((await signInThroughPage({ challenge, scope: 'openid' })).headers.get('location')!).searchParams.get('code')!;
    const tokens = (await (await token({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier })).json()) as {
      access_token: string;
    };
    const info = (await (await fetch(`${idp.base}/oauth2/userInfo`, { headers: { authorization: `bearer ${tokens.access_token}` } })).json()) as Record<string, unknown>;
    expect(Object.keys(info).sort()).toEqual(['sub', 'username']);
  });

  it('logout redirects only to a registered URL', async () => {
    const ok = await fetch(`${idp.base}/logout?client_id=${clientId}&logout_uri=${encodeURIComponent('http://localhost:8080/')}`, { redirect: 'manual' });
    expect(ok.status).toBe(302);
    expect(ok.headers.get('location')).toBe('http://localhost:8080/');
    const oidc = await fetch(`${idp.base}/logout?client_id=${clientId}&post_logout_redirect_uri=${encodeURIComponent('http://localhost:8080/')}&state=x`, {
      redirect: 'manual',
    });
    expect(oidc.headers.get('location')).toBe('http://localhost:8080/?state=x');
    const evil = await fetch(`${idp.base}/logout?client_id=${clientId}&logout_uri=${encodeURIComponent('https://evil.example/')}`, { redirect: 'manual' });
    expect(evil.status).toBe(400);
    const plain = await fetch(`${idp.base}/logout`);
    expect(plain.status).toBe(200);
    expect(await plain.text()).toContain('Signed out');
  });
});
