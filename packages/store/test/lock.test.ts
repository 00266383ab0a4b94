/**
 * The store folder lock (lock.ts, docs/operations.md "The folder lock"): one process at a time,
 * in the same process or another; a killed holder's lock is taken over and reported; verify reads
 * a held folder and says who holds it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, StoreError, verifyStore, type StoreLog } from '../src/index.js';

const STORE_DIST = new URL('../dist/index.js', import.meta.url).href;
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function tempStore(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ianode-lock-'));
  dirs.push(dir);
  return join(dir, 'data');
}

/** A child process that opens `dir`, loads a triple, prints "held" and waits to be killed. */
async function holder(dir: string): Promise<ChildProcess> {
  const script = `
    import { openStore } from ${JSON.stringify(STORE_DIST)};
    const store = await openStore({ dir: ${JSON.stringify(dir)}, lockPurpose: 'test holder' });
    await store.load('<http://ex/s> <http://ex/p> "held" .\\n', { format: 'application/n-triples' });
    process.stdout.write('held\\n');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('held')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`holder exited ${code}`)));
  });
  return child;
}

function refusal(error: unknown): StoreError {
  expect(error).toBeInstanceOf(StoreError);
  expect((error as StoreError).code).toBe('STORE_LOCKED');
  return error as StoreError;
}

describe('store folder lock', () => {
  it('a second open of the folder in the same process is refused until the first closes', async () => {
    const dir = await tempStore();
    const first = await openStore({ dir, lockPurpose: 'first' });
    const lock = JSON.parse(readFileSync(join(dir, 'LOCK'), 'utf8')) as Record<string, unknown>;
    expect(lock).toMatchObject({ pid: process.pid, hostname: hostname(), purpose: 'first' });
    const error = refusal(await openStore({ dir }).catch((e: unknown) => e));
    expect(error.message).toContain(`process ${process.pid} on ${hostname()} (first) since ${String(lock.startedAt)}`);
    expect(error.message).toContain('stop that process first');
    // The refused open left the holder's lock and data alone.
    await first.load('<http://ex/a> <http://ex/b> "c" .\n', { format: 'application/n-triples' });
    await first.close();
    expect(existsSync(join(dir, 'LOCK'))).toBe(false);
    const second = await openStore({ dir });
    expect(second.stats().quads).toBe(1);
    await second.close();
  });

  it('a folder held by a child process is refused with its pid', async () => {
    const dir = await tempStore();
    const child = await holder(dir);
    const error = refusal(await openStore({ dir }).catch((e: unknown) => e));
    expect(error.message).toContain(`process ${child.pid} on ${hostname()} (test holder)`);
  });

  it('the lock of a SIGKILLed holder is stale: the next open takes it over and reports it', async () => {
    const dir = await tempStore();
    const child = await holder(dir);
    const killed = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await killed;
    expect(existsSync(join(dir, 'LOCK'))).toBe(true); // a SIGKILL runs no exit hook
    const logged: [string, string][] = [];
    const log: StoreLog = (level, message) => logged.push([level, message]);
    const store = await openStore({ dir, log });
    expect(logged).toContainEqual(['warn', expect.stringContaining(`took over the stale lock of store ${dir}: process ${child.pid} on ${hostname()} (test holder)`)]);
    expect(store.stats().quads).toBe(1); // the holder's commit is there
    expect(JSON.parse(readFileSync(join(dir, 'LOCK'), 'utf8'))).toMatchObject({ pid: process.pid });
    await store.close();
  });

  it('a process that exits without closing the store leaves no lock behind (best effort at exit)', async () => {
    const dir = await tempStore();
    const script = `
      import { openStore } from ${JSON.stringify(STORE_DIST)};
      await openStore({ dir: ${JSON.stringify(dir)} });
      process.exit(0);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
    children.push(child);
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    expect(existsSync(join(dir, 'LOCK'))).toBe(false);
    expect(existsSync(join(dir, 'wal-0000000000.log'))).toBe(true); // it did open the folder
  });

  it('a lock taken on another host is refused (its liveness cannot be checked)', async () => {
    const dir = await tempStore();
    const store = await openStore({ dir });
    await store.close();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'LOCK'), JSON.stringify({ pid: 1, hostname: 'elsewhere.example', startedAt: '2026-01-01T00:00:00.000Z', purpose: 'graph server' }));
    const error = refusal(await openStore({ dir }).catch((e: unknown) => e));
    expect(error.message).toContain('process 1 on elsewhere.example (graph server) since 2026-01-01T00:00:00.000Z');
    expect(error.message).toContain(`remove ${join(dir, 'LOCK')}`);
  });

  it("a lock naming this process's pid that this process does not hold is stale (a restarted container)", async () => {
    const dir = await tempStore();
    const store = await openStore({ dir });
    await store.close();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'LOCK'), JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z', purpose: 'graph server' }));
    const logged: string[] = [];
    const again = await openStore({ dir, log: (_level, message) => logged.push(message) });
    expect(logged.some((m) => m.includes('took over the stale lock'))).toBe(true);
    await again.close();
  });

  it('verify reads a held folder without the lock and says who holds it', async () => {
    const dir = await tempStore();
    const child = await holder(dir);
    const report = verifyStore(dir);
    expect(report.healthy).toBe(true);
    expect(report.state?.quads).toBe(1);
    expect(report.lock).toMatchObject({ holder: { pid: child.pid, purpose: 'test holder' }, alive: true });
    expect(report.lines.join('\n')).toContain(`held by process ${child.pid} on ${hostname()} (test holder)`);
    expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toContain(`"pid":${child.pid}`); // untouched
  });

  it('a failed open releases the lock', async () => {
    const dir = await tempStore();
    const store = await openStore({ dir });
    await store.load('<http://ex/a> <http://ex/b> "c" .\n', { format: 'application/n-triples' });
    await store.close();
    const { writeFileSync, readdirSync } = await import('node:fs');
    const log = readdirSync(dir).find((f) => f.startsWith('wal-'))!;
    const bytes = readFileSync(join(dir, log));
    bytes[20]! ^= 0xff;
    writeFileSync(join(dir, log), bytes);
    const error = await openStore({ dir }).catch((e: unknown) => e);
    expect((error as StoreError).code).toBe('STORE_CORRUPT');
    expect(existsSync(join(dir, 'LOCK'))).toBe(false);
  });
});


