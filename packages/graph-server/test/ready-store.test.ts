/**
 * `/$/ready` reports a store that can no longer commit (issue 18): a write whose log append failed
 * (STORE_IO) makes the server unready (503, `checks.storage: 'failed'`, a reason naming the kind
 * of failure and nothing else) until a write commits again; a closed store is `closed`.
 */
import { open, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type LogFile, type OpenLogFile } from '@ianode/store';
import { createGraphServer, type GraphServer } from '../src/index.js';

/** A real log file whose writes fail with ENOSPC while `full` is set (a full disk). */
class FullDisk {
  full = false;
  readonly open: OpenLogFile = async (path) => {
    const handle = await open(path, 'a');
    const fail = (): Promise<never> => Promise.reject(Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: 'ENOSPC' }));
    const file: LogFile = {
      writev: (buffers) => (this.full ? fail() : handle.writev(buffers)),
      write: (buffer) => (this.full ? fail() : handle.write(buffer)),
      datasync: () => handle.datasync(),
      truncate: (length) => handle.truncate(length),
      stat: () => handle.stat(),
      close: () => handle.close(),
    };
    return file;
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(): Promise<{ server: GraphServer; base: string; disk: FullDisk; dir: string; store: Awaited<ReturnType<typeof openStore>> }> {
  const dir = await mkdtemp(join(tmpdir(), 'ianode-ready-'));
  const disk = new FullDisk();
  const store = await openStore({ dir, logFiles: disk.open });
  const server = await createGraphServer({ dataset: { name: 'ds' } }, { logger: false, store });
  const base = await server.listen({ port: 0 });
  cleanups.push(async () => {
    await server.close();
    await store.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  return { server, base, disk, dir, store };
}

const upload = (base: string, n: number) =>
  fetch(`${base}/ds/upload`, { method: 'POST', headers: { 'content-type': 'application/n-triples' }, body: `<http://e/s${n}> <http://e/p> "${n}" .\n` });

async function ready(base: string): Promise<{ status: number; body: { ready: boolean; checks: Record<string, string>; reasons?: Record<string, string> } }> {
  const r = await fetch(`${base}/$/ready`);
  return { status: r.status, body: (await r.json()) as never };
}

describe('/$/ready and the store', () => {
  it('is 503 with storage failed after a log write fails, and ready again once a write commits', async () => {
    const { base, disk, dir } = await setup();
    expect((await upload(base, 1)).status).toBe(200);
    expect(await ready(base)).toMatchObject({ status: 200, body: { ready: true, checks: { storage: 'open' } } });

    disk.full = true;
    const failed = await upload(base, 2);
    expect(failed.status).toBe(503);
    const down = await ready(base);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ ready: false, checks: { storage: 'failed' } });
    expect(down.body.reasons?.storage).toMatch(/STORE_IO, ENOSPC/);
    // The reason names the kind of failure, not the folder or any data.
    expect(JSON.stringify(down.body)).not.toContain(dir);
    expect(JSON.stringify(down.body)).not.toContain('http://e/');

    disk.full = false;
    expect((await upload(base, 3)).status).toBe(200);
    expect(await ready(base)).toMatchObject({ status: 200, body: { ready: true, checks: { storage: 'open' } } });
  });

  it('is 503 with storage closed once a write finds the store closed', async () => {
    const { base, store } = await setup();
    expect((await ready(base)).status).toBe(200);
    await store.close();
    expect((await upload(base, 1)).status).toBe(503);
    expect(await ready(base)).toMatchObject({ status: 503, body: { ready: false, checks: { storage: 'closed' }, reasons: { storage: 'the store is closed' } } });
  });

  it('reports a failing checkpoint but stays ready: commits still reach the log', async () => {
    const { base, store } = await setup();
    // The store keeps why its last automatic checkpoint failed (it goes on committing to its log).
    (store as unknown as { lastCheckpointError: Error | undefined }).lastCheckpointError = Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
    const r = await ready(base);
    expect(r).toMatchObject({ status: 200, body: { ready: true, checks: { storage: 'open', checkpoint: 'failing' } } });
    expect(r.body.reasons?.checkpoint).toMatch(/EIO/);
    expect((await upload(base, 1)).status).toBe(200);
    (store as unknown as { lastCheckpointError: Error | undefined }).lastCheckpointError = undefined;
    expect((await ready(base)).body.checks.checkpoint).toBeUndefined();
  });

  it('does not start when the audit file cannot be opened', async () => {
    await expect(createGraphServer({ dataset: { name: 'ds' }, audit: { file: join(tmpdir(), `no-such-folder-${process.pid}`, 'audit.log') } }, { logger: false })).rejects.toThrow(/ENOENT/);
  });

  it('is 503 with audit failing when the audit file cannot be written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ianode-ready-audit-'));
    const file = join(dir, 'audit.log');
    const server = await createGraphServer({ dataset: { name: 'ds' }, audit: { file } }, { logger: false });
    cleanups.push(async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    });
    const base = await server.listen({ port: 0 });
    expect((await upload(base, 1)).status).toBe(200);
    expect((await ready(base)).status).toBe(200);
    // The folder goes away: the next record cannot be written (the file is reopened per failure).
    server.app.auditLog!.close();
    await rm(dir, { recursive: true, force: true });
    expect((await upload(base, 2)).status).toBe(200);
    const down = await ready(base);
    expect(down).toMatchObject({ status: 503, body: { ready: false, checks: { audit: 'failing', storage: 'open' } } });
    expect(down.body.reasons?.audit).toMatch(/ENOENT/);
  });
});
