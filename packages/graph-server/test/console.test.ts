/**
 * The web console's routes (src/routes/console.ts, docs/console.md) on a secure server: the shell
 * and its assets need no token and carry a strict CSP and the right cache headers, the config
 * document comes from the server's configuration, the dataset routes still need a token, and
 * unknown paths keep the JSON 404. A console build of its own is made in a temporary folder.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv, createGraphServer, resolveConfig, type GraphServer } from '../src/index.js';
import { consoleOptions, contentSecurityPolicy, isConsoleRoute, registerConsole } from '../src/routes/console.js';
import { authority, CLIENT, ISSUER, type Authority } from './helpers.js';

const INDEX = '<!doctype html><title>console</title><script type="module" src="/console/assets/app-3f2a.js"></script>';

let idp: Authority;
let server: GraphServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ianode-console-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), INDEX);
  writeFileSync(path.join(dir, 'assets/app-3f2a.js'), 'console.log("app");\n');
  writeFileSync(path.join(dir, 'assets/app-3f2a.css'), 'body { color: black }\n');
  writeFileSync(path.join(dir, 'assets/font-1.ttf'), Buffer.from([0, 1, 0, 0]));
  writeFileSync(path.join(dir, 'assets/.secret'), 'not served');
  writeFileSync(path.join(dir, 'outside.txt'), 'not an asset');
  idp = await authority({ 'user@test': ['ianode_read'] });
  server = await createGraphServer(
    { security: idp.security, graphql: true, console: { dir } },
    { logger: false, jwksCooldownMs: 0 },
  );
});

afterAll(async () => {
  await server?.close();
  await idp?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the console on a secure graph server', () => {
  it('GET / is the page, without a token, with a strict CSP and no-cache', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const r = await server.app.inject({ method, url: '/' });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(r.headers['cache-control']).toBe('no-cache');
      expect(r.headers['x-frame-options']).toBe('DENY');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      const csp = String(r.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toContain(`connect-src 'self' http://idp.test ${new URL(idp.access.url).origin}`);
      expect(csp).toContain("frame-ancestors 'none'");
      if (method === 'GET') expect(r.body).toBe(INDEX);
    }
    // A token, even a bad one, changes nothing for the static shell.
    expect((await server.app.inject({ method: 'GET', url: '/', headers: { authorization: 'Bearer nonsense' } })).statusCode).toBe(200);
  });

  it('assets: content types, immutable caching, the CSP; no dotfiles, nothing outside assets/', async () => {
    const js = await server.app.inject({ method: 'GET', url: '/console/assets/app-3f2a.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['content-security-policy']).toContain("script-src 'self'");
    expect(js.body).toBe('console.log("app");\n');
    expect((await server.app.inject({ method: 'GET', url: '/console/assets/app-3f2a.css' })).headers['content-type']).toMatch(/^text\/css/);
    expect((await server.app.inject({ method: 'GET', url: '/console/assets/font-1.ttf' })).headers['content-type']).toMatch(/^font\/ttf/);
    for (const url of ['/console/assets/missing.js', '/console/assets/.secret', '/console/assets/../outside.txt', '/console/assets/%2e%2e/outside.txt', '/console/assets/']) {
      const r = await server.app.inject({ method: 'GET', url });
      expect([403, 404], url).toContain(r.statusCode);
      expect(r.body, url).not.toContain('not served');
      expect(r.body, url).not.toContain('not an asset');
    }
    const missing = await server.app.inject({ method: 'GET', url: '/console/assets/missing.js' });
    expect(missing.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('GET /console/config.json: what the page needs to sign in, from the configuration', async () => {
    const r = await server.app.inject({ method: 'GET', url: '/console/config.json' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['cache-control']).toBe('no-cache');
    expect(r.json()).toEqual({ issuer: ISSUER, clientId: CLIENT, accessServiceUrl: idp.access.url, dataset: 'ds', labelsLegacy: true, graphql: true, mode: 'secure' });
  });

  it('the data stays behind the token; unknown paths keep the JSON 404', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/ds/query?query=ASK%7B%7D' })).statusCode).toBe(401);
    expect((await server.app.inject({ method: 'GET', url: '/ds/labels/stats' })).statusCode).toBe(401);
    const unknown = await server.app.inject({ method: 'GET', url: '/console/other' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'NOT_FOUND', message: 'no endpoint GET /console/other' });
    const token = idp.tokens['user@test']!;
    const query = await server.app.inject({ method: 'GET', url: '/ds/query?query=ASK%7B%7D', headers: { authorization: `Bearer ${token}`, accept: 'application/sparql-results+json' } });
    expect(query.statusCode).toBe(200);
  });

  it('only the console\'s own routes are public', () => {
    expect(['/', '/console/config.json', '/console/assets/*'].every(isConsoleRoute)).toBe(true);
    for (const route of ['/ds', '/ds/query', '/console', '/console/other', '/consoleX', '/x/']) expect(isConsoleRoute(route), route).toBe(false);
  });
});

describe('consoleOptions and registerConsole', () => {
  const secure = resolveConfig({ security: { jwksUrl: 'http://idp/jwks.json', openIdProviderUrl: 'http://idp.test/pool/', userAttributesUrl: 'http://access.test:8091/users/lookup/{user}', clientIds: ['c1', 'c2'] } });

  it('takes the issuer, the first client and the access service\'s origin from the security settings', () => {
    expect(consoleOptions(secure)).toEqual({
      client: { issuer: 'http://idp.test/pool', clientId: 'c1', accessServiceUrl: 'http://access.test:8091', dataset: 'ds', labelsLegacy: true, graphql: false, mode: 'secure' },
    });
  });

  it('the environment overrides each (the browser may reach the services at other addresses)', () => {
    const env = { CONSOLE_ISSUER: 'https://login.example/pool', CONSOLE_CLIENT_ID: 'web', CONSOLE_ACCESS_SERVICE_URL: 'https://access.example/', CONSOLE_DIR: '/srv/console' };
    const options = consoleOptions(resolveConfig(configFromEnv(env, { security: secure.security })));
    expect(options).toMatchObject({ dir: '/srv/console', client: { issuer: 'https://login.example/pool', clientId: 'web', accessServiceUrl: 'https://access.example' } });
    expect(contentSecurityPolicy(options.client)).toContain("connect-src 'self' https://login.example https://access.example;");
  });

  it('open mode: no sign-in; a secure server without an issuer: no config (the page says it cannot sign in)', async () => {
    expect(consoleOptions(resolveConfig({})).client).toMatchObject({ mode: 'open', issuer: '' });
    const noIssuer = resolveConfig({ security: { jwksUrl: 'http://idp/jwks.json', userAttributesUrl: 'http://a', clientIds: ['c'] } });
    const options = consoleOptions(noIssuer);
    expect(options.client).toBeUndefined();
    expect(contentSecurityPolicy(undefined)).toContain("connect-src 'self';");
    const app = Fastify({ logger: false });
    app.setErrorHandler(async (error, _request, reply) => reply.code(404).send({ message: (error as Error).message }));
    registerConsole(app, { ...options, dir });
    const r = await app.inject({ method: 'GET', url: '/console/config.json' });
    expect(r.statusCode).toBe(404);
    expect(r.body).toContain('CONSOLE_ISSUER');
    expect((await app.inject({ method: 'GET', url: '/' })).body).toBe(INDEX);
    await app.close();
  });

  it('without a build, / says how to make one (open mode: the config says there is no sign-in)', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'ianode-console-empty-'));
    let open: GraphServer | undefined;
    try {
      open = await createGraphServer({ console: { dir: empty } }, { logger: false });
      const r = await open.app.inject({ method: 'GET', url: '/' });
      expect(r.statusCode).toBe(404);
      expect(r.json()).toMatchObject({ code: 'NOT_FOUND' });
      expect(r.json().message).toContain('npm run build');
      expect((await open.app.inject({ method: 'GET', url: '/console/config.json' })).json()).toMatchObject({ mode: 'open' });
    } finally {
      await open?.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
