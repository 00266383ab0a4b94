import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type JWTPayload } from 'jose';
import { scratchDir } from '@ianode/testkit';
import { createAccessServer, type AccessServer, type AccessServerConfig } from '../src/index.js';

export const DEMO_SEED = fileURLToPath(new URL('../seed/demo.yaml', import.meta.url));
export const ADMIN = 'admin@ianode.local';
export const USER = 'user@ianode.local';
/** The app client whose ID tokens the test services accept. */
export const CLIENT = 'testclient0000000000000001';
/** The stable subject of a test user (tokens of one user share it, as the IdP's do). */
export const subjectOf = (user: string) => `sub-${user}`;

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/** A stand-in identity provider: one RS256 key, a JWKS and discovery on a loopback port. */
export interface TestIdp {
  url: string;
  issuer: string;
  jwksUrl: string;
  mode: 'ok' | 'down' | 'html';
  /**
   * A token for `user` (its verified email, subject `subjectOf(user)`, client `CLIENT`) with groups
   * and extra claims; `exp` one hour ahead.
   */
  token(user: string, groups?: string[], claims?: JWTPayload): Promise<string>;
  close(): Promise<void>;
}

/**
 * The key of the file's first stand-in IdP, started as the helpers load: Node generates key pairs
 * on its thread pool, so it is made while the test file is still being loaded. Later IdPs make their own.
 */
let firstKeyPair: ReturnType<typeof generateKeyPair> | undefined = generateKeyPair('RS256');

export async function startIdp(): Promise<TestIdp> {
  const pair = firstKeyPair ?? generateKeyPair('RS256');
  firstKeyPair = undefined;
  const { privateKey, publicKey } = await pair;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const state = { mode: 'ok' as TestIdp['mode'] };
  const server: Server = createServer((req, res) => {
    if (state.mode === 'down') return void res.writeHead(503).end('unavailable');
    if (state.mode === 'html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
    if (req.url === '/local_test1234/.well-known/jwks.json') {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    }
    if (req.url === '/local_test1234/.well-known/openid-configuration') {
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ issuer: `${base}/local_test1234`, jwks_uri: `${base}/local_test1234/.well-known/jwks.json` }));
    }
    res.writeHead(404).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${base}/local_test1234`;
  return {
    url: base,
    issuer,
    jwksUrl: `${issuer}/.well-known/jwks.json`,
    get mode() {
      return state.mode;
    },
    set mode(mode) {
      state.mode = mode;
    },
    token: (user, groups = [], claims = {}) =>
      signToken(privateKey, 'test-key', {
        iss: issuer,
        sub: subjectOf(user),
        aud: CLIENT,
        email: user,
        email_verified: true,
        'cognito:username': user.split('@')[0],
        ...(groups.length ? { 'cognito:groups': groups } : {}),
        ...claims,
      }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function signToken(key: PrivateKey, kid: string, claims: JWTPayload): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: crypto.randomUUID(), token_use: 'id', iat: now, exp: now + 3600, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid })
    .sign(key);
}

/**
 * A temporary data folder, removed by the returned function; on a memory file system when there
 * is one (testkit's `scratchDir`: the directory's SQLite commits are fsync'd, which costs nothing there).
 */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(scratchDir(), 'ianode-access-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface RunningService {
  server: AccessServer;
  url: string;
  logs: string[];
  /** Parsed log lines that are audit lines. */
  audit(): Record<string, unknown>[];
  /** fetch against the service with an optional bearer token and JSON body. */
  call(method: string, path: string, options?: { token?: string | undefined; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<Reply>;
  close(): Promise<void>;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test replies are checked field by field
}

export async function startService(idp: TestIdp, dataDir: string, config: Partial<AccessServerConfig> = {}): Promise<RunningService> {
  const logs: string[] = [];
  const server = await createAccessServer({
    dataDir,
    jwksUrl: idp.jwksUrl,
    openIdProviderUrl: idp.issuer,
    seed: DEMO_SEED,
    clientIds: [CLIENT],
    linkByEmail: true,
    logger: { level: 'info', stream: { write: (line: string) => void logs.push(line) } },
    ...config,
  });
  const url = await server.listen({ port: 0 });
  return {
    server,
    url,
    logs,
    audit: () => logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.audit === true),
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined;
      if (options.rawBody !== undefined) body = options.rawBody;
      else if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed };
    },
    close: () => server.close(),
  };
}

/** The built service (`npm run build`); tests of it are skipped without it. */
export const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export interface MainProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Its JSON log lines so far. */
  lines: Record<string, unknown>[];
  /** Its stderr so far. */
  readonly stderr: string;
}

/** Starts dist/main.js with `args` and only PATH and `env` in its environment; `onLine` sees each
 * JSON log line once it is in `lines`. */
export function spawnMain(args: string[], env: Record<string, string>, onLine: (line: Record<string, unknown>) => void = () => undefined): MainProcess {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let at: number;
    while ((at = buffer.indexOf('\n')) >= 0) {
      const line = JSON.parse(buffer.slice(0, at)) as Record<string, unknown>;
      buffer = buffer.slice(at + 1);
      lines.push(line);
      onLine(line);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    child,
    lines,
    get stderr() {
      return stderr;
    },
  };
}

export interface ServiceFixture {
  idp: TestIdp;
  svc: RunningService;
  /** A token of ADMIN in ianode_admin. */
  admin: string;
  /** A token of USER in ianode_read. */
  userToken: string;
}

/** A test IdP and a service on the demo seed in a fresh folder, started before the file's tests
 * and stopped (the folder removed) after them; the fields are set once `beforeAll` has run. */
export function serviceForFile(): ServiceFixture {
  const f = {} as ServiceFixture;
  let data: ReturnType<typeof tempDir> | undefined;
  beforeAll(async () => {
    f.idp = await startIdp();
    data = tempDir();
    f.svc = await startService(f.idp, data.dir);
    f.admin = await f.idp.token(ADMIN, ['ianode_admin']);
    f.userToken = await f.idp.token(USER, ['ianode_read']);
  });
  afterAll(async () => {
    await f.svc?.close();
    await f.idp?.close();
    data?.remove();
  });
  return f;
}
