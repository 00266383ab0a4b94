/** The skeleton's OPTIONS answer and CORS (cors.ts): before any hook of the service, origins as configured. */
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { CORS_ALLOWED_HEADERS, createServiceApp, parseCorsOrigins, type CorsOptions } from '../src/index.js';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const PAGE = 'https://app.example.org';

/** A service like ours: an authenticating onRequest hook added after the skeleton's, a few routes. */
async function service(cors?: CorsOptions): Promise<FastifyInstance> {
  app = createServiceApp({ logger: false, ...(cors ? { cors } : {}) });
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/open')) return;
    if (request.headers.authorization !== 'Bearer good') return reply.code(401).header('www-authenticate', 'Bearer').send({ code: 'UNAUTHENTICATED' });
  });
  app.get('/ds', async (_request, reply) => reply.header('vary', 'Accept').send({ ok: true }));
  app.post('/ds', async () => ({ ok: true }));
  app.put('/ds/data', async () => ({ ok: true }));
  app.delete('/ds/data', async () => ({ ok: true }));
  app.get('/open/thing', async (_request, reply) => reply.header('retry-after', '3').send({ ok: true }));
  await app.ready();
  return app;
}

const preflight = (url: string, origin: string, headers: Record<string, string> = {}) =>
  app!.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type', ...headers } });

const corsHeaders = (headers: Record<string, unknown>) => Object.keys(headers).filter((name) => name.startsWith('access-control-'));

describe('OPTIONS', () => {
  it('answers 204 with Allow before authentication, with or without a token, CORS on or off', async () => {
    for (const cors of [undefined, { origins: ['*'] }]) {
      await service(cors);
      for (const authorization of [undefined, 'Bearer good', 'Bearer bad']) {
        const r = await app!.inject({ method: 'OPTIONS', url: '/ds?x=1', headers: authorization ? { authorization } : {} });
        expect(r.statusCode).toBe(204);
        expect(r.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
        expect(r.body).toBe('');
        // No Origin: not a CORS request, no CORS header.
        expect(corsHeaders(r.headers)).toEqual([]);
      }
      const data = await app!.inject({ method: 'OPTIONS', url: '/ds/data' });
      expect(data.headers.allow).toBe('PUT, DELETE, OPTIONS');
      await app!.close();
      app = undefined;
    }
  });

  it('leaves a path without routes to the service (here its authentication: 401)', async () => {
    await service({ origins: ['*'] });
    const r = await app!.inject({ method: 'OPTIONS', url: '/nothing', headers: { origin: PAGE, 'access-control-request-method': 'GET' } });
    expect(r.statusCode).toBe(401);
    expect(r.headers.allow).toBeUndefined();
  });
});

describe('CORS', () => {
  it('secure default (no origins): no CORS header anywhere, preflights still 204', async () => {
    await service();
    const pre = await preflight('/ds', PAGE);
    expect(pre.statusCode).toBe(204);
    expect(pre.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
    expect(corsHeaders(pre.headers)).toEqual([]);
    const get = await app!.inject({ method: 'GET', url: '/ds', headers: { origin: PAGE, authorization: 'Bearer good' } });
    expect(get.statusCode).toBe(200);
    expect(corsHeaders(get.headers)).toEqual([]);
    expect(get.headers.vary).toBe('Accept');
  });

  it('an allowed origin: preflight without a token, then the reply and its errors readable', async () => {
    await service({ origins: [PAGE, 'http://localhost:5173'] });
    const pre = await preflight('/ds', PAGE);
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(PAGE);
    expect(pre.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, OPTIONS');
    const allowed = String(pre.headers['access-control-allow-headers']).toLowerCase().split(', ');
    for (const name of ['authorization', 'content-type', 'accept', 'security-label', 'x-amz-target', 'x-amz-user-agent', 'amz-sdk-invocation-id', 'amz-sdk-request']) {
      expect(allowed).toContain(name);
    }
    expect(pre.headers['access-control-max-age']).toBe('600');
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    expect(pre.headers.vary).toBe('Origin');

    const ok = await app!.inject({ method: 'GET', url: '/ds', headers: { origin: PAGE, authorization: 'Bearer good' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(PAGE);
    expect(ok.headers['access-control-allow-credentials']).toBeUndefined();
    const exposed = String(ok.headers['access-control-expose-headers']).toLowerCase().split(', ');
    for (const name of ['retry-after', 'location', 'content-disposition', 'x-request-id', 'www-authenticate']) expect(exposed).toContain(name);
    // The route's own Vary is kept, Origin added.
    expect(ok.headers.vary).toBe('Accept, Origin');

    const denied = await app!.inject({ method: 'GET', url: '/ds', headers: { origin: PAGE } });
    expect(denied.statusCode).toBe(401);
    expect(denied.headers['access-control-allow-origin']).toBe(PAGE);
    expect(denied.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('an origin not allowed: no CORS header at all, and the status it would have anyway', async () => {
    await service({ origins: [PAGE] });
    for (const other of ['https://evil.example', 'https://app.example.org.evil.example', 'http://app.example.org', 'null']) {
      const pre = await preflight('/ds', other);
      expect(pre.statusCode).toBe(204);
      expect(corsHeaders(pre.headers)).toEqual([]);
      const get = await app!.inject({ method: 'GET', url: '/open/thing', headers: { origin: other } });
      expect(get.statusCode).toBe(200);
      expect(corsHeaders(get.headers)).toEqual([]);
      expect(get.headers.vary).toBe('Origin');
    }
  });

  it('* answers every origin with *, never with credentials, and needs no Vary', async () => {
    await service({ origins: ['*'] });
    for (const origin of [PAGE, 'http://localhost:8000', 'null']) {
      const pre = await preflight('/ds/data', origin, { 'access-control-request-method': 'PUT' });
      expect(pre.statusCode).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe('*');
      expect(pre.headers['access-control-allow-methods']).toBe('PUT, DELETE, OPTIONS');
      expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
      const get = await app!.inject({ method: 'GET', url: '/open/thing', headers: { origin } });
      expect(get.headers['access-control-allow-origin']).toBe('*');
      expect(get.headers['access-control-allow-credentials']).toBeUndefined();
      expect(get.headers.vary).toBeUndefined();
    }
    // Without Origin, a plain request gets nothing CORS.
    const plain = await app!.inject({ method: 'GET', url: '/open/thing' });
    expect(corsHeaders(plain.headers)).toEqual([]);
  });

  it('the allowed request headers are all HTTP tokens (a browser rejects the list otherwise)', () => {
    for (const name of CORS_ALLOWED_HEADERS) expect(name).toMatch(/^[A-Za-z0-9-]+$/);
  });
});

describe('parseCorsOrigins', () => {
  it('reads lists and comma-separated text', () => {
    expect(parseCorsOrigins(undefined)).toEqual([]);
    expect(parseCorsOrigins('')).toEqual([]);
    expect(parseCorsOrigins('*')).toEqual(['*']);
    expect(parseCorsOrigins(' https://a.example , http://localhost:5173,')).toEqual(['https://a.example', 'http://localhost:5173']);
    expect(parseCorsOrigins(['https://a.example', 'https://a.example'])).toEqual(['https://a.example']);
  });

  it('refuses what a browser never sends as an origin, naming the value and the setting', () => {
    expect(() => parseCorsOrigins('https://a.example/', 'CORS_ORIGINS')).toThrow(/CORS_ORIGINS: "https:\/\/a.example\/" is not an origin \(as a browser sends it: https:\/\/a.example\)/);
    expect(() => parseCorsOrigins(['https://a.example:443'])).toThrow(/as a browser sends it: https:\/\/a.example\)/);
    expect(() => parseCorsOrigins(['HTTPS://A.example'])).toThrow(/not an origin/);
    expect(() => parseCorsOrigins(['a.example'])).toThrow(/not an origin: write scheme/);
    expect(() => parseCorsOrigins(['null'])).toThrow(/not an origin/);
    expect(() => parseCorsOrigins(['*', 'https://a.example'])).toThrow(/\* already means every origin/);
    expect(() => parseCorsOrigins(42, 'cors.origins')).toThrow(/cors.origins must be a list/);
    expect(() => parseCorsOrigins([42])).toThrow(/cors.origins\[0\] must be an origin text/);
  });
});
