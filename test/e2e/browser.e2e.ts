/**
 * Real browsers against `npm start` (issue 15, acceptance): Debian's Chromium driven by Playwright.
 *
 * 1. A page served from another origin (its own small HTTP server) signs a demo user in through
 *    the IdP's Cognito JSON API (`InitiateAuth`, `USER_PASSWORD_AUTH`), queries SPARQL (SELECT,
 *    JSON) and GraphQL with the bearer token, calls the access service's `/whoami` and reads the
 *    IdP's discovery document and JWKS: everything the demo's `CORS_ORIGINS=*` allows.
 * 2. An `openid-client` relying party (its own server, a callback route) registered as a new app
 *    client with the `aws` CLI (as with Cognito: the callback URL must be registered exactly);
 *    the browser fills in the IdP's sign-in form at `/oauth2/authorize`, lands on the callback,
 *    and openid-client exchanges the code (PKCE) and validates the ID token.
 * 3. A node started with no allowed origins (`CORS_ORIGINS=` empty: the secure default) blocks
 *    the same page: its fetches fail in the browser, while the same requests from Node succeed.
 *
 * Without /usr/bin/chromium the file is skipped, saying so, except in CI (CI=true), where that is
 * a failure: `.ci/run` installs it (`apt-get install chromium`). No browser is ever downloaded.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as oidc from 'openid-client';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NpmStartNode } from './support.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
const haveAws = (() => {
  try {
    execFileSync('aws', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const POOL = 'local_ianode01';
const DEMO_CLIENT = 'ianodedemoclient0000000001';
const USER = 'user@ianode.local';
const PASSWORD = process.env.IDP_ADMIN_PASSWORD || 'Ianode-demo-1';

/** A small HTTP server on a free port of 127.0.0.1; `handler` answers every request. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The browser application: `window.runDemo(cfg)` makes the calls a single-page app would, renders
 * each outcome into `#out`, and returns them. A blocked request is recorded as its error message.
 */
const APP_JS = String.raw`
const out = document.getElementById('out');
async function call(name, url, init) {
  try {
    const r = await fetch(url, init);
    const text = await r.text();
    let body = text;
    try { body = JSON.parse(text); } catch {}
    return { name, status: r.status, type: r.headers.get('content-type'), requestId: r.headers.get('x-request-id') || r.headers.get('x-amzn-requestid'),
      wwwAuthenticate: r.headers.get('www-authenticate'), body };
  } catch (error) {
    return { name, blocked: String(error && error.message || error) };
  }
}
function render(results) {
  out.textContent = results.map((r) => r.name + ': ' + (r.blocked ? 'blocked (' + r.blocked + ')' : r.status)).join('\n');
  out.dataset.done = 'true';
}
window.runDemo = async function (cfg) {
  const results = [];
  let token = cfg.token;
  if (!token) {
    const auth = await call('InitiateAuth', cfg.idp + '/', {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
      body: JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: cfg.clientId, AuthParameters: { USERNAME: cfg.username, PASSWORD: cfg.password } }),
    });
    results.push(auth);
    token = auth.body && auth.body.AuthenticationResult && auth.body.AuthenticationResult.IdToken;
  }
  const bearer = { authorization: 'Bearer ' + token };
  results.push(await call('sparql', cfg.graph + '/ds/query', {
    method: 'POST',
    headers: { ...bearer, 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' },
    body: 'SELECT ?phone WHERE { <http://example/person4321> <http://example/phone> ?phone }',
  }));
  results.push(await call('sparql-get', cfg.graph + '/ds?query=' + encodeURIComponent('ASK { ?s ?p ?o }'), { headers: { ...bearer, accept: 'application/sparql-results+json' } }));
  results.push(await call('sparql-no-token', cfg.graph + '/ds/query?query=' + encodeURIComponent('ASK { ?s ?p ?o }')));
  results.push(await call('graphql', cfg.graph + '/ds/graphql', {
    method: 'POST',
    headers: { ...bearer, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ node(uri: "http://example/person4321") { id properties { predicate value } } }' }),
  }));
  results.push(await call('whoami', cfg.access + '/whoami', { headers: bearer }));
  results.push(await call('discovery', cfg.idp + '/' + cfg.pool + '/.well-known/openid-configuration'));
  results.push(await call('jwks', cfg.idp + '/' + cfg.pool + '/.well-known/jwks.json'));
  render(results);
  return results;
};
`;

const PAGE_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ianode browser app</title></head>
<body><h1>ianode from another origin</h1><pre id="out">not run</pre><script src="/app.js"></script></body></html>`;

interface CallResult {
  name: string;
  status?: number;
  type?: string | null;
  requestId?: string | null;
  wwwAuthenticate?: string | null;
  body?: unknown;
  blocked?: string;
}

function missingBrowserReason(): string {
  return `${CHROMIUM} is absent (install Debian's chromium: apt-get install chromium); these browser tests need it`;
}

if (!haveChromium && !inCi) {
  console.warn(`test/e2e/browser.e2e.ts skipped: ${missingBrowserReason()}`);
  describe.skip(`browser tests skipped: ${missingBrowserReason()}`, () => {
    it('needs Chromium', () => undefined);
  });
} else {
  describe('a browser page and an OIDC relying party against npm start', () => {
    let node: NpmStartNode;
    let browser: Browser | undefined;
    let context: BrowserContext | undefined;
    let profile: string | undefined;
    let site: Awaited<ReturnType<typeof serve>> | undefined;
    let rp: Awaited<ReturnType<typeof serve>> | undefined;
    const urls = { idp: '', access: '', graph: '' };

    beforeAll(async () => {
      if (!haveChromium) throw new Error(`CI=true: ${missingBrowserReason()} (.ci/run installs it)`);
      node = new NpmStartNode('e2e-browser');
      await node.start();
      urls.idp = `http://localhost:${node.ports.idp}`;
      urls.access = `http://localhost:${node.ports.access}`;
      urls.graph = `http://localhost:${node.ports.graph}`;
      site = await serve((req, res) => {
        if (req.url === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(APP_JS);
        else if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE_HTML);
        else res.writeHead(404).end();
      });
      profile = mkdtempSync(path.join(tmpdir(), 'ianode-chromium-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      browser = context.browser() ?? undefined;
    });

    afterAll(async () => {
      await context?.close();
      await browser?.close();
      await site?.close();
      await rp?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
      await node?.dispose();
    });

    async function openSite(): Promise<Page> {
      const page = await context!.newPage();
      await page.goto(site!.url);
      return page;
    }

    it('the page on another origin signs in, queries SPARQL and GraphQL, calls /whoami, reads discovery and JWKS', async () => {
      const page = await openSite();
      const results = await page.evaluate(
        (cfg) => (globalThis as unknown as { runDemo(c: typeof cfg): Promise<CallResult[]> }).runDemo(cfg),
        { ...urls, pool: POOL, clientId: DEMO_CLIENT, username: USER, password: PASSWORD },
      );
      const by = Object.fromEntries(results.map((r) => [r.name, r]));
      for (const r of results) expect(r.blocked, `${r.name} blocked`).toBeUndefined();

      const auth = by.InitiateAuth!;
      expect(auth.status).toBe(200);
      expect(auth.requestId).toBeTruthy(); // x-amzn-requestid is exposed

      const sparql = by.sparql!;
      expect(sparql.status).toBe(200);
      expect(sparql.type).toMatch(/^application\/sparql-results\+json/);
      expect(sparql.requestId).toBeTruthy(); // x-request-id is exposed
      const bindings = (sparql.body as { results: { bindings: Array<{ phone: { value: string } }> } }).results.bindings;
      expect(bindings.map((b) => b.phone.value)).toEqual(['0400 111 333']);
      expect((by['sparql-get']!.body as { boolean: boolean }).boolean).toBe(true);

      // An error is readable by the page too (status, body, WWW-Authenticate), and carries no data.
      const refused = by['sparql-no-token']!;
      expect(refused.status).toBe(401);
      expect(refused.wwwAuthenticate).toMatch(/^Bearer/i);
      expect(JSON.stringify(refused.body)).not.toContain('0400');

      expect(by.graphql!.status).toBe(200);
      expect(by.graphql!.body).toEqual({ data: { node: { id: 'http://example/person4321', properties: [{ predicate: 'http://example/phone', value: '0400 111 333' }] } } });

      const whoami = by.whoami!;
      expect(whoami.status).toBe(200);
      expect(whoami.body).toMatchObject({ email: USER, active: true });
      expect((whoami.body as { groups: string[] }).groups).toContain('ianode_read');

      expect(by.discovery!.status).toBe(200);
      expect(by.discovery!.body).toMatchObject({ issuer: `${urls.idp}/${POOL}`, jwks_uri: `${urls.idp}/${POOL}/.well-known/jwks.json` });
      expect(by.jwks!.status).toBe(200);
      expect((by.jwks!.body as { keys: unknown[] }).keys.length).toBeGreaterThan(0);

      // What the page rendered.
      await page.waitForSelector('#out[data-done="true"]');
      const text = await page.textContent('#out');
      expect(text).toContain('sparql: 200');
      expect(text).toContain('graphql: 200');
      expect(text).toContain('whoami: 200');
      expect(text).toContain('sparql-no-token: 401');
      await page.close();
    });

    it.skipIf(!haveAws && !inCi)('openid-client: authorization code + PKCE through the IdP sign-in page, ID token validated', async () => {
      // The relying party: its callback URL registered on a new app client, as with Cognito.
      let settle!: { resolve(value: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): void; reject(error: unknown): void };
      const done = new Promise<oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers>((resolve, reject) => (settle = { resolve, reject }));
      const callback: { handle?: (url: URL) => Promise<void> } = {};
      rp = await serve((req, res) => {
        const url = new URL(req.url ?? '/', rp!.url.replace('127.0.0.1', 'localhost'));
        if (url.pathname !== '/callback' || callback.handle === undefined) return void res.writeHead(404).end();
        callback.handle(url).then(
          () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>signed in</title><p id="result">signed in</p>'),
          (error: unknown) => res.writeHead(400, { 'content-type': 'text/plain' }).end(`sign-in failed: ${String(error)}`),
        );
      });
      const callbackUrl = `${rp.url.replace('127.0.0.1', 'localhost')}/callback`;
      // The request as JSON: the AWS CLI v1 would fetch a parameter value that starts with http://.
      const request = {
        UserPoolId: POOL,
        ClientName: 'browser-e2e',
        AllowedOAuthFlows: ['code'],
        AllowedOAuthScopes: ['openid', 'email', 'profile'],
        AllowedOAuthFlowsUserPoolClient: true,
        SupportedIdentityProviders: ['COGNITO'],
        CallbackURLs: [callbackUrl],
      };
      const clientId = node
        .bash(`aws cognito-idp create-user-pool-client --endpoint-url "$IDP_URL" --cli-input-json '${JSON.stringify(request)}' --query UserPoolClient.ClientId --output text`)
        .trim();
      expect(clientId).toMatch(/^[a-z0-9]{20,}$/);

      const config = await oidc.discovery(new URL(`${urls.idp}/${POOL}`), clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const authorizationUrl = oidc.buildAuthorizationUrl(config, {
        redirect_uri: callbackUrl,
        scope: 'openid email profile',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      callback.handle = async (url) => {
        try {
          settle.resolve(await oidc.authorizationCodeGrant(config, url, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true }));
        } catch (error) {
          settle.reject(error);
          throw error;
        }
      };

      const page = await context!.newPage();
      await page.goto(authorizationUrl.href);
      await page.fill('#username', USER);
      await page.fill('#password', PASSWORD);
      await Promise.all([page.waitForURL((url) => url.href.startsWith(callbackUrl)), page.click('button[type="submit"], input[type="submit"]')]);
      expect(await page.textContent('#result')).toBe('signed in');
      const tokens = await done;
      const claims = tokens.claims()!;
      expect(claims.iss).toBe(`${urls.idp}/${POOL}`);
      expect(claims.aud).toBe(clientId);
      expect(claims.nonce).toBe(nonce);
      expect(claims.sub).toMatch(/^[0-9a-f-]{36}$/);
      expect(claims.email).toBe(USER);
      expect(claims.email_verified).toBe(true);
      expect(claims['cognito:groups']).toEqual(['ianode_read']);
      expect(claims.token_use).toBe('id');
      expect(tokens.access_token).toBeTruthy();
      await page.close();
    });
  });

  describe('a node with no allowed origins (the secure default) blocks the page', () => {
    let node: NpmStartNode;
    let context: BrowserContext | undefined;
    let profile: string | undefined;
    let site: Awaited<ReturnType<typeof serve>> | undefined;

    beforeAll(async () => {
      if (!haveChromium) throw new Error(`CI=true: ${missingBrowserReason()} (.ci/run installs it)`);
      node = new NpmStartNode('e2e-browser-closed', { CORS_ORIGINS: '' });
      await node.start();
      site = await serve((req, res) => {
        if (req.url === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(APP_JS);
        else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE_HTML);
      });
      profile = mkdtempSync(path.join(tmpdir(), 'ianode-chromium-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
    });

    afterAll(async () => {
      await context?.close();
      await site?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
      await node?.dispose();
    });

    it('every call from the page fails in the browser; the same calls from Node are answered', async () => {
      const urls = { idp: `http://localhost:${node.ports.idp}`, access: `http://localhost:${node.ports.access}`, graph: `http://localhost:${node.ports.graph}` };
      // A token obtained outside the browser, passed in: the page still cannot use it.
      const signIn = await fetch(`${urls.idp}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
        body: JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: DEMO_CLIENT, AuthParameters: { USERNAME: USER, PASSWORD } }),
      });
      expect(signIn.status).toBe(200);
      const token = ((await signIn.json()) as { AuthenticationResult: { IdToken: string } }).AuthenticationResult.IdToken;
      const fromNode = await fetch(`${urls.graph}/ds/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' },
        body: 'ASK { ?s ?p ?o }',
      });
      expect(fromNode.status).toBe(200);
      expect(fromNode.headers.get('access-control-allow-origin')).toBeNull();

      const page = await context!.newPage();
      await page.goto(site!.url);
      const withToken = await page.evaluate((cfg) => (globalThis as unknown as { runDemo(c: typeof cfg): Promise<CallResult[]> }).runDemo(cfg), { ...urls, pool: POOL, token });
      expect(withToken.map((r) => r.name)).toEqual(['sparql', 'sparql-get', 'sparql-no-token', 'graphql', 'whoami', 'discovery', 'jwks']);
      for (const r of withToken) expect(r.blocked, `${r.name}: ${JSON.stringify(r)}`).toMatch(/Failed to fetch/);
      const signInFromPage = await page.evaluate((cfg) => (globalThis as unknown as { runDemo(c: typeof cfg): Promise<CallResult[]> }).runDemo(cfg), { ...urls, pool: POOL, clientId: DEMO_CLIENT, username: USER, password: PASSWORD });
      expect(signInFromPage[0]).toMatchObject({ name: 'InitiateAuth' });
      expect(signInFromPage[0]!.blocked).toMatch(/Failed to fetch/);
      expect(await page.textContent('#out')).toContain('discovery: blocked');
      await page.close();
    });
  });
}
