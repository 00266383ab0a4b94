/** SPEC §2/§10 over HTTP: every bad token or failing dependency gets its status and no data. */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { accessStub, ADMIN_AND_USER, authority, b64, CLIENT, ISSUER, jwksServer, labelledTrig, makeKey, sign, SPEC_EXAMPLE, type Authority, type Key } from './helpers.js';

const DATA = labelledTrig([...SPEC_EXAMPLE, [':doc :secret "TS only"', 'clearance=S']]);

const DIRECTORY = { ...ADMIN_AND_USER, 'disabled@test': [] };

let idp: Authority;
let key: Key;
let other: Key;
let jwks: Awaited<ReturnType<typeof jwksServer>>;
let access: Awaited<ReturnType<typeof accessStub>>;
let server: GraphServer;
let base: string;

async function secureServer(jwksUrl: string, accessUrl: string, extra: Record<string, unknown> = {}) {
  return createGraphServer(
    { security: { jwksUrl, openIdProviderUrl: ISSUER, userAttributesUrl: accessUrl, clientIds: [CLIENT] }, ...extra },
    { logger: false, jwksCooldownMs: 0 },
  );
}

const QUERY = 'SELECT ?s ?p ?o WHERE { ?s ?p ?o }';

async function query(token: string | undefined, url = base, scheme = 'Bearer') {
  return fetch(`${url}/ds/query?query=${encodeURIComponent(QUERY)}`, { headers: token === undefined ? {} : { authorization: `${scheme} ${token}` } });
}

function expectNoData(text: string) {
  expect(text).not.toContain('0400 111 333');
  expect(text).not.toContain('person');
}

beforeAll(async () => {
  idp = await authority(DIRECTORY);
  ({ key, jwks, access } = idp);
  other = await makeKey('k1'); // same kid, different key
  server = await secureServer(`${jwks.url}/jwks.json`, access.url);
  await server.store.load(DATA, { format: 'application/trig' });
  base = await server.listen({ port: 0 });
});

afterAll(async () => {
  await server.close();
  await idp.close();
});

describe('tokens (SPEC §2)', () => {
  it('valid tokens: admin and user see different, exact views; scheme is case-insensitive', async () => {
    const admin = await query(await sign(key, { email: 'admin@test' }), base, 'bearer');
    expect(admin.status).toBe(200);
    const a = (await admin.json()) as { results: { bindings: unknown[] } };
    expect(a.results.bindings).toHaveLength(3);
    const user = await query(await sign(key, { email: 'user@test' }), base, 'BEARER');
    const u = (await user.json()) as { results: { bindings: Array<Record<string, { value: string }>> } };
    expect(u.results.bindings.map((b) => b.o!.value)).toEqual(['0400 111 333']);
  });

  it('no token: 401, WWW-Authenticate, JSON body', async () => {
    const response = await query(undefined);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="ianode"');
    const body = await response.json();
    expect(body).toMatchObject({ code: 'MISSING_TOKEN' });
  });

  const invalid: Array<[string, () => Promise<string>]> = [
    ['malformed', async () => 'not-a-jwt'],
    ['expired', () => sign(key, { email: 'admin@test' }, { expiresIn: Math.floor(Date.now() / 1000) - 3600 })],
    ['not yet valid', () => sign(key, { email: 'admin@test' }, { notBefore: Math.floor(Date.now() / 1000) + 3600, expiresIn: Math.floor(Date.now() / 1000) + 7200 })],
    ['wrong issuer', () => sign(key, { email: 'admin@test' }, { issuer: 'http://evil.test/pool' })],
    ['unknown kid', () => sign(key, { email: 'admin@test' }, { kid: 'nobody-knows' })],
    ['signature by another key', () => sign(other, { email: 'admin@test' })],
    ['alg none', async () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ email: 'admin@test', iss: ISSUER, exp: Math.floor(Date.now() / 1000) + 600 })}.`],
    [
      'HS256 signed with the public key',
      async () => {
        const head = `${b64({ alg: 'HS256', typ: 'JWT', kid: 'k1' })}.${b64({ email: 'admin@test', iss: ISSUER, exp: Math.floor(Date.now() / 1000) + 600 })}`;
        const secret = JSON.stringify(key.publicJwk);
        return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
      },
    ],
  ];
  for (const [name, make] of invalid) {
    it(`${name}: 401 invalid_token, no data`, async () => {
      const response = await query(await make());
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
      const text = await response.text();
      expectNoData(text);
      expect(JSON.parse(text)).toMatchObject({ code: 'INVALID_TOKEN' });
    });
  }

  it('a disabled (inactive) user has no attributes: 403 naming the operation, no data', async () => {
    const response = await query(await sign(key, { email: 'disabled@test', 'cognito:groups': ['ianode_read', 'ianode_admin'] }));
    expect(response.status).toBe(403);
    const text = await response.text();
    expectNoData(text);
    expect(JSON.parse(text).message).toContain('read');
  });

  it('an ordinary user uploading: 403 naming the operation, nothing stored', async () => {
    const before = server.store.stats().quads;
    const response = await fetch(`${base}/ds/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await sign(key, { email: 'user@test' })}`, 'content-type': 'text/turtle' },
      body: '<http://example/x> <http://example/y> "z" .',
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { message: string }).message).toContain('write');
    expect(server.store.stats().quads).toBe(before);
  });

  it('key rotation at the IdP is picked up without restart', async () => {
    const rotated = await makeKey('k2');
    jwks.keys = [key, rotated];
    const response = await query(await sign(rotated, { email: 'admin@test' }));
    expect(response.status).toBe(200);
    jwks.keys = [key];
  });

  it('health endpoints need no token', async () => {
    expect((await fetch(`${base}/$/ping`)).status).toBe(200);
    const ready = await fetch(`${base}/$/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, mode: 'secure' });
    const metrics = await fetch(`${base}/$/metrics`);
    expect(await metrics.text()).toContain('ianode_http_requests_total');
  });
});

describe('identity and token kind (issue 13)', () => {
  it('a second subject with the admin\'s e-mail never gets the admin\'s attributes, even right after the admin', async () => {
    expect((await query(await sign(key, { email: 'admin@test', sub: 'admin@test' }))).status).toBe(200);
    const lookupsBefore = access.lookups;
    for (const verified of [true, false]) {
      const twin = await sign(key, { email: 'admin@test', email_verified: verified, sub: 'someone-else', 'cognito:groups': ['ianode_admin'] });
      const response = await query(twin);
      expect(response.status).toBe(403);
      expectNoData(await response.text());
    }
    // The twin was looked up on its own (by sub, then cached under its own key): the admin's cached
    // attributes were not reused.
    expect(access.lookups - lookupsBefore).toBe(1);
  });

  it('an access token, or an ID token of another client, is refused with the claim named', async () => {
    const accessToken = await sign(key, { token_use: 'access', client_id: CLIENT, username: 'admin@test', sub: 'admin@test', aud: undefined });
    const refused = await query(accessToken);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await refused.json()).toMatchObject({ code: 'INVALID_TOKEN', message: expect.stringContaining('token_use') });
    const otherClient = await query(await sign(key, { email: 'admin@test', aud: 'another-client-of-the-pool' }));
    expect(otherClient.status).toBe(401);
    expect(await otherClient.json()).toMatchObject({ code: 'INVALID_TOKEN', message: expect.stringContaining('aud') });
    const upload = await fetch(`${base}/ds/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'text/turtle' },
      body: '<http://example/x> <http://example/y> "z" .',
    });
    expect(upload.status).toBe(401);
  });

  it('access tokens only when configured, and then only of the configured clients', async () => {
    const s = await createGraphServer(
      { security: { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT], acceptAccessTokens: true } },
      { logger: false },
    );
    const url = await s.listen({ port: 0 });
    const accessToken = (clientId: string) => sign(key, { token_use: 'access', client_id: clientId, username: 'admin@test', sub: 'admin@test', aud: undefined });
    expect((await query(await accessToken(CLIENT), url)).status).toBe(200);
    const other = await query(await accessToken('another-client'), url);
    expect(other.status).toBe(401);
    expect(await other.json()).toMatchObject({ message: expect.stringContaining('client_id') });
    await s.close();
  });

  it('secure mode without client ids refuses to start, saying what to set', async () => {
    await expect(
      createGraphServer({ security: { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url } }, { logger: false }),
    ).rejects.toThrow(/TOKEN_CLIENT_IDS/);
  });
});

describe('logs (issue 13)', () => {
  /** A secure-mode server whose log lines are kept, and an admin token. */
  async function loggedServer() {
    const lines: string[] = [];
    const s = await createGraphServer(
      { security: { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] } },
      { logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } } as never },
    );
    return { lines, s, url: await s.listen({ port: 0 }), token: await sign(key, { email: 'admin@test' }) };
  }

  it('a token in the query string never appears in the log; neither do code, refresh_token or password', async () => {
    const { lines, s, url, token } = await loggedServer();
    const response = await fetch(`${url}/ds/query?query=${encodeURIComponent(QUERY)}&access_token=${token}&code=c0de-secret&refresh_token=r3fresh&password=pa55word`);
    expect(response.status).toBe(401);
    await fetch(`${url}/ds/query?query=${encodeURIComponent(QUERY)}&whatever=${token}`, { headers: { authorization: `Bearer ${token}` } });
    await s.close();
    const log = lines.join('\n');
    expect(log).toContain('/ds/query');
    for (const secret of [token, token.split('.')[2]!, 'c0de-secret', 'r3fresh', 'pa55word']) expect(log).not.toContain(secret);
  });

  it('a token echoed in an error message (graph IRI, path, query text) never appears in the log', async () => {
    const { lines, s, url, token } = await loggedServer();
    const headers = { authorization: `Bearer ${token}` };
    const graph = await fetch(`${url}/ds/data?graph=${encodeURIComponent(`http://example/x?access_token=${token}`)}`, { headers });
    expect(graph.status).toBe(404);
    expect((await fetch(`${url}/ds/data;access_token=${token}`, { headers })).status).toBe(404);
    expect((await fetch(`${url}/ds/query?query=${encodeURIComponent(`ASK {} ${token}`)}`, { headers })).status).toBe(400);
    await s.close();
    const log = lines.join('\n');
    expect(log).toContain('no graph');
    expect(log).toContain('SPARQL_SYNTAX');
    for (const secret of [token, token.split('.')[1]!, token.split('.')[2]!]) expect(log).not.toContain(secret);
  });
});

describe('key rotation and JWKS outages with the default refetch floor', () => {
  async function clocked() {
    const keys = await jwksServer([key]);
    const clock = { offset: 0 };
    const s = await createGraphServer(
      { security: { jwksUrl: `${keys.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] } },
      { logger: false, now: () => Date.now() + clock.offset },
    );
    await s.store.load(DATA, { format: 'application/trig' });
    const url = await s.listen({ port: 0 });
    expect((await query(await sign(key, { email: 'admin@test' }), url)).status).toBe(200);
    return { keys, clock, s, url, async close() { await s.close(); await keys.close(); } };
  }

  it('a valid token signed with a freshly rotated key is accepted on its first request', async () => {
    const node = await clocked();
    const rotated = await makeKey('k-new');
    node.keys.keys = [key, rotated];
    node.clock.offset = 1_000;
    expect((await query(await sign(rotated, { email: 'admin@test' }), node.url)).status).toBe(200);
    await node.close();
  });

  it('JWKS down: a well-formed token gets 503 JWKS_UNAVAILABLE on every request, never 401', async () => {
    const node = await clocked();
    node.keys.mode = 'down';
    node.clock.offset = 2_000;
    const rotated = await makeKey('k-new');
    const token = await sign(rotated, { email: 'admin@test' });
    for (let i = 0; i < 3; i++) {
      const response = await query(token, node.url);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ code: 'JWKS_UNAVAILABLE' });
    }
    node.keys.keys = [key, rotated];
    node.keys.mode = 'ok';
    expect((await query(token, node.url)).status).toBe(200);
    await node.close();
  });
});

describe('dependencies fail closed (SPEC §10)', () => {
  for (const mode of ['down', 'html'] as const) {
    it(`JWKS ${mode === 'down' ? 'endpoint down' : 'answering HTML'}: 503, no data`, async () => {
      const broken = await jwksServer([key]);
      broken.mode = mode;
      const s = await secureServer(`${broken.url}/jwks.json`, access.url);
      await s.store.load(DATA, { format: 'application/trig' });
      const url = await s.listen({ port: 0 });
      const response = await query(await sign(key, { email: 'admin@test' }), url);
      expect(response.status).toBe(503);
      expectNoData(await response.text());
      await s.close();
      await broken.close();
    });
  }

  it('access service down after start: 503 "attribute service unavailable", no data', async () => {
    const flaky = await accessStub(DIRECTORY);
    const s = await secureServer(`${jwks.url}/jwks.json`, flaky.url);
    await s.store.load(DATA, { format: 'application/trig' });
    const url = await s.listen({ port: 0 });
    await flaky.close();
    const response = await query(await sign(key, { email: 'admin@test' }), url);
    expect(response.status).toBe(503);
    const text = await response.text();
    expectNoData(text);
    expect(JSON.parse(text).message).toBe('attribute service unavailable');
    expect((await fetch(`${url}/$/ready`)).status).toBe(503);
    await s.close();
  });

  it('access service unreachable at start: refuses to start with a clear message', async () => {
    await expect(secureServer(`${jwks.url}/jwks.json`, 'http://127.0.0.1:9')).rejects.toThrow(/access service not reachable.*--wait/s);
  });
});

describe('limits', () => {
  it('per-user rate limit: 429 with Retry-After', async () => {
    const s = await secureServer(`${jwks.url}/jwks.json`, access.url, { limits: { requestsPerMinute: 2 } });
    const url = await s.listen({ port: 0 });
    const token = await sign(key, { email: 'user@test' });
    expect((await query(token, url)).status).toBe(200);
    expect((await query(token, url)).status).toBe(200);
    const third = await query(token, url);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    await s.close();
  });
});
