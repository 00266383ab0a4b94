/** createServiceApp: request ids and the log redaction every service relies on. */
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createServiceApp, LOG_CENSOR, SAFE_REQUEST_ID, requestIdOf } from '../src/index.js';
import { logSink } from './support.js';

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLWJ5dGVz';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('request ids', () => {
  it('keeps a safe caller id, else makes a UUID', () => {
    expect(requestIdOf('abc-123_x.y:z')).toBe('abc-123_x.y:z');
    expect(requestIdOf('a'.repeat(64))).toBe('a'.repeat(64));
    for (const unsafe of ['', 'a'.repeat(65), 'has space', 'new\nline', 'quote"', 'slash/x', 'ünï']) {
      expect(SAFE_REQUEST_ID.test(unsafe)).toBe(false);
      expect(requestIdOf(unsafe)).toMatch(UUID);
    }
    expect(requestIdOf(['a', 'b'])).toMatch(UUID);
    expect(requestIdOf(undefined)).toMatch(UUID);
    expect(requestIdOf('safe', false)).toMatch(UUID);
  });

  it('echoes the id in x-request-id on every reply, errors and 404s included', async () => {
    app = createServiceApp({ logger: false });
    app.get('/ok', async (request) => ({ id: request.id }));
    app.get('/fail', async () => {
      throw new Error('boom');
    });
    const ok = await app.inject({ url: '/ok', headers: { 'x-request-id': 'trace-1' } });
    expect(ok.headers['x-request-id']).toBe('trace-1');
    expect(ok.json()).toEqual({ id: 'trace-1' });
    const unsafe = await app.inject({ url: '/ok', headers: { 'x-request-id': 'bad id' } });
    expect(unsafe.headers['x-request-id']).toMatch(UUID);
    expect((await app.inject({ url: '/fail', headers: { 'x-request-id': 'trace-2' } })).headers['x-request-id']).toBe('trace-2');
    expect((await app.inject({ url: '/none', headers: { 'x-request-id': 'trace-3' } })).headers['x-request-id']).toBe('trace-3');
  });

  it('can always generate the id and echo it under another header (the IdP: x-amzn-requestid)', async () => {
    app = createServiceApp({ logger: false, requestIds: { header: 'x-amzn-requestid', fromClient: false } });
    app.get('/ok', async () => 'ok');
    const res = await app.inject({ url: '/ok', headers: { 'x-amzn-requestid': 'mine' } });
    expect(res.headers['x-amzn-requestid']).toMatch(UUID);
    expect(res.headers['x-request-id']).toBeUndefined();
  });
});

describe('log redaction', () => {
  it('never writes the authorization or cookie header, a credential query parameter or a JWT', async () => {
    const sink = logSink();
    app = createServiceApp({ logger: { level: 'info', stream: sink.stream } });
    app.get('/*', async (request) => {
      request.log.info({ req: request, headers: request.headers }, 'handler saw the request');
      request.log.info({ authorization: request.headers.authorization }, 'bare field');
      return 'ok';
    });
    await app.inject({
      url: `/path/${JWT}?access_token=${JWT}&code=abc123secret&page=2`,
      headers: { authorization: `Bearer ${JWT}`, cookie: 'session=s3cret', 'x-request-id': 'r1' },
    });
    const text = sink.text();
    expect(text).not.toContain(JWT);
    expect(text).not.toContain('abc123secret');
    expect(text).not.toContain('s3cret');
    const lines = sink.lines();
    const incoming = lines.find((line) => line.msg === 'incoming request')!;
    expect(incoming.reqId).toBe('r1');
    expect((incoming.req as { url: string }).url).toMatch(/^\/path\/<token sha256:[0-9a-f]{12} len=\d+>\?access_token=\[redacted\]&code=\[redacted\]&page=2$/);
    const seen = lines.find((line) => line.msg === 'handler saw the request')!;
    expect((seen.headers as Record<string, string>).authorization).toBe(LOG_CENSOR);
    expect(lines.find((line) => line.msg === 'bare field')!.authorization).toBe(LOG_CENSOR);
  });

  it('a service adds paths and its own serializer, and cannot switch the redaction off', async () => {
    const sink = logSink();
    app = createServiceApp({
      logger: { level: 'info', stream: sink.stream, redact: ['body.note'] } as never,
      redactPaths: ['*.password'],
      requestSerializer: (req) => ({ method: req.method, path: req.url.split('?')[0] }),
    });
    app.post('/login', async (request) => {
      request.log.info({ body: request.body, headers: request.headers }, 'login');
      return 'ok';
    });
    await app.inject({ method: 'POST', url: '/login?x=1', payload: { password: 'hunter2', note: 'private' }, headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    const text = sink.text();
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('private');
    expect(text).not.toContain('dXNlcjpwYXNz');
    expect(sink.lines().find((line) => line.msg === 'incoming request')!.req).toEqual({ method: 'POST', path: '/login' });
  });

  it('logger false is silent', async () => {
    app = createServiceApp({ logger: false });
    app.get('/', async () => 'ok');
    expect((await app.inject({ url: '/' })).statusCode).toBe(200);
  });
});

describe('schema validation (one validator compiler per process)', () => {
  const body = { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'], additionalProperties: false } as const;

  it('apps sharing a schema object each validate with it, with their own Ajv options', async () => {
    const strict = createServiceApp({ logger: false, ajv: { customOptions: { coerceTypes: false } } });
    const coercing = createServiceApp({ logger: false });
    try {
      for (const a of [strict, coercing]) a.post('/n', { schema: { body } }, async (request) => request.body);
      for (const a of [strict, coercing]) {
        expect((await a.inject({ method: 'POST', url: '/n', payload: { n: 2 } })).json()).toEqual({ n: 2 });
        expect((await a.inject({ method: 'POST', url: '/n', payload: { n: 0 } })).statusCode).toBe(400);
        expect((await a.inject({ method: 'POST', url: '/n', payload: { m: 1 } })).statusCode).toBe(400);
      }
      // The Ajv options still apply per app: Fastify's default coerces "3" to 3, coerceTypes: false refuses it.
      expect((await coercing.inject({ method: 'POST', url: '/n', payload: { n: '3' } })).json()).toEqual({ n: 3 });
      expect((await strict.inject({ method: 'POST', url: '/n', payload: { n: '3' } })).statusCode).toBe(400);
    } finally {
      await strict.close();
      await coercing.close();
    }
  });

  it('a headers schema names headers in lower case; one naming a header in upper case is refused', async () => {
    app = createServiceApp({ logger: false });
    const headers = { type: 'object', properties: { 'x-token': { type: 'string', pattern: '^ok' } }, required: ['x-token'] };
    app.get('/h', { schema: { headers } }, async () => 'ok');
    expect(() => app!.get('/upper', { schema: { headers: { type: 'object', properties: { 'X-Token': { type: 'string' } } } } }, async () => 'ok')).toThrow(
      /name the header X-Token in lower case/,
    );
    expect(() => app!.get('/required', { schema: { headers: { type: 'object', required: ['X-Token'] } } }, async () => 'ok')).toThrow(/lower case/);
    expect((await app.inject({ url: '/h', headers: { 'X-Token': 'ok-1' } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/h', headers: { 'X-Token': 'no' } })).statusCode).toBe(400);
    expect((await app.inject({ url: '/h' })).statusCode).toBe(400);
    expect((await app.inject({ url: '/upper' })).statusCode).toBe(404);
  });
});
