import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import { AuthError } from '../src/index.js';

export interface TestKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

type CryptoKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/** A signing key pair with its public JWK (carrying `kid`, `alg`, `use`). */
export async function makeKey(kid: string, alg = 'RS256'): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, jwk };
}

/** Seconds since the epoch of a millisecond clock. */
export const seconds = (ms: number) => Math.floor(ms / 1000);

/** Signs claims; `exp` defaults to one hour after `nowMs`, `iat` to `nowMs`. */
export async function sign(
  key: TestKey,
  claims: JWTPayload,
  options: { nowMs?: number; header?: Record<string, unknown>; noExp?: boolean } = {},
): Promise<string> {
  const nowMs = options.nowMs ?? Date.now();
  const payload: JWTPayload = { iat: seconds(nowMs), ...(options.noExp ? {} : { exp: seconds(nowMs) + 3600 }), ...claims };
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, ...options.header }).sign(key.privateKey);
}

export type Mode = 'ok' | 'down' | 'html' | 'not-json' | 'no-keys' | 'hang';

/** A JWKS (and discovery) endpoint on a loopback port, with switchable failures. */
export interface JwksServer {
  url: string;
  jwksUrl: string;
  issuer: string;
  keys: JWK[];
  mode: Mode;
  discovery: Record<string, unknown> | undefined;
  requests: string[];
  jwksRequests(): number;
  close(): Promise<void>;
}

export async function startJwksServer(keys: JWK[] = []): Promise<JwksServer> {
  const state = { keys, mode: 'ok' as Mode, discovery: undefined as Record<string, unknown> | undefined, requests: [] as string[] };
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    state.requests.push(path);
    if (state.mode === 'hang') {
      hanging.add(res);
      return;
    }
    if (state.mode === 'down') {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
      return;
    }
    if (state.mode === 'html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>login</body></html>');
      return;
    }
    if (state.mode === 'not-json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": [');
      return;
    }
    if (path === '/pool/.well-known/openid-configuration') {
      const body = state.discovery ?? { issuer: `${base}/pool`, jwks_uri: `${base}/pool/.well-known/jwks.json` };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    if (path === '/pool/.well-known/jwks.json') {
      const body = state.mode === 'no-keys' ? { keys: 'none' } : { keys: state.keys };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":"NOT_FOUND"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    jwksUrl: `${base}/pool/.well-known/jwks.json`,
    issuer: `${base}/pool`,
    get keys() {
      return state.keys;
    },
    set keys(value: JWK[]) {
      state.keys = value;
    },
    get mode() {
      return state.mode;
    },
    set mode(value: Mode) {
      state.mode = value;
    },
    get discovery() {
      return state.discovery;
    },
    set discovery(value) {
      state.discovery = value;
    },
    requests: state.requests,
    jwksRequests: () => state.requests.filter((p) => p.endsWith('jwks.json')).length,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on: start a server, note its port, close it. */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** base64url of a JSON value. */
export function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The AuthError a promise rejects with (the test fails if it resolves or rejects otherwise). */
export async function refusal(promise: Promise<unknown>): Promise<AuthError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AuthError);
    return error as AuthError;
  }
  throw new Error('expected a refusal, got a pass');
}
