/**
 * CORS and OPTIONS on the graph server (docs/operations.md, "Browsers and CORS"), secure mode:
 * preflights of every endpoint answered without a token, allowed and refused origins, exposed
 * headers, never credentials, no CORS header by default; and the configuration keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromFileAndEnv, createGraphServer, resolveConfig, type GraphServer } from '../src/index.js';
import { accessStub, CLIENT, ISSUER, jwksServer, makeKey, sign, type Key } from './helpers.js';

const PAGE = 'http://localhost:5173';
const DATA = `PREFIX authz: <http://ndtp.co.uk/security#>
PREFIX : <http://example/>
:person4321 :phone "0400 111 333" .
GRAPH authz:labels { [ authz:pattern ':person4321 :phone "0400 111 333"' ; authz:label "*" ] . }`;

let key: Key;
let jwks: Awaited<ReturnType<typeof jwksServer>>;
let access: Awaited<ReturnType<typeof accessStub>>;
let listed: GraphServer;
let closed: GraphServer;
let any: GraphServer;

async function secureServer(cors?: { origins: string[] }): Promise<GraphServer> {
  const server = await createGraphServer(
    { security: { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] }, graphql: true, ...(cors ? { cors } : {}) },
    { logger: false, jwksCooldownMs: 0 },
  );
  await server.store.load(DATA, { format: 'application/trig' });
  return server;
}

beforeAll(async () => {
  key = await makeKey('k1');
  jwks = await jwksServer([key]);
  access = await accessStub({ 'user@test': ['ianode_read'], 'admin@test': ['ianode_admin', 'ianode_read'] });
  listed = await secureServer({ origins: [PAGE] });
  closed = await secureServer();
  any = await secureServer({ origins: ['*'] });
});

afterAll(async () => {
  for (const server of [listed, closed, any]) await server?.close();
  await jwks.close();
  await access.close();
});

const cors = (headers: Record<string, unknown>) => Object.keys(headers).filter((name) => name.startsWith('access-control-'));

/** Every kind of endpoint, with the method a page would use and the Allow it must be told. */
const ENDPOINTS: Array<[string, string, string]> = [
  ['/ds', 'POST', 'GET, HEAD, POST, OPTIONS'],
  ['/ds/query', 'POST', 'GET, HEAD, POST, OPTIONS'],
  ['/ds/sparql', 'GET', 'GET, HEAD, POST, OPTIONS'],
  ['/ds/update', 'POST', 'GET, HEAD, POST, OPTIONS'],
  ['/ds/graphql', 'POST', 'GET, HEAD, POST, OPTIONS'],
  ['/ds/upload', 'POST', 'POST, OPTIONS'],
  ['/ds/patch', 'POST', 'POST, OPTIONS'],
  ['/ds/data?graph=http%3A%2F%2Fexample%2Fg', 'PUT', 'GET, HEAD, POST, PUT, DELETE, OPTIONS'],
  ['/ds/data/some/graph', 'DELETE', 'GET, HEAD, POST, PUT, DELETE, OPTIONS'],
];

describe('OPTIONS and preflights (secure mode, no token)', () => {
  it('a plain OPTIONS /ds is 204 with Allow, token or not (it was 401, and 404 with a token)', async () => {
    const token = await sign(key, { email: 'user@test' });
    for (const headers of [{}, { authorization: `Bearer ${token}` }, { authorization: 'Bearer not-a-token' }]) {
      const r = await closed.app.inject({ method: 'OPTIONS', url: '/ds', headers });
      expect(r.statusCode).toBe(204);
      expect(r.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
      expect(r.body).toBe('');
      expect(cors(r.headers)).toEqual([]);
    }
  });

  it('an allowed origin: every endpoint preflighted without a token', async () => {
    for (const [url, method, allow] of ENDPOINTS) {
      const r = await listed.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: PAGE, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, security-label' },
      });
      expect(r.statusCode, url).toBe(204);
      expect(r.headers.allow, url).toBe(allow);
      expect(r.headers['access-control-allow-origin'], url).toBe(PAGE);
      expect(r.headers['access-control-allow-methods'], url).toBe(allow);
      expect(String(r.headers['access-control-allow-headers']).toLowerCase(), url).toMatch(/(^|, )authorization(,|$)/);
      expect(String(r.headers['access-control-allow-headers']).toLowerCase(), url).toMatch(/(^|, )security-label(,|$)/);
      expect(r.headers['access-control-allow-credentials'], url).toBeUndefined();
      expect(r.headers.vary, url).toBe('Origin');
    }
  });

  it('the health routes answer preflights too; an unknown dataset path stays fail-closed (401)', async () => {
    const ping = await any.app.inject({ method: 'OPTIONS', url: '/$/ping', headers: { origin: PAGE, 'access-control-request-method': 'GET' } });
    expect(ping.statusCode).toBe(204);
    expect(ping.headers['access-control-allow-origin']).toBe('*');
    const unknown = await any.app.inject({ method: 'OPTIONS', url: '/ds/nothing-here', headers: { origin: PAGE, 'access-control-request-method': 'GET' } });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.headers.allow).toBeUndefined();
  });
});

describe('replies to pages', () => {
  it('allowed origin: the answer and its errors are readable, with the request id exposed; never credentials', async () => {
    const token = await sign(key, { email: 'user@test' });
    const ok = await listed.app.inject({
      method: 'POST',
      url: '/ds/query',
      headers: { origin: PAGE, authorization: `Bearer ${token}`, 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' },
      payload: 'SELECT ?o WHERE { ?s ?p ?o }',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().results.bindings).toEqual([{ o: { type: 'literal', value: '0400 111 333' } }]);
    expect(ok.headers['access-control-allow-origin']).toBe(PAGE);
    expect(ok.headers['access-control-allow-credentials']).toBeUndefined();
    const exposed = String(ok.headers['access-control-expose-headers']).toLowerCase().split(', ');
    for (const name of ['retry-after', 'location', 'content-disposition', 'x-request-id']) expect(exposed).toContain(name);
    expect(String(ok.headers.vary)).toMatch(/(^|, )Origin$/);

    const graphql = await listed.app.inject({
      method: 'POST',
      url: '/ds/graphql',
      headers: { origin: PAGE, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: { query: '{ node(uri: "http://example/person4321") { id } }' },
    });
    expect(graphql.statusCode).toBe(200);
    expect(graphql.headers['access-control-allow-origin']).toBe(PAGE);

    const refused = await listed.app.inject({ method: 'GET', url: '/ds/query?query=ASK%7B%7D', headers: { origin: PAGE } });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(PAGE);
    expect(refused.body).not.toContain('0400');
  });

  it('an origin not listed, or the default (none): no CORS header at all, the usual status', async () => {
    const token = await sign(key, { email: 'user@test' });
    for (const [server, origin] of [[listed, 'https://elsewhere.example'], [closed, PAGE]] as const) {
      const pre = await server.app.inject({ method: 'OPTIONS', url: '/ds/query', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });
      expect(pre.statusCode).toBe(204);
      expect(cors(pre.headers)).toEqual([]);
      const get = await server.app.inject({ method: 'GET', url: '/ds/query?query=ASK%7B%3Fs%20%3Fp%20%3Fo%7D', headers: { origin, authorization: `Bearer ${token}` } });
      expect(get.statusCode).toBe(200);
      expect(cors(get.headers)).toEqual([]);
    }
  });

  it('* answers any origin with *, no credentials', async () => {
    const r = await any.app.inject({ method: 'GET', url: '/ds/query?query=ASK%7B%7D', headers: { origin: 'http://127.0.0.1:9999' } });
    expect(r.statusCode).toBe(401);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

describe('configuration', () => {
  it('cors.origins from the file, CORS_ORIGINS over it; none by default; a bad origin named', async () => {
    expect(resolveConfig({}).cors).toEqual({ origins: [] });
    expect(resolveConfig({ cors: { origins: [PAGE] } }).cors).toEqual({ origins: [PAGE] });
    const fromEnv = await configFromFileAndEnv(undefined, { CORS_ORIGINS: 'https://a.example, http://localhost:8080' });
    expect(resolveConfig(fromEnv).cors.origins).toEqual(['https://a.example', 'http://localhost:8080']);
    expect(resolveConfig(await configFromFileAndEnv(undefined, { CORS_ORIGINS: '' })).cors.origins).toEqual([]);
    expect(() => resolveConfig({ cors: { origins: ['https://a.example/app'] } })).toThrow(/cors.origins: "https:\/\/a.example\/app" is not an origin/);
  });

  it('the shipped secure configuration allows no origin unless CORS_ORIGINS says so', async () => {
    const file = new URL('../../../config/graph-secure.yaml', import.meta.url).pathname;
    expect(resolveConfig(await configFromFileAndEnv(file, { DATA_DIR: '/tmp/x' })).cors.origins).toEqual([]);
    expect(resolveConfig(await configFromFileAndEnv(file, { DATA_DIR: '/tmp/x', CORS_ORIGINS: '*' })).cors.origins).toEqual(['*']);
  });
});
