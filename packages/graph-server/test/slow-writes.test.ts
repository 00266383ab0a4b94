/**
 * Writes never wait on a client (docs/graph-server.md "Writes never wait on a client"): a write
 * body is read whole before the store's writer lock is taken, under an idle and a total timeout
 * (408, nothing stored), spooled to a private temporary file past `limits.spoolMemoryBytes`; and a
 * graceful stop ends within its grace even with an upload stalled mid-body. Real sockets; no
 * assertion on elapsed time: ordering, statuses and what was stored.
 */
import { request, type ClientRequest } from 'node:http';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openStore, type QuadStore } from '@ianode/store';
import { BodyDeadline, type Timers } from '../src/body-reader.js';
import { createGraphServer, type GraphServer } from '../src/index.js';
import type { LimitsConfig } from '../src/config.js';

const dirs: string[] = [];
const servers: GraphServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

interface Started {
  server: GraphServer;
  store: QuadStore;
  url: URL;
  spoolDir: string;
  /** Resolves once the server has logged a request to `path`. */
  seen(path: string): Promise<void>;
}

async function start(limits: Partial<LimitsConfig>, timers?: Timers): Promise<Started> {
  const store = await openStore({ defaultLabel: '*' });
  const spoolDir = await mkdtemp(join(tmpdir(), 'ianode-slow-'));
  dirs.push(spoolDir);
  const urls: string[] = [];
  const waiters: Array<{ path: string; resolve: () => void }> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) {
        if (!line.trim()) continue;
        const url = (JSON.parse(line) as { req?: { url?: string } }).req?.url;
        if (url === undefined) continue;
        urls.push(url);
        for (const w of waiters.filter((x) => url.startsWith(x.path))) w.resolve();
      }
      done();
    },
  });
  const server = await createGraphServer({ limits: { shutdownGraceMs: 500, ...limits } }, { logger: { level: 'info', stream } as never, store, spoolDir, ...(timers ? { timers } : {}) });
  servers.push(server);
  const url = new URL(await server.listen({ port: 0 }));
  const seen = (path: string) =>
    urls.some((u) => u.startsWith(path)) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ path, resolve }));
  return { server, store, url, spoolDir, seen };
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request whose body the test writes piece by piece; `reply` settles with the answer (or the
 * socket error when the server cut it). */
function open(url: URL, method: string, path: string, headers: Record<string, string>): { req: ClientRequest; reply: Promise<Reply | Error> } {
  let req!: ClientRequest;
  const reply = new Promise<Reply | Error>((resolve) => {
    req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', resolve);
    });
    req.on('error', resolve);
  });
  req.flushHeaders();
  return { req, reply };
}

const line = (i: number) => `<http://e/s${i}> <http://e/p> "${'x'.repeat(40)}" .\n`;

/** Timers the test fires by hand. */
function manualTimers(): Timers & { fire(ms: number): void; pending(): number[] } {
  let next = 0;
  const timers = new Map<number, { ms: number; callback: () => void }>();
  return {
    setTimeout: (callback, ms) => {
      timers.set(++next, { ms, callback });
      return next;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    fire(ms) {
      for (const [id, t] of [...timers]) {
        if (t.ms === ms) {
          timers.delete(id);
          t.callback();
        }
      }
    },
    pending: () => [...timers.values()].map((t) => t.ms).sort((a, b) => a - b),
  };
}


describe('a slow upload does not hold the writer', () => {
  it('an update is answered while an upload still trickles in; both are stored', async () => {
    const { store, url, seen, spoolDir } = await start({ bodyIdleTimeoutMs: 60_000, spoolMemoryBytes: 256 });
    const lines = Array.from({ length: 40 }, (_, i) => line(i));
    const body = lines.join('');
    const upload = open(url, 'POST', '/ds/upload', { 'content-type': 'application/n-triples', 'content-length': String(Buffer.byteLength(body)) });
    let uploadDone = false;
    void upload.reply.then(() => (uploadDone = true));
    upload.req.write(lines.slice(0, 10).join(''));
    await seen('/ds/upload');
    // Keep it trickling: one line now and then, never finished until the update has its answer.
    let next = 10;
    const trickle = setInterval(() => {
      if (next < lines.length - 1) upload.req.write(lines[next++]!);
    }, 20);
    try {
      const update = await fetch(new URL('/ds/update', url), {
        method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: 'INSERT DATA { <http://e/u> <http://e/p> "u" }',
      });
      expect(update.status).toBe(200);
      expect(uploadDone).toBe(false); // answered while the upload was still arriving
      expect(store.labelOf({ s: '<http://e/u', p: '<http://e/p', o: '"u"', g: '' })).toBe('*');
      // The upload went past the memory threshold: it is spooled to a private file meanwhile.
      const [folder] = (await readdir(spoolDir)).filter((n) => n.startsWith('ianode-spool-'));
      expect(folder).toBeDefined();
      expect((await stat(join(spoolDir, folder!))).mode & 0o777).toBe(0o700);
      const files = await readdir(join(spoolDir, folder!));
      expect(files).toHaveLength(1);
      expect((await stat(join(spoolDir, folder!, files[0]!))).mode & 0o777).toBe(0o600);
    } finally {
      clearInterval(trickle);
    }
    upload.req.end(lines.slice(next).join(''));
    const r = (await upload.reply) as Reply;
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ quads: 40 });
    expect(store.stats().quads).toBe(41);
    // The spool file is gone once the upload is stored.
    const [folder] = (await readdir(spoolDir)).filter((n) => n.startsWith('ianode-spool-'));
    expect(await readdir(join(spoolDir, folder!))).toEqual([]);
  });

  it('an upload that goes idle past bodyIdleTimeoutMs: 408 naming the limit, nothing stored', async () => {
    const { store, url } = await start({ bodyIdleTimeoutMs: 150 });
    const txId = store.stats().txId;
    const upload = open(url, 'POST', '/ds/upload', { 'content-type': 'application/n-triples', 'content-length': '10000' });
    upload.req.write(line(1));
    const r = (await upload.reply) as Reply;
    expect(r.status).toBe(408);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'REQUEST_TIMEOUT' });
    expect(JSON.parse(r.body).message).toMatch(/bodyIdleTimeoutMs \(150 ms\).*nothing was stored/);
    expect(r.headers.connection).toBe('close');
    expect(store.stats()).toMatchObject({ quads: 0, txId });
    upload.req.destroy();
  });

  it('a multipart upload whose file stalls: 408, nothing stored', async () => {
    const { store, url } = await start({ bodyIdleTimeoutMs: 150 });
    const upload = open(url, 'POST', '/ds/upload', { 'content-type': 'multipart/form-data; boundary=XyZ', 'content-length': '10000' });
    upload.req.write(`--XyZ\r\ncontent-disposition: form-data; name="file"; filename="data.nt"\r\ncontent-type: application/n-triples\r\n\r\n${line(1)}`);
    const r = (await upload.reply) as Reply;
    expect(r.status).toBe(408);
    expect(JSON.parse(r.body).message).toMatch(/upload body: no bytes for limits.bodyIdleTimeoutMs/);
    expect(store.stats().quads).toBe(0);
    upload.req.destroy();
  });

  it('a graph store write that trickles past bodyTimeoutMs: 408, nothing stored', async () => {
    const { store, url } = await start({ bodyIdleTimeoutMs: 60_000, bodyTimeoutMs: 200 });
    const put = open(url, 'PUT', '/ds/data?default', { 'content-type': 'text/turtle', 'content-length': '100000' });
    let i = 0;
    const trickle = setInterval(() => put.req.write(line(i++)), 20);
    const r = (await put.reply) as Reply;
    clearInterval(trickle);
    expect(r.status).toBe(408);
    expect(JSON.parse(r.body).message).toMatch(/bodyTimeoutMs \(200 ms\)/);
    expect(store.stats().quads).toBe(0);
    put.req.destroy();
  });

  it('a syntax error in a spooled upload is 400 before the store is touched', async () => {
    const { store, url } = await start({ spoolMemoryBytes: 64 });
    const txId = store.stats().txId;
    const body = `${line(1)}${line(2)}<http://e/a> <http://e/b> .\n`;
    const r = await fetch(new URL('/ds/upload', url), { method: 'POST', headers: { 'content-type': 'application/n-triples' }, body });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ code: 'RDF_SYNTAX', line: 3 });
    expect(store.stats()).toMatchObject({ quads: 0, txId });
  });
});

describe('bodies Fastify reads itself', () => {
  it('SPARQL query, update and form bodies have the same total bound (the HTTP server\'s request timeout)', async () => {
    const { server } = await start({ bodyTimeoutMs: 12_345 });
    expect(server.app.server.requestTimeout).toBe(12_345);
  });
});

describe('graceful stop', () => {
  it('close() with a stalled upload ends within the grace: the upload is cut, nothing stored', async () => {
    const { server, store, url, seen } = await start({ bodyIdleTimeoutMs: 600_000, shutdownGraceMs: 200 });
    servers.splice(servers.indexOf(server), 1);
    const upload = open(url, 'POST', '/ds/upload', { 'content-type': 'application/n-triples', 'content-length': '10000' });
    upload.req.write(line(1));
    await seen('/ds/upload');
    let replied = false;
    void upload.reply.then(() => (replied = true));
    await server.close(); // the stalled upload never ends by itself: this returns because of the grace
    const r = await upload.reply;
    expect(replied).toBe(true);
    expect(r).not.toBeInstanceOf(Error); // told why before the socket was cut
    expect((r as Reply).status).toBe(503);
    expect(JSON.parse((r as Reply).body)).toMatchObject({ code: 'SHUTTING_DOWN' });
    expect(store.stats().quads).toBe(0);
    upload.req.destroy();
  });

  it('close() waits for the grace on its (injected) clock, then ends the stalled upload', async () => {
    const timers = manualTimers();
    const { server, store, url, seen } = await start({ bodyIdleTimeoutMs: 0, bodyTimeoutMs: 0, shutdownGraceMs: 5_000 }, timers);
    servers.splice(servers.indexOf(server), 1);
    const upload = open(url, 'POST', '/ds/upload', { 'content-type': 'application/n-triples', 'content-length': '10000' });
    upload.req.write(line(1));
    await seen('/ds/upload');
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    // The grace timer is armed; until it fires, the stalled upload keeps the server open.
    while (!timers.pending().includes(5_000)) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    timers.fire(5_000);
    // Then only the short margins stand between the stop and its end.
    while (!closed) {
      for (const ms of timers.pending()) timers.fire(ms);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await closing;
    expect(((await upload.reply) as Reply).status).toBe(503);
    expect(store.stats().quads).toBe(0);
    upload.req.destroy();
  });

  it('close() does not wait for a client that keeps its connection after a reply that was under way', async () => {
    // The grace is on an injected clock that never fires here: close() can only return because the
    // connection of the answered query is closed once its reply is over (a compressed reply still
    // being flushed when the stop begins kept its keep-alive connection open, and the stop waited
    // for the whole grace).
    const timers = manualTimers();
    const { server, store, url } = await start({ shutdownGraceMs: 5_000 }, timers);
    servers.splice(servers.indexOf(server), 1);
    await store.load('<http://x/a> <http://x/b> "c" .', { format: 'text/turtle' });
    const response = await fetch(new URL(`/ds?query=${encodeURIComponent('SELECT * { ?s ?p ?o }')}`, url), { headers: { 'accept-encoding': 'gzip' } });
    expect(response.status).toBe(200);
    await server.close(); // the body is never read: the client keeps the connection
    expect(timers.pending()).not.toContain(5_000); // the grace timer was cancelled, not fired
  });

  it('close() lets an upload that finishes within the grace be stored', async () => {
    const { server, store, url, seen } = await start({ shutdownGraceMs: 60_000 });
    servers.splice(servers.indexOf(server), 1);
    const body = line(1) + line(2);
    const upload = open(url, 'POST', '/ds/upload', { 'content-type': 'application/n-triples', 'content-length': String(body.length) });
    upload.req.write(line(1));
    await seen('/ds/upload');
    const closed = server.close();
    upload.req.end(line(2));
    const r = (await upload.reply) as Reply;
    await closed;
    expect(r.status).toBe(200);
    expect(store.stats().quads).toBe(2);
  });
});

describe('BodyDeadline (injected timers)', () => {
  it('bytes restart the idle timer; the total one still ends the body; stop clears both', async () => {
    const timers = manualTimers();
    const deadline = new BodyDeadline({ idleMs: 10, totalMs: 99 }, timers, 'test body');
    expect(timers.pending()).toEqual([10, 99]);
    deadline.touch();
    expect(timers.pending()).toEqual([10, 99]); // the old idle timer was replaced, not added to
    timers.fire(99);
    await expect(deadline.failed).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT', message: expect.stringMatching(/bodyTimeoutMs \(99 ms\)/) });
    expect(timers.pending()).toEqual([]);
    const other = new BodyDeadline({ idleMs: 10, totalMs: 0 }, timers, 'test body');
    other.stop();
    expect(timers.pending()).toEqual([]);
    expect(other.stopped).toBe(true);
  });
});
