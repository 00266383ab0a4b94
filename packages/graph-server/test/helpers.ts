/** Test fixtures: an RSA key pair, a local JWKS server, a stub access service, token minting. */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { QuadStore } from '@ianode/store';
import type { PoolTimers } from '../src/pool/pool.js';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type CryptoKey } from 'jose';
import { createGraphServer, type GraphServer } from '../src/index.js';

export interface Key {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function makeKey(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateKey, publicJwk };
}

export interface Stub {
  url: string;
  server: Server;
  close(): Promise<void>;
}

async function listen(handler: (url: string, auth: string | undefined) => { status: number; type?: string; body: string }): Promise<Stub> {
  const server = createServer((req, res) => {
    const { status, type, body } = handler(req.url ?? '/', req.headers.authorization);
    res.writeHead(status, { 'content-type': type ?? 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A JWKS endpoint whose keys and behaviour the test changes. */
export async function jwksServer(keys: Key[]): Promise<Stub & { keys: Key[]; mode: 'ok' | 'down' | 'html' }> {
  const state = { keys, mode: 'ok' as 'ok' | 'down' | 'html' };
  const stub = await listen(() => {
    if (state.mode === 'down') return { status: 503, body: '{"error":"down"}' };
    if (state.mode === 'html') return { status: 200, type: 'text/html', body: '<html><body>Login</body></html>' };
    return { status: 200, body: JSON.stringify({ keys: state.keys.map((k) => k.publicJwk) }) };
  });
  return Object.defineProperties(stub, {
    keys: { get: () => state.keys, set: (v: Key[]) => (state.keys = v) },
    mode: { get: () => state.mode, set: (v: 'ok' | 'down' | 'html') => (state.mode = v) },
  }) as Stub & { keys: Key[]; mode: 'ok' | 'down' | 'html' };
}

/**
 * The access service's lookup and hierarchy endpoints over a fixed directory; names in `inactive`
 * are answered as the access service answers an inactive entry (`active: false`, no attributes).
 */
export async function accessStub(directory: Record<string, string[]>, inactive: readonly string[] = []): Promise<Stub & { lookups: number }> {
  const stats = { lookups: 0 };
  const stub = await listen((url, auth) => {
    const user = /^\/users\/lookup\/(.+)$/.exec(url);
    if (user) {
      stats.lookups++;
      if (!auth) return { status: 401, body: '{"code":"UNAUTHENTICATED"}' };
      const name = decodeURIComponent(user[1]!);
      const attributes = directory[name];
      if (inactive.includes(name)) return { status: 200, body: JSON.stringify({ id: name, attributes: [], active: false }) };
      if (attributes === undefined) return { status: 404, body: '{"code":"NOT_FOUND"}' };
      return { status: 200, body: JSON.stringify({ id: name, attributes }) };
    }
    if (url === '/hierarchies/lookup/clearance') return { status: 200, body: JSON.stringify({ name: 'clearance', tiers: ['O', 'OS', 'S', 'TS'] }) };
    return { status: 404, body: '{"code":"NOT_FOUND"}' };
  });
  return Object.defineProperty(stub, 'lookups', { get: () => stats.lookups }) as Stub & { lookups: number };
}

export const ISSUER = 'http://idp.test/local_test0001';
/** The app client whose ID tokens the test servers accept. */
export const CLIENT = 'testclient0000000000000001';

/**
 * Signs a token. Defaults make it an ID token of `CLIENT` (`token_use: id`, `aud`) whose subject is
 * the e-mail address (so the access stub, keyed by subject, can stay a table of names); a test that
 * needs two subjects with one address passes `sub` itself.
 */
export async function sign(
  key: Key,
  claims: Record<string, unknown>,
  options: { expiresIn?: string | number; notBefore?: string | number; issuer?: string; kid?: string } = {},
): Promise<string> {
  const subject = String(claims.sub ?? claims.email ?? 'subject-1');
  let jwt = new SignJWT({ token_use: 'id', aud: CLIENT, ...claims, sub: subject })
    .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? key.kid })
    .setIssuedAt()
    .setIssuer(options.issuer ?? ISSUER)
    .setExpirationTime(options.expiresIn ?? '10m');
  if (options.notBefore !== undefined) jwt = jwt.setNotBefore(options.notBefore);
  return jwt.sign(key.privateKey);
}

/** base64url of a JSON value (hand-made tokens: alg none, HS256). */
export function b64(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One HTTP request with node:http, for what fetch will not send: a chosen `Host` header (graph
 * names of direct identification come from it), HEAD with its headers, raw bytes.
 */
export function rawRequest(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<RawResponse> {
  const url = new URL(base);
  const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path, headers: { ...headers, ...(bytes === undefined ? {} : { 'content-length': String(bytes.length) }) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

/** Delete every quad of the store (between tests that share one server). */
export async function clearStore(store: QuadStore): Promise<void> {
  await store.transaction((tx) => {
    for (const q of [...store.match({})]) tx.delete({ s: store.key(q.s), p: store.key(q.p), o: store.key(q.o), g: q.g === 0 ? '' : store.key(q.g) });
  });
}

/**
 * Query-worker timers a test holds (the `queryTimers` server option): while held, a timer the pool
 * sets (a deadline, the grace after a client left) waits for `pass()`, which fires it at once;
 * otherwise they are the system's. A deadline then passes when the test says so, whatever the
 * machine's speed.
 */
export function heldTimers(): { timers: PoolTimers; hold(): void; pass(): void } {
  let held = false;
  const waiting = new Map<object, () => void>();
  const timers: PoolTimers = {
    now: () => Date.now(),
    setTimeout: (fn, ms) => {
      if (!held) return { system: setTimeout(fn, ms) };
      const handle = {};
      waiting.set(handle, fn);
      return handle;
    },
    clearTimeout: (handle) => {
      const { system } = handle as { system?: ReturnType<typeof setTimeout> };
      if (system !== undefined) clearTimeout(system);
      waiting.delete(handle as object);
    },
  };
  return {
    timers,
    hold: () => void (held = true),
    pass: () => {
      held = false;
      const due = [...waiting.values()];
      waiting.clear();
      for (const fn of due) fn();
    },
  };
}

/** The security configuration of a secure-mode test server. */
export interface TestSecurity {
  jwksUrl: string;
  openIdProviderUrl: string;
  userAttributesUrl: string;
  clientIds: string[];
}

/** What a secure-mode test needs around its graph servers (see `authority`). */
export interface Authority {
  key: Key;
  jwks: Awaited<ReturnType<typeof jwksServer>>;
  access: Awaited<ReturnType<typeof accessStub>>;
  /** The `security` configuration naming both. */
  security: TestSecurity;
  /** An ID token per user of the directory, under the whole address and the part before `@`. */
  tokens: Record<string, string>;
  close(): Promise<void>;
}

/** A graph server in secure mode on a free port, with what its tests call it with (`secureServer`). */
export interface SecureServer {
  server: GraphServer;
  base: string;
  /** A token per user of the directory, keyed by the part of the name before `@`. */
  tokens: Record<string, string>;
  /** The `security` section the server was started with (for a second server of the same users). */
  security: { jwksUrl: string; openIdProviderUrl: string; userAttributesUrl: string; clientIds: string[] };
  /** Empties the store and uploads `data` again as `loader`: each test starts from the same quads. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A signing key, a JWKS server holding it, an access-service stub over `directory` (`inactive`
 * as in `accessStub`), and an ID token for each of its users.
 */
export async function authority(directory: Record<string, string[]>, inactive: readonly string[] = []): Promise<Authority> {
  const key = await makeKey('k1');
  const jwks = await jwksServer([key]);
  const access = await accessStub(directory, inactive);
  const tokens: Record<string, string> = {};
  for (const user of Object.keys(directory)) tokens[user] = tokens[user.split('@')[0]!] = await sign(key, { email: user });
  return {
    key,
    jwks,
    access,
    security: { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] },
    tokens,
    close: async () => {
      await jwks.close();
      await access.close();
    },
  };
}

/**
 * Starts an authority over `directory` (a JWKS server and an access-service stub, `authority`) and
 * a graph server of one dataset (`ds`, default label `*` unless `dataset` says otherwise) trusting
 * it; uploads `data` (TriG) as `loader`. Tests that change the data call `reset()` in a `beforeEach`.
 */
export async function secureServer(
  directory: Record<string, string[]>,
  options: { data?: string; loader?: string; dataset?: Record<string, unknown> } = {},
): Promise<SecureServer> {
  const idp = await authority(directory);
  const { security, tokens } = idp;
  const server = await createGraphServer({ security, dataset: { name: 'ds', defaultLabel: '*', ...options.dataset } }, { logger: false, jwksCooldownMs: 0 });
  const base = await server.listen({ port: 0 });
  const load = async (): Promise<void> => {
    if (options.data === undefined) return;
    const r = await fetch(`${base}/ds/upload`, { method: 'POST', headers: { authorization: `Bearer ${tokens[options.loader ?? 'loader']}`, 'content-type': 'application/trig' }, body: options.data });
    if (r.status !== 200) throw new Error(`secureServer: the upload answered ${r.status}: ${await r.text()}`);
  };
  await load();
  return {
    server,
    base,
    tokens,
    security,
    async reset() {
      await clearStore(server.store);
      await load();
    },
    async close() {
      await server.close();
      await idp.close();
    },
  };
}

/**
 * TriG of triples about `http://example/` (prefix `:`), each given its label through the labels
 * graph by a pattern of the same text; a triple without a label gets the dataset's default one.
 */
export function labelledTrig(entries: ReadonlyArray<readonly [triple: string, label?: string]>): string {
  const labels = entries.filter(([, label]) => label !== undefined).map(([triple, label]) => `  [ authz:pattern '${triple}' ; authz:label "${label}" ] .`);
  return [
    'PREFIX authz: <http://ndtp.co.uk/security#>',
    'PREFIX : <http://example/>',
    ...entries.map(([triple]) => `${triple} .`),
    ...(labels.length > 0 ? ['GRAPH authz:labels {', ...labels, '}'] : []),
  ].join('\n');
}

/** The reference example of SPEC §3 as `labelledTrig` entries (`:person4321 :empId` unlabelled). */
export const SPEC_EXAMPLE: ReadonlyArray<readonly [string, string?]> = [
  [':person4321 :phone "0400 111 333"', '*'],
  [':person4321 :empId 4321'],
  [':person9876 :empId 9876', 'employee'],
];

/** An administrator and an ordinary user with different views of the SPEC example. */
export const ADMIN_AND_USER: Record<string, string[]> = {
  'admin@test': ['engineer', 'employee', 'clearance=TS', 'ianode_admin', 'ianode_read'],
  'user@test': ['engineer', 'contractor', 'clearance=OS', 'ianode_read'],
};

/**
 * For a test file: an authority over `directory` and two secure graph servers over it, GraphQL on
 * (its store filled by `load`) and off, started before the file's tests and closed after them.
 * The fields are set once the file's `beforeAll` hooks have run.
 */
export function graphqlServers(directory: Record<string, string[]>, load: (store: QuadStore) => Promise<unknown>): { base: string; offBase: string; tokens: Record<string, string> } {
  const fixture = { base: '', offBase: '', tokens: {} as Record<string, string> };
  let close = async (): Promise<void> => undefined;
  beforeAll(async () => {
    const idp = await authority(directory);
    const on = await createGraphServer({ security: idp.security, graphql: true }, { logger: false, jwksCooldownMs: 0 });
    await load(on.store);
    const off = await createGraphServer({ security: idp.security, graphql: false }, { logger: false, jwksCooldownMs: 0 });
    fixture.tokens = idp.tokens;
    fixture.base = await on.listen({ port: 0 });
    fixture.offBase = await off.listen({ port: 0 });
    close = async () => {
      await on.close();
      await off.close();
      await idp.close();
    };
  });
  afterAll(() => close());
  return fixture;
}

/**
 * `secureServer` for the tests of one file: started before them, closed after them; with
 * `reset`, every test starts from `data` again (so each passes alone and in any order). The
 * returned object is filled in once the server has started (read its fields inside tests).
 */
export function useSecureServer(
  directory: Record<string, string[]>,
  options: { data?: string; loader?: string; dataset?: Record<string, unknown>; reset?: boolean } = {},
): SecureServer {
  const fixture = {} as SecureServer;
  beforeAll(async () => {
    Object.assign(fixture, await secureServer(directory, options));
  });
  if (options.reset === true) beforeEach(() => fixture.reset());
  afterAll(async () => {
    await fixture.close?.();
  });
  return fixture;
}
