import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTokenVerifier, type TokenVerifierOptions } from '../src/index.js';
import { b64, deadUrl, makeKey, refusal, seconds, sign, startJwksServer, type JwksServer, type TestKey } from './fixtures.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

let server: JwksServer;
let key1: TestKey;
let key2: TestKey;
let clock: { t: number };

beforeAll(async () => {
  key1 = await makeKey('k1');
  key2 = await makeKey('k2');
  server = await startJwksServer([key1.jwk]);
});
afterAll(() => server.close());
afterEach(() => {
  server.mode = 'ok';
  server.keys = [key1.jwk];
  server.discovery = undefined;
});

function verifier(options: Partial<TokenVerifierOptions> = {}) {
  clock = { t: T0 };
  return createTokenVerifier({ jwksUrl: server.jwksUrl, issuer: server.issuer, now: () => clock.t, ...options });
}

const claims = () => ({ iss: server.issuer, sub: 'sub-1', token_use: 'id', aud: 'client-a', email: 'alice@example.org', 'cognito:username': 'alice', 'cognito:groups': ['ianode_read', 'analysts'] });

describe('createTokenVerifier: valid tokens', () => {
  it('verifies an RS256 token and maps user and groups', async () => {
    const v = verifier();
    const token = await sign(key1, claims(), { nowMs: T0 });
    const result = await v.verify(token);
    expect(result.user).toBe('alice@example.org');
    expect(result.groups).toEqual(['ianode_read', 'analysts']);
    expect(result.claims.sub).toBe('sub-1');
    expect(result.header.kid).toBe('k1');
  });

  it.each(['RS384', 'RS512', 'PS256', 'ES256', 'ES384'])('accepts %s', async (alg) => {
    const key = await makeKey(`key-${alg}`, alg);
    server.keys = [key1.jwk, key.jwk];
    const v = verifier();
    expect((await v.verify(await sign(key, claims(), { nowMs: T0 }))).user).toBe('alice@example.org');
  });

  it('authenticates a header with any case of the Bearer scheme', async () => {
    const v = verifier();
    const token = await sign(key1, claims(), { nowMs: T0 });
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      expect((await v.authenticate(`${scheme} ${token}`)).user).toBe('alice@example.org');
    }
  });

  it('takes the issuer from openIdProviderUrl and the keys from discovery', async () => {
    const v = createTokenVerifier({ openIdProviderUrl: `${server.issuer}/`, now: () => T0 });
    expect(v.issuer).toBe(server.issuer);
    expect((await v.verify(await sign(key1, claims(), { nowMs: T0 }))).user).toBe('alice@example.org');
    expect(server.requests).toContain('/pool/.well-known/openid-configuration');
  });

  it('verifies with an injected fetch and no server at all', async () => {
    const calls: string[] = [];
    const fetch: typeof globalThis.fetch = async (input) => {
      calls.push(String(input));
      return new Response(JSON.stringify({ keys: [key1.jwk] }), { headers: { 'content-type': 'application/json' } });
    };
    const v = createTokenVerifier({ jwksUrl: 'https://idp.invalid/pool/.well-known/jwks.json', issuer: server.issuer, fetch, now: () => T0 });
    expect((await v.verify(await sign(key1, claims(), { nowMs: T0 }))).user).toBe('alice@example.org');
    expect(calls).toEqual(['https://idp.invalid/pool/.well-known/jwks.json']);
  });

  it('fetches the key set once for concurrent requests and then serves from cache', async () => {
    const v = verifier();
    const before = server.jwksRequests();
    const token = await sign(key1, claims(), { nowMs: T0 });
    await Promise.all(Array.from({ length: 10 }, () => v.verify(token)));
    await v.verify(token);
    expect(server.jwksRequests() - before).toBe(1);
    expect(v.jwksFetches).toBe(1);
  });

  it('tries each candidate key for a token without kid', async () => {
    const noKid1 = { ...key1.jwk, kid: undefined };
    const noKid2 = { ...key2.jwk, kid: undefined };
    server.keys = [noKid1, noKid2];
    const v = verifier();
    const token = await sign({ ...key2, kid: undefined as unknown as string }, claims(), { nowMs: T0, header: { kid: undefined } });
    expect((await v.verify(token)).user).toBe('alice@example.org');
    const other = await makeKey('x');
    const bad = await sign({ ...other, kid: undefined as unknown as string }, claims(), { nowMs: T0, header: { kid: undefined } });
    expect((await refusal(v.verify(bad))).reason).toBe('bad_signature');
  });
});

describe('createTokenVerifier: refusals', () => {
  it('refuses a missing or non-bearer header with MISSING_TOKEN', async () => {
    const v = verifier();
    for (const header of [undefined, '', '   ', 'Basic dXNlcjpwYXNz']) {
      expect((await refusal(v.authenticate(header))).code).toBe('MISSING_TOKEN');
    }
  });

  it.each([
    ['not a jwt', 'abc'],
    ['two parts', 'a.b'],
    ['garbage parts', 'a.b.c'],
    ['bad header json', `${Buffer.from('{').toString('base64url')}.${b64({})}.sig`],
    ['huge', 'x'.repeat(20_000)],
  ])('refuses a malformed token (%s) without fetching keys', async (_name, token) => {
    server.mode = 'down';
    const v = verifier();
    const error = await refusal(v.verify(token));
    expect(error.code).toBe('INVALID_TOKEN');
    expect(error.reason).toBe('malformed');
    expect(v.jwksFetches).toBe(0);
  });

  it('refuses an expired token beyond the clock tolerance, accepts one within it', async () => {
    const v = verifier();
    const expired = await sign(key1, { ...claims(), exp: seconds(T0) - 31 }, { nowMs: T0 - 3_600_000 });
    const error = await refusal(v.verify(expired));
    expect([error.code, error.reason, error.message]).toEqual(['INVALID_TOKEN', 'expired', 'token expired: fetch a new one']);
    const justExpired = await sign(key1, { ...claims(), exp: seconds(T0) - 20 }, { nowMs: T0 - 3_600_000 });
    expect((await v.verify(justExpired)).user).toBe('alice@example.org');
  });

  it('refuses a not-yet-valid token beyond the clock tolerance, accepts one within it', async () => {
    const v = verifier();
    const future = await sign(key1, { ...claims(), nbf: seconds(T0) + 60 }, { nowMs: T0 });
    expect((await refusal(v.verify(future))).reason).toBe('not_yet_valid');
    const skewed = await sign(key1, { ...claims(), nbf: seconds(T0) + 20, iat: seconds(T0) + 20 }, { nowMs: T0 });
    expect((await v.verify(skewed)).user).toBe('alice@example.org');
  });

  it('honours a custom clock tolerance', async () => {
    const v = verifier({ clockToleranceSec: 0 });
    const justExpired = await sign(key1, { ...claims(), exp: seconds(T0) - 5 }, { nowMs: T0 - 3_600_000 });
    expect((await refusal(v.verify(justExpired))).reason).toBe('expired');
  });

  it('refuses a token without exp', async () => {
    const v = verifier();
    const token = await sign(key1, claims(), { nowMs: T0, noExp: true });
    expect((await refusal(v.verify(token))).reason).toBe('missing_claim');
  });

  it('refuses a token from another issuer', async () => {
    const v = verifier();
    const token = await sign(key1, { ...claims(), iss: 'http://evil.example/pool' }, { nowMs: T0 });
    const error = await refusal(v.verify(token));
    expect([error.code, error.reason]).toEqual(['INVALID_TOKEN', 'wrong_issuer']);
  });

  it('refuses a token for another audience when one is configured', async () => {
    const v = verifier({ audience: 'client-a' });
    const token = await sign(key1, { ...claims(), aud: 'client-b' }, { nowMs: T0 });
    expect((await refusal(v.verify(token))).reason).toBe('wrong_audience');
    expect((await v.verify(await sign(key1, { ...claims(), aud: 'client-a' }, { nowMs: T0 }))).user).toBe('alice@example.org');
  });

  it('accepts ID tokens of the configured clients only, naming the claim that failed', async () => {
    const v = verifier({ clientIds: ['client-a', 'client-c'] });
    expect((await v.verify(await sign(key1, { ...claims(), aud: 'client-c' }, { nowMs: T0 }))).tokenUse).toBe('id');
    for (const aud of ['client-b', ['client-a', 'client-b'], undefined]) {
      const error = await refusal(v.verify(await sign(key1, { ...claims(), aud }, { nowMs: T0 })));
      expect([error.code, error.reason]).toEqual(['INVALID_TOKEN', 'wrong_audience']);
      expect(error.message).toContain('aud');
    }
  });

  it('refuses access tokens unless configured, and then checks their client_id', async () => {
    const access = (clientId: string) => sign(key1, { iss: server.issuer, sub: 'sub-1', token_use: 'access', client_id: clientId, username: 'alice' }, { nowMs: T0 });
    const idOnly = verifier({ clientIds: ['client-a'] });
    const refused = await refusal(idOnly.verify(await access('client-a')));
    expect([refused.code, refused.reason]).toEqual(['INVALID_TOKEN', 'wrong_token_use']);
    expect(refused.message).toContain('token_use');

    const both = verifier({ clientIds: ['client-a'], tokenUses: ['id', 'access'] });
    const ok = await both.verify(await access('client-a'));
    expect([ok.tokenUse, ok.user, ok.subject]).toEqual(['access', 'alice', 'sub-1']);
    const other = await refusal(both.verify(await access('client-b')));
    expect([other.reason, other.message.includes('client_id')]).toEqual(['wrong_client', true]);
  });

  it('refuses a token without token_use, sub or iss, or with an unknown token_use', async () => {
    const v = verifier();
    const { token_use: _use, ...noUse } = claims();
    const { sub: _sub, ...noSub } = claims();
    expect((await refusal(v.verify(await sign(key1, noUse, { nowMs: T0 })))).reason).toBe('missing_claim');
    expect((await refusal(v.verify(await sign(key1, noSub, { nowMs: T0 })))).reason).toBe('missing_claim');
    expect((await refusal(v.verify(await sign(key1, { ...claims(), token_use: 'refresh' }, { nowMs: T0 })))).reason).toBe('wrong_token_use');
    const noIss = createTokenVerifier({ jwksUrl: server.jwksUrl, now: () => T0 });
    const { iss: _iss, ...withoutIss } = claims();
    expect((await refusal(noIss.verify(await sign(key1, withoutIss, { nowMs: T0 })))).reason).toBe('missing_claim');
  });

  it('names the identity by (iss, sub), not by the display name', async () => {
    const v = verifier();
    const a = await v.verify(await sign(key1, claims(), { nowMs: T0 }));
    const b = await v.verify(await sign(key1, { ...claims(), sub: 'sub-2' }, { nowMs: T0 }));
    expect(a.user).toBe(b.user);
    expect([a.issuer, a.subject]).toEqual([server.issuer, 'sub-1']);
    expect(a.identity).not.toBe(b.identity);
  });

  it('refuses a revoked token, and answers 503-class when revocation state is unavailable', async () => {
    const revoked = verifier({ isRevoked: (c) => c.sub === 'sub-1' });
    expect((await refusal(revoked.verify(await sign(key1, claims(), { nowMs: T0 })))).reason).toBe('revoked');
    expect((await revoked.verify(await sign(key1, { ...claims(), sub: 'sub-2' }, { nowMs: T0 }))).subject).toBe('sub-2');
    const broken = verifier({ isRevoked: () => Promise.reject(new Error('revocation list unreachable')) });
    expect((await refusal(broken.verify(await sign(key1, claims(), { nowMs: T0 })))).code).toBe('REVOCATION_UNAVAILABLE');
  });

  it('refuses a token whose signature does not verify', async () => {
    const v = verifier();
    const forged = await sign({ ...key2, kid: 'k1' }, claims(), { nowMs: T0 });
    expect((await refusal(v.verify(forged))).reason).toBe('bad_signature');
    const good = await sign(key1, claims(), { nowMs: T0 });
    const [h, , s] = good.split('.');
    const tampered = `${h}.${b64({ ...claims(), email: 'admin@example.org', exp: seconds(T0) + 3600 })}.${s}`;
    expect((await refusal(v.verify(tampered))).reason).toBe('bad_signature');
  });

  it('refuses alg: none', async () => {
    const v = verifier();
    const token = `${b64({ alg: 'none', kid: 'k1' })}.${b64({ ...claims(), exp: seconds(T0) + 3600 })}.`;
    const error = await refusal(v.verify(token));
    expect([error.code, error.reason]).toEqual(['INVALID_TOKEN', 'algorithm_not_allowed']);
  });

  it('refuses HS256 signed with the public key as the secret', async () => {
    const v = verifier();
    for (const secret of [JSON.stringify(key1.jwk), key1.jwk.n!]) {
      const input = `${b64({ alg: 'HS256', kid: 'k1', typ: 'JWT' })}.${b64({ ...claims(), exp: seconds(T0) + 3600 })}`;
      const token = `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
      expect((await refusal(v.verify(token))).reason).toBe('algorithm_not_allowed');
    }
  });

  it('refuses an algorithm outside a configured allowlist', async () => {
    const v = verifier({ algorithms: ['ES256'] });
    expect((await refusal(v.verify(await sign(key1, claims(), { nowMs: T0 })))).reason).toBe('algorithm_not_allowed');
  });

  it('will not be configured with a symmetric algorithm or none', () => {
    expect(() => createTokenVerifier({ jwksUrl: server.jwksUrl, algorithms: ['HS256'] })).toThrow(TypeError);
    expect(() => createTokenVerifier({ jwksUrl: server.jwksUrl, algorithms: ['none'] })).toThrow(TypeError);
    expect(() => createTokenVerifier({})).toThrow(TypeError);
  });

  it('refuses a token naming no user', async () => {
    const v = verifier();
    const token = await sign(key1, { iss: server.issuer, sub: 's', token_use: 'id' }, { nowMs: T0 });
    expect((await refusal(verifier({ userClaims: ['email'] }).verify(token))).reason).toBe('no_user_claim');
    expect((await v.verify(token)).user).toBe('s');
  });

  it('refuses an unknown kid', async () => {
    const v = verifier();
    const token = await sign(key2, claims(), { nowMs: T0 });
    const error = await refusal(v.verify(token));
    expect([error.code, error.reason]).toEqual(['INVALID_TOKEN', 'unknown_key']);
  });
});

describe('createTokenVerifier: key set failures fail closed', () => {
  it.each(['down', 'html', 'not-json', 'no-keys'] as const)('JWKS endpoint %s → JWKS_UNAVAILABLE', async (mode) => {
    server.mode = mode;
    const v = verifier();
    const error = await refusal(v.verify(await sign(key1, claims(), { nowMs: T0 })));
    expect(error.code).toBe('JWKS_UNAVAILABLE');
    expect(error.message).not.toContain(server.url);
    expect(String((error.cause as Error).message)).toContain(server.jwksUrl);
  });

  it('JWKS endpoint unreachable → JWKS_UNAVAILABLE', async () => {
    const v = createTokenVerifier({ jwksUrl: `${await deadUrl()}/jwks.json`, now: () => T0 });
    expect((await refusal(v.verify(await sign(key1, claims(), { nowMs: T0 })))).code).toBe('JWKS_UNAVAILABLE');
    await expect(v.warmUp()).rejects.toMatchObject({ code: 'JWKS_UNAVAILABLE' });
  });

  it('JWKS endpoint that never answers → JWKS_UNAVAILABLE after the timeout', async () => {
    server.mode = 'hang';
    const v = verifier({ timeoutMs: 200 });
    expect((await refusal(v.verify(await sign(key1, claims(), { nowMs: T0 })))).code).toBe('JWKS_UNAVAILABLE');
  });

  it('discovery without jwks_uri, or naming another issuer → JWKS_UNAVAILABLE', async () => {
    server.discovery = { issuer: server.issuer };
    let v = createTokenVerifier({ openIdProviderUrl: server.issuer, now: () => T0 });
    expect((await refusal(v.verify(await sign(key1, claims(), { nowMs: T0 })))).code).toBe('JWKS_UNAVAILABLE');
    server.discovery = { issuer: 'http://other', jwks_uri: server.jwksUrl };
    v = createTokenVerifier({ openIdProviderUrl: server.issuer, now: () => T0 });
    expect((await refusal(v.verify(await sign(key1, claims(), { nowMs: T0 })))).code).toBe('JWKS_UNAVAILABLE');
  });

  it('does not use keys past their maximum age when they cannot be refreshed', async () => {
    const v = verifier({ cacheMaxAgeMs: 60_000 });
    const token = await sign(key1, claims(), { nowMs: T0 });
    await v.verify(token);
    server.mode = 'down';
    clock.t = T0 + 30_000;
    await v.verify(token);
    clock.t = T0 + 61_000;
    expect((await refusal(v.verify(token))).code).toBe('JWKS_UNAVAILABLE');
    server.mode = 'ok';
    expect((await v.verify(token)).user).toBe('alice@example.org');
  });
});

describe('createTokenVerifier: key rotation', () => {
  it('picks up a new key on an unknown kid, without restart', async () => {
    const v = verifier({ cooldownMs: 10_000 });
    await v.verify(await sign(key1, claims(), { nowMs: T0 }));
    server.keys = [key1.jwk, key2.jwk];
    clock.t = T0 + 10_000;
    const rotated = await sign(key2, claims(), { nowMs: clock.t });
    expect((await v.verify(rotated)).header.kid).toBe('k2');
    expect(v.jwksFetches).toBe(2);
    expect((await v.verify(await sign(key1, claims(), { nowMs: clock.t }))).header.kid).toBe('k1');
    expect(v.jwksFetches).toBe(2);
  });

  it('refetches at most once per cool-down for unknown kids', async () => {
    const v = verifier({ cooldownMs: 30_000 });
    await v.verify(await sign(key1, claims(), { nowMs: T0 }));
    const before = server.jwksRequests();
    const stranger = await sign(await makeKey('k-unknown'), claims(), { nowMs: T0 });
    clock.t = T0 + 1_000;
    expect((await refusal(v.verify(stranger))).reason).toBe('unknown_key');
    expect(server.jwksRequests() - before).toBe(0);

    clock.t = T0 + 30_000;
    expect((await refusal(v.verify(stranger))).reason).toBe('unknown_key');
    expect(server.jwksRequests() - before).toBe(1);
    for (let i = 0; i < 5; i++) expect((await refusal(v.verify(stranger))).reason).toBe('unknown_key');
    expect(server.jwksRequests() - before).toBe(1);

    server.keys = [key1.jwk, key2.jwk];
    clock.t = T0 + 45_000;
    const rotated = await sign(key2, claims(), { nowMs: T0 });
    expect((await refusal(v.verify(rotated))).reason).toBe('unknown_key');
    clock.t = T0 + 60_000;
    expect((await v.verify(rotated)).header.kid).toBe('k2');
    expect(server.jwksRequests() - before).toBe(2);
  });

  it('accepts a token signed with a freshly rotated key on its first request (default floor)', async () => {
    const v = verifier();
    await v.verify(await sign(key1, claims(), { nowMs: T0 }));
    server.keys = [key1.jwk, key2.jwk];
    clock.t = T0 + 1_000;
    expect((await v.verify(await sign(key2, claims(), { nowMs: clock.t }))).header.kid).toBe('k2');
  });

  it('after a failed fetch, an unknown kid refetches at once: 503 while down, accepted once back', async () => {
    const v = verifier({ cooldownMs: 30_000 });
    await v.verify(await sign(key1, claims(), { nowMs: T0 }));
    server.mode = 'down';
    server.keys = [key1.jwk, key2.jwk];
    const rotated = await sign(key2, claims(), { nowMs: T0 });
    clock.t = T0 + 31_000;
    expect((await refusal(v.verify(rotated))).code).toBe('JWKS_UNAVAILABLE');
    clock.t = T0 + 31_500;
    for (let i = 0; i < 3; i++) expect((await refusal(v.verify(rotated))).code).toBe('JWKS_UNAVAILABLE');
    server.mode = 'ok';
    clock.t = T0 + 32_000;
    expect((await v.verify(rotated)).header.kid).toBe('k2');
  });

  it('answers JWKS_UNAVAILABLE, not a pass, when the refetch for a new kid fails', async () => {
    const v = verifier({ cooldownMs: 0 });
    await v.verify(await sign(key1, claims(), { nowMs: T0 }));
    server.mode = 'down';
    expect((await refusal(v.verify(await sign(key2, claims(), { nowMs: T0 })))).code).toBe('JWKS_UNAVAILABLE');
  });
});

describe('createTokenVerifier: claim mapping', () => {
  it.each([
    [{ email: 'e@x', 'cognito:username': 'cu', username: 'u', preferred_username: 'p', sub: 's' }, 'e@x'],
    [{ 'cognito:username': 'cu', username: 'u', preferred_username: 'p', sub: 's' }, 'cu'],
    [{ username: 'u', preferred_username: 'p', sub: 's' }, 'u'],
    [{ preferred_username: 'p', sub: 's' }, 'p'],
    [{ sub: 's' }, 's'],
    [{ email: '', sub: 's' }, 's'],
  ])('%j names user %s by default', async (userClaims, expected) => {
    const v = verifier();
    expect((await v.verify(await sign(key1, { iss: server.issuer, token_use: 'id', ...userClaims }, { nowMs: T0 }))).user).toBe(expected);
  });

  it('reads the user and groups from configured claims', async () => {
    const v = verifier({ userClaims: ['upn', 'sub'], groupsClaim: 'roles' });
    const token = await sign(key1, { iss: server.issuer, sub: 's', token_use: 'id', upn: 'bob@corp', roles: 'a b,c', 'cognito:groups': ['x'] }, { nowMs: T0 });
    expect(await v.verify(token)).toMatchObject({ user: 'bob@corp', groups: ['a', 'b', 'c'] });
  });

  it('gives no groups when the claim is absent or not a list of strings', async () => {
    const v = verifier();
    expect((await v.verify(await sign(key1, { iss: server.issuer, sub: 's', token_use: 'id' }, { nowMs: T0 }))).groups).toEqual([]);
    const odd = await sign(key1, { iss: server.issuer, sub: 's', token_use: 'id', 'cognito:groups': [1, 'g', null, 'g'] }, { nowMs: T0 });
    expect((await v.verify(odd)).groups).toEqual(['g']);
  });
});
