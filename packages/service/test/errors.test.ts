/** The error pattern: base class, the one table, reason phrases, and the handler that logs and replies. */
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createErrorHandler, createServiceApp, errorTable, fastifyStatus, reasonPhrase, ServiceError, type ErrorReply } from '../src/index.js';
import { logSink } from './support.js';

type Code = 'NOT_FOUND' | 'CONFLICT' | 'STORAGE_DOWN' | 'INTERNAL';
class ShopError extends ServiceError<Code> {}
const TABLE = errorTable<Code>({ NOT_FOUND: 404, CONFLICT: 409, STORAGE_DOWN: 503, INTERNAL: 500 });

/** A service's mapping: its own errors through its table, Fastify's 4xx as BAD_REQUEST, the rest INTERNAL. */
function shopReply(error: unknown): ErrorReply<{ error: string; code: string; message: string }> {
  if (error instanceof ShopError) {
    const status = TABLE.status(error.code);
    return { status, headers: error.code === 'STORAGE_DOWN' ? { 'retry-after': '5' } : {}, body: { error: reasonPhrase(status), code: error.code, message: error.message } };
  }
  const status = fastifyStatus(error);
  if (status !== undefined && status < 500) return { status, headers: {}, body: { error: reasonPhrase(status), code: 'BAD_REQUEST', message: (error as Error).message } };
  return { status: 500, headers: {}, body: { error: reasonPhrase(500), code: 'INTERNAL', message: 'internal error; see the log' } };
}

describe('ServiceError and the table', () => {
  it('carries the code, the subclass name and the cause', () => {
    const cause = new Error('disk full');
    const error = new ShopError('STORAGE_DOWN', 'try later', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ShopError');
    expect(error.code).toBe('STORAGE_DOWN');
    expect(error.cause).toBe(cause);
    expect('cause' in new ShopError('CONFLICT', 'x')).toBe(false);
  });

  it('maps every code to its status and knows its own codes', () => {
    expect(TABLE.status('CONFLICT')).toBe(409);
    expect(TABLE.has('NOT_FOUND')).toBe(true);
    expect(TABLE.has('toString')).toBe(false);
    expect(TABLE.has('MISSING_TOKEN')).toBe(false);
    expect(Object.isFrozen(TABLE.statuses)).toBe(true);
  });

  it('reason phrases (RFC 9110), with a fallback by class', () => {
    expect(reasonPhrase(413)).toBe('Content Too Large');
    expect(reasonPhrase(503)).toBe('Service Unavailable');
    expect(reasonPhrase(418)).toBe('Error');
    expect(reasonPhrase(599)).toBe('Internal Server Error');
  });
});

describe('createErrorHandler', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function start() {
    const sink = logSink();
    app = createServiceApp({ logger: { level: 'info', stream: sink.stream } });
    app.setErrorHandler(createErrorHandler({ reply: shopReply, isInternal: (out) => out.body.code === 'INTERNAL', logFields: (_e, _r, out) => ({ code: out.body.code }) }));
    app.get('/missing', async () => {
      throw new ShopError('NOT_FOUND', 'no item eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln here');
    });
    app.get('/down', async () => {
      throw new ShopError('STORAGE_DOWN', 'storage unavailable', { cause: new Error('bearer abc.def.ghi refused') });
    });
    app.get('/bug', async () => {
      throw new TypeError('undefined is not a function');
    });
    app.post('/json', async () => 'ok');
    return sink;
  }

  it('replies with the mapped status, body and headers', async () => {
    await start();
    const missing = await app!.inject({ url: '/missing' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: 'Not Found', code: 'NOT_FOUND' });
    const down = await app!.inject({ url: '/down' });
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('5');
    const bug = await app!.inject({ url: '/bug' });
    expect(bug.statusCode).toBe(500);
    expect(bug.json()).toEqual({ error: 'Internal Server Error', code: 'INTERNAL', message: 'internal error; see the log' });
    const bad = await app!.inject({ method: 'POST', url: '/json', headers: { 'content-type': 'application/json' }, payload: '{' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('logs a client error at info and an expected 5xx at warn, redacted; an internal fault at error with the stack', async () => {
    const sink = await start();
    await app!.inject({ url: '/missing' });
    await app!.inject({ url: '/down' });
    await app!.inject({ url: '/bug' });
    const lines = sink.lines().filter((line) => line.status !== undefined && line.msg !== 'request completed');
    expect(lines).toHaveLength(3);
    const [missing, down, bug] = lines as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
    expect(missing).toMatchObject({ level: 30, code: 'NOT_FOUND', status: 404 });
    expect(missing.msg).toMatch(/^no item <token sha256:[0-9a-f]{12} len=\d+> here$/);
    expect(down).toMatchObject({ level: 40, code: 'STORAGE_DOWN', status: 503, msg: 'storage unavailable' });
    expect(down.cause).toMatch(/^bearer <token sha256:/);
    expect(bug).toMatchObject({ level: 50, code: 'INTERNAL', status: 500, msg: 'request failed' });
    expect((bug.err as { stack: string }).stack).toContain('undefined is not a function');
    expect(sink.text()).not.toContain('abc.def.ghi');
    expect(sink.text()).not.toContain('eyJhbGciOiJIUzI1NiJ9');
  });
});
