/**
 * CORS and OPTIONS on the access service (docs/operations.md, "Browsers and CORS"): preflights
 * answered before authentication, allowed and refused origins, exposed headers, never credentials,
 * no CORS header by default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdp, startService, tempDir, USER, type RunningService, type TestIdp } from './helpers.js';

const PAGE = 'http://localhost:5173';
let idp: TestIdp;
const dirs: Array<{ remove(): void }> = [];
let listed: RunningService;
let closed: RunningService;

beforeAll(async () => {
  idp = await startIdp();
  const a = tempDir();
  const b = tempDir();
  dirs.push(a, b);
  listed = await startService(idp, a.dir, { corsOrigins: [PAGE] });
  closed = await startService(idp, b.dir);
});

afterAll(async () => {
  await listed?.close();
  await closed?.close();
  await idp?.close();
  for (const dir of dirs) dir.remove();
});

const corsHeaders = (headers: Headers) => [...headers.keys()].filter((name) => name.startsWith('access-control-'));

describe('preflights without a token', () => {
  it('every kind of route: /whoami, a user lookup, the admin API, health', async () => {
    for (const [path, method, allow] of [
      ['/whoami', 'GET', 'GET, HEAD, OPTIONS'],
      ['/users/lookup/alice', 'GET', 'GET, HEAD, OPTIONS'],
      ['/users', 'POST', 'GET, HEAD, POST, OPTIONS'],
      ['/health', 'GET', 'GET, HEAD, OPTIONS'],
    ] as const) {
      const r = await listed.call('OPTIONS', path, { headers: { origin: PAGE, 'access-control-request-method': method, 'access-control-request-headers': 'authorization' } });
      expect(r.status, path).toBe(204);
      expect(r.headers.get('allow'), path).toBe(allow);
      expect(r.headers.get('access-control-allow-origin'), path).toBe(PAGE);
      expect(r.headers.get('access-control-allow-methods'), path).toBe(allow);
      expect(r.headers.get('access-control-allow-headers')?.toLowerCase(), path).toMatch(/(^|, )authorization(,|$)/);
      expect(r.headers.get('access-control-allow-credentials'), path).toBeNull();
    }
  });

  it('a plain OPTIONS (no Origin) is 204 with Allow and nothing CORS; by default, a preflight gets no CORS header', async () => {
    const plain = await closed.call('OPTIONS', '/whoami');
    expect(plain.status).toBe(204);
    expect(plain.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(corsHeaders(plain.headers)).toEqual([]);
    const pre = await closed.call('OPTIONS', '/whoami', { headers: { origin: PAGE, 'access-control-request-method': 'GET' } });
    expect(pre.status).toBe(204);
    expect(corsHeaders(pre.headers)).toEqual([]);
  });
});

describe('replies', () => {
  it('/whoami for an allowed origin: readable, request id exposed, no credentials; a 401 readable too', async () => {
    const token = await idp.token(USER, ['ianode_read']);
    const r = await listed.call('GET', '/whoami', { token, headers: { origin: PAGE } });
    expect(r.status).toBe(200);
    expect(r.body.email).toBe(USER);
    expect(r.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    const exposed = (r.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(', ');
    for (const name of ['x-request-id', 'retry-after', 'location', 'content-disposition']) expect(exposed).toContain(name);
    expect(r.headers.get('vary')).toContain('Origin');
    const refused = await listed.call('GET', '/whoami', { headers: { origin: PAGE } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(PAGE);
  });

  it('an origin not allowed, and the default: no CORS header, the usual answer', async () => {
    const token = await idp.token(USER, ['ianode_read']);
    for (const [service, origin] of [[listed, 'https://other.example'], [closed, PAGE]] as const) {
      const r = await service.call('GET', '/whoami', { token, headers: { origin } });
      expect(r.status).toBe(200);
      expect(corsHeaders(r.headers)).toEqual([]);
      const pre = await service.call('OPTIONS', '/whoami', { headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
      expect(pre.status).toBe(204);
      expect(corsHeaders(pre.headers)).toEqual([]);
    }
  });
});
