/**
 * Crash safety (ARCHITECTURE.md, "Durability"): a child process loads upload after upload into a
 * durable store and is killed with SIGKILL at some moment (mid-upload, mid-checkpoint). Reopening
 * the folder must show every acknowledged upload in full and every other upload in full or not
 * at all — and the recovered store must accept and keep new commits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFile, mkdtemp, readdir, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { namedNode } from '@ianode/rdf';
import { openStore, type QuadStore } from '@ianode/store';

const CHILD = fileURLToPath(new URL('./support/crash-child.mjs', import.meta.url));

const dirs: string[] = [];
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ianode-crash-'));
  dirs.push(dir);
  return dir;
}

interface CrashCase {
  /** The child's stdout line after which the kill is sent... */
  killOn: string;
  /** ...this many milliseconds later. */
  delayMs: number;
  uploads: number;
  /** Triples per upload. */
  triples: number;
  checkpointBytes?: number;
  /** See crash-child.mjs. */
  mode: 'load' | 'checkpoint' | 'transactions';
}

interface Crashed {
  /** Uploads the child acknowledged before it died. */
  acked: number;
  transcript: string;
}

/** Runs the child until `killOn` (+ delay), kills it, and waits until its output is drained. */
function runAndKill(dir: string, c: CrashCase): Promise<Crashed> {
  const args = [CHILD, dir, String(c.uploads), String(c.triples), String(c.checkpointBytes ?? 0), c.mode];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    if (line === c.killOn) setTimeout(() => child.kill('SIGKILL'), c.delayMs);
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      children.delete(child);
      const transcript = `child output: ${lines.join(' | ')}\nchild stderr: ${stderr}`;
      if (signal !== 'SIGKILL') {
        reject(new Error(`the child was not killed (exit code ${code}): it finished or failed before "${c.killOn}"\n${transcript}`));
        return;
      }
      resolve({ acked: lines.filter((l) => l.startsWith('ACK ')).length, transcript });
    });
  });
}

/** Quads of upload k (each upload has its own predicate). */
function uploadCount(store: QuadStore, k: number): number {
  const p = store.lookup(namedNode(`http://ex/u${k}/p`));
  return p === undefined ? 0 : store.count({ p });
}

function holdsSubject(store: QuadStore, k: number, i: number): boolean {
  const s = store.lookup(namedNode(`http://ex/u${k}/s${i}`));
  return s !== undefined && store.count({ s }) === 1;
}

/** Asserts the all-or-nothing rule on a reopened store; returns how many uploads survived. */
interface Expectation {
  uploads: number;
  triples: number;
  /** Uploads that must be present. */
  acked: number;
  transcript: string;
  /** Quads expected besides the uploads. */
  extraQuads?: number;
}

function expectWholeUploads(store: QuadStore, { uploads, triples, acked, transcript, extraQuads = 0 }: Expectation): number {
  const counts = Array.from({ length: uploads }, (_, k) => uploadCount(store, k));
  const where = `per-upload counts ${JSON.stringify(counts)} with ${acked} acknowledged\n${transcript}`;
  // Up to 2,000 uploads: each is checked, and its expect runs (and fails) only when the check does.
  for (let k = 0; k < uploads; k++) {
    if (k < acked) {
      if (counts[k] !== triples) expect(counts[k], `acknowledged upload ${k} lost or partial; ${where}`).toBe(triples);
    } else if (counts[k] !== 0 && counts[k] !== triples) expect([0, triples], `upload ${k} is partial; ${where}`).toContain(counts[k]);
  }
  const survived = counts.filter((n) => n === triples).length;
  expect(counts.slice(0, survived).every((n) => n === triples), `uploads survived out of order; ${where}`).toBe(true);
  expect(store.count({}), `quads outside the uploads; ${where}`).toBe(survived * triples + extraQuads);
  for (let k = 0; k < survived; k++) {
    const ends = holdsSubject(store, k, 0) && holdsSubject(store, k, triples - 1);
    if (!ends) expect(ends, `upload ${k} ends; ${where}`).toBe(true);
  }
  return survived;
}

const LOAD = { triples: 20_000, mode: 'load' } as const;
const CASES: (CrashCase & { name: string })[] = [
  { name: 'right as upload 1 starts', killOn: 'BEGIN 1', delayMs: 0, uploads: 4, ...LOAD },
  { name: 'during upload 2', killOn: 'BEGIN 2', delayMs: 20, uploads: 5, ...LOAD },
  { name: 'late in upload 4', killOn: 'BEGIN 4', delayMs: 60, uploads: 7, ...LOAD },
  { name: 'during upload 3 with automatic checkpoints', killOn: 'BEGIN 3', delayMs: 30, uploads: 6, checkpointBytes: 512 * 1024, ...LOAD },
  { name: 'as checkpoint() starts after upload 2', killOn: 'CHECKPOINT 2', delayMs: 0, uploads: 6, triples: 20_000, mode: 'checkpoint' },
  { name: 'during checkpoint() after upload 3', killOn: 'CHECKPOINT 3', delayMs: 10, uploads: 7, triples: 20_000, mode: 'checkpoint' },
  // Small commits back to back: the child spends its time appending and fsyncing.
  { name: 'amid small commits', killOn: 'ACK 100', delayMs: 2, uploads: 2000, triples: 50, mode: 'transactions' },
  { name: 'amid small commits with checkpoints', killOn: 'ACK 60', delayMs: 5, uploads: 2000, triples: 200, checkpointBytes: 64 * 1024, mode: 'transactions' },
];

/**
 * Reopens the folder and checks the uploads; then commits one more quad and checks that it, and
 * the same uploads, are there after another reopen (a torn log tail must not swallow new commits).
 * Returns how many uploads survived.
 */
async function expectRecovery(dir: string, e: Expectation): Promise<number> {
  const recovered = await openStore({ dir, defaultLabel: '*' });
  let survived: number;
  try {
    survived = expectWholeUploads(recovered, e);
    await recovered.load('<http://ex/after/s> <http://ex/after/p> "after the crash" .\n', { format: 'application/n-triples' });
  } finally {
    await recovered.close();
  }
  const reopened = await openStore({ dir, defaultLabel: '*' });
  try {
    const again = expectWholeUploads(reopened, { ...e, acked: survived, extraQuads: 1 });
    expect(again, `uploads changed on the second reopen\n${e.transcript}`).toBe(survived);
    const after = reopened.lookup(namedNode('http://ex/after/p'));
    expect(after === undefined ? 0 : reopened.count({ p: after }), `the commit after recovery was lost\n${e.transcript}`).toBe(1);
  } finally {
    await reopened.close();
  }
  return survived;
}

describe('crash safety: the writer is killed with SIGKILL', () => {
  it.each(CASES)('killed $name: acknowledged uploads whole, others whole or absent', async (c) => {
    const dir = await tempDir();
    const { acked, transcript } = await runAndKill(dir, c);
    expect(acked, `the kill came too early\n${transcript}`).toBeGreaterThanOrEqual(Number(c.killOn.split(' ')[1]));
    await expectRecovery(dir, { uploads: c.uploads, triples: c.triples, acked, transcript });
  });
});

/**
 * SIGKILL cannot tear a write (the kernel finishes it); power loss can. These cases damage the log
 * the way a power cut does. They assume only that the store keeps its log in a file named `*.log`.
 */
describe('crash safety: a torn log tail', () => {
  const UPLOADS = 3;
  const TRIPLES = 2000;

  function uploadText(k: number): string {
    let text = '';
    for (let i = 0; i < TRIPLES; i++) text += `<http://ex/u${k}/s${i}> <http://ex/u${k}/p> "${i}" .\n`;
    return text;
  }

  /** A folder holding UPLOADS committed uploads, all in one log; returns the log's path and size. */
  async function committedLog(): Promise<{ dir: string; log: string; size: number }> {
    const dir = await tempDir();
    const store = await openStore({ dir, defaultLabel: '*' });
    for (let k = 0; k < UPLOADS; k++) await store.load(uploadText(k), { format: 'application/n-triples' });
    await store.close();
    const logs = (await readdir(dir)).filter((f) => f.endsWith('.log'));
    const sizes = await Promise.all(logs.map(async (f) => (await stat(join(dir, f))).size));
    const nonEmpty = logs.filter((_, i) => sizes[i]! > 0);
    expect(nonEmpty, `expected one non-empty *.log in ${JSON.stringify(logs)}`).toHaveLength(1);
    const log = join(dir, nonEmpty[0]!);
    return { dir, log, size: (await stat(log)).size };
  }

  const DAMAGE: { name: string; survive: number; damage: (log: string, size: number) => Promise<void> }[] = [
    { name: 'the last byte missing', survive: UPLOADS - 1, damage: (log, size) => truncate(log, size - 1) },
    { name: 'the last commit half written', survive: UPLOADS - 1, damage: (log, size) => truncate(log, Math.floor(size - size / 6)) },
    { name: 'the first commit half written', survive: 0, damage: (log, size) => truncate(log, Math.floor(size / 6)) },
    { name: 'zeroes after the last commit', survive: UPLOADS, damage: (log) => appendFile(log, Buffer.alloc(64 * 1024)) },
  ];

  it.each(DAMAGE)('recovers from $name', async ({ survive, damage }) => {
    const { dir, log, size } = await committedLog();
    await damage(log, size);
    const transcript = `log ${log} of ${size} bytes, damaged`;
    const survived = await expectRecovery(dir, { uploads: UPLOADS, triples: TRIPLES, acked: survive, transcript });
    expect(survived, transcript).toBe(survive);
  });
});
