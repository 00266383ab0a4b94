/**
 * The graph server opens its store through `openStore` with its own log (docs/operations.md): what
 * the store did at open shows in the server log, and a damaged store folder fails the start with
 * the store's message (main.ts then exits 2 with it).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '@ianode/store';
import { createGraphServer } from '../src/server.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A store folder with two commits in wal-0; returns the folder. */
async function folder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ianode-gs-store-'));
  dirs.push(dir);
  const store = await openStore({ dir });
  await store.load('<http://ex/a> <http://ex/p> "1" .\n', { format: 'application/n-triples' });
  await store.load('<http://ex/b> <http://ex/p> "2" .\n', { format: 'application/n-triples' });
  await store.close();
  return dir;
}

function logSink(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  let text = '';
  const stream = new Writable({ write: (chunk: Buffer, _enc, done) => ((text += chunk.toString()), done()) });
  return { stream, lines: () => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('graph server start and the store folder', () => {
  it('logs what the store did at open (a torn tail cut)', async () => {
    const dir = await folder();
    await writeFile(path.join(dir, 'wal-0000000000.log'), Buffer.concat([await readFile(path.join(dir, 'wal-0000000000.log')), Buffer.from('torn')]));
    const sink = logSink();
    const server = await createGraphServer({ dataset: { storage: dir } }, { logger: { level: 'info', stream: sink.stream } });
    try {
      expect(server.store.count({})).toBe(2);
      const torn = sink.lines().find((l) => String(l.msg).includes('torn tail'));
      expect(torn).toMatchObject({ level: 40, file: 'wal-0000000000.log', bytes: 4 });
    } finally {
      await server.close();
    }
  });

  it('refuses to start on a damaged store, with the store message', async () => {
    const dir = await folder();
    const log = path.join(dir, 'wal-0000000000.log');
    const bytes = await readFile(log);
    bytes[17]! ^= 1; // the BEGIN frame of commit 1, with commit 2 intact after it
    await writeFile(log, bytes);
    await expect(createGraphServer({ dataset: { storage: dir } }, { logger: false })).rejects.toMatchObject({
      code: 'STORE_CORRUPT',
      message: expect.stringContaining('wal-0000000000.log is damaged at byte 0'),
    });
  });

  it('the entry point exits 2 with the store message, and no usage text (nothing was wrong with the command)', async () => {
    const dir = await folder();
    const log = path.join(dir, 'wal-0000000000.log');
    const bytes = await readFile(log);
    bytes[17]! ^= 1;
    await writeFile(log, bytes);
    const config = path.join(dir, '..', `${path.basename(dir)}.yaml`);
    await writeFile(config, `dataset:\n  storage: ${JSON.stringify(dir)}\n`);
    dirs.push(config);
    const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
    const run = spawnSync(process.execPath, [main, '--config', config, '--port', '0'], { encoding: 'utf8', env: { ...process.env, JWKS_URL: 'disabled' }, timeout: 60_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('wal-0000000000.log is damaged at byte 0');
    expect(run.stderr).not.toContain('usage:');
    expect(await readFile(log)).toEqual(bytes); // the folder is left as it was
  });

  it('a folder another process holds: the server names the holder and exits 2; a second server on it is refused', async () => {
    const dir = await folder();
    const first = await createGraphServer({ dataset: { storage: dir } }, { logger: false });
    try {
      expect(JSON.parse(await readFile(path.join(dir, 'LOCK'), 'utf8'))).toMatchObject({ pid: process.pid, purpose: 'graph server' });
      await expect(createGraphServer({ dataset: { storage: dir } }, { logger: false })).rejects.toMatchObject({ code: 'STORE_LOCKED' });
      const config = path.join(dir, '..', `${path.basename(dir)}-held.yaml`);
      await writeFile(config, `dataset:\n  storage: ${JSON.stringify(dir)}\n`);
      dirs.push(config);
      const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
      const run = spawnSync(process.execPath, [main, '--config', config, '--port', '0'], { encoding: 'utf8', env: { ...process.env, JWKS_URL: 'disabled' }, timeout: 60_000 });
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`is in use by process ${process.pid}`);
      expect(run.stderr).toContain('(graph server)');
      expect(run.stderr).not.toContain('usage:');
    } finally {
      await first.close();
    }
  });
});
