/**
 * `ianode store verify` / `ianode store recover` (docs/operations.md): exit codes, what they print,
 * and that the damaged folder is never changed. Damage at fixed offsets of deterministic data.
 */
import { spawnSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '@ianode/store';
import { storeCommand } from '../src/store.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const LOG0 = 'wal-0000000000.log';
const CKPT2 = 'checkpoint-0000000002.ckpt';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ianode-cli-store-'));
  dirs.push(dir);
  return dir;
}

/** `commits` uploads of 10 triples each (upload k: subjects s{k}-{i}); a checkpoint after `checkpointAfter`. */
async function storeFolder(commits: number, checkpointAfter?: number): Promise<string> {
  const dir = path.join(await tempDir(), 'data');
  const store = await openStore({ dir, defaultLabel: '*' });
  for (let k = 1; k <= commits; k++) {
    let text = '';
    for (let i = 0; i < 10; i++) text += `<http://ex/s${k}-${i}> <http://ex/p> "${k} ${i}" .\n`;
    await store.load(text, { format: 'application/n-triples' });
    if (k === checkpointAfter) await store.checkpoint();
  }
  await store.close();
  return dir;
}

async function image(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of (await readdir(dir)).sort()) out[f] = (await readFile(path.join(dir, f))).toString('base64');
  return out;
}

async function run(args: string[]): Promise<{ code: number; output: string }> {
  let output = '';
  const code = await storeCommand(args, (t) => (output += t));
  return { code, output };
}

/** Offset of the BEGIN frame of transaction `txId` in a log (frames: magic type len crc payload). */
async function beginOf(file: string, txId: number): Promise<number> {
  const b = await readFile(file);
  for (let pos = 0; pos + 16 <= b.length; pos += 16 + b.readUInt32LE(pos + 8)) {
    if (b.readUInt32LE(pos + 4) === 1 && b.readUInt32LE(pos + 16) === txId) return pos;
  }
  throw new Error(`no BEGIN ${txId} in ${file}`);
}

async function flip(file: string, offset: number): Promise<void> {
  const b = await readFile(file);
  b[offset]! ^= 0x10;
  await writeFile(file, b);
}

describe('ianode store verify', () => {
  it('exits 0 on a healthy store and says so', async () => {
    const dir = await storeFolder(3, 2);
    const { code, output } = await run(['verify', dir]);
    expect(output).toContain('healthy');
    expect(output).toContain('state: transaction 3, 30 quads');
    expect(code).toBe(0);
  });

  const DAMAGE: { name: string; file: string; damage: (dir: string) => Promise<void>; opens: boolean }[] = [
    { name: 'a flipped bit in commit 2 of the log', file: LOG0, opens: false, damage: async (dir) => flip(path.join(dir, LOG0), (await beginOf(path.join(dir, LOG0), 2)) + 17) },
    { name: 'a log cut inside its last commit', file: LOG0, opens: true, damage: async (dir) => truncate(path.join(dir, LOG0), (await beginOf(path.join(dir, LOG0), 4)) + 40) },
    { name: 'garbage after the last commit', file: LOG0, opens: true, damage: (dir) => appendFile(path.join(dir, LOG0), Buffer.from('garbage!')) },
    { name: 'a flipped bit in the checkpoint', file: CKPT2, opens: true, damage: (dir) => flip(path.join(dir, CKPT2), 64) },
    { name: 'a truncated checkpoint', file: CKPT2, opens: true, damage: async (dir) => truncate(path.join(dir, CKPT2), (await stat(path.join(dir, CKPT2))).size - 1) },
  ];

  it.each(DAMAGE)('exits 1 on $name, names the file, changes nothing', async ({ file, damage, opens }) => {
    // Damage in wal-0 matters in a folder of logs alone (a checkpoint after commit 2 would cover it).
    const dir = await storeFolder(4, file === LOG0 ? undefined : 2);
    await damage(dir);
    const before = await image(dir);
    const { code, output } = await run(['verify', dir]);
    expect(code).toBe(1);
    expect(output).toContain(`${file} @`);
    expect(output).toContain(opens ? 'the store still opens' : 'the store refuses to open');
    expect(await image(dir)).toEqual(before);
  });

  it('the installed command exits with the same codes', () => {
    // dist/main.js is built by `npx tsc -b`; exit 2 on a usage error, 1 on a missing folder.
    const usage = spawnSync(process.execPath, [MAIN, 'store', 'verify'], { encoding: 'utf8' });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('usage: ianode store verify DIR');
    expect(usage.stdout).toBe('');
    const missing = spawnSync(process.execPath, [MAIN, 'store', 'verify', path.join(tmpdir(), 'no-such-ianode-store')], { encoding: 'utf8' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('is not a folder');
  });
});

describe('ianode store recover', () => {
  it('writes every commit before the damage to a new folder, reports the loss, leaves the source alone', async () => {
    const dir = await storeFolder(5);
    const offset = (await beginOf(path.join(dir, LOG0), 3)) + 17;
    await flip(path.join(dir, LOG0), offset);
    const before = await image(dir);
    const out = path.join(await tempDir(), 'recovered');
    const { code, output } = await run(['recover', dir, '--to', out]);
    expect(code).toBe(0);
    expect(output).toContain('recovered: transaction 2, 20 quads');
    expect(output).toContain('LOST: 3 commits, transactions 3 to 5');
    expect(output).toContain(`damage: ${LOG0} at byte ${offset - 17}`);
    expect(await image(dir)).toEqual(before);
    expect(await readFile(path.join(out, 'RECOVERY.txt'), 'utf8')).toContain('LOST: 3 commits');
    expect((await run(['verify', out])).code).toBe(0);
    const store = await openStore({ dir: out, defaultLabel: '*' });
    try {
      expect(store.count({})).toBe(20);
    } finally {
      await store.close();
    }
  });

  it('refuses a --to folder that is not empty, and usage errors exit 2', async () => {
    const dir = await storeFolder(1);
    const out = await tempDir();
    await mkdir(path.join(out, 'x'));
    await expect(run(['recover', dir, '--to', out])).rejects.toThrow(/not empty/);
    const before = await image(dir);
    await expect(run(['recover', dir, '--to', path.join(dir, 'inside')])).rejects.toThrow(/inside/);
    expect(await image(dir)).toEqual(before);
    expect((await run(['recover', dir])).code).toBe(2);
    expect((await run(['check', dir])).code).toBe(2);
  });
});
