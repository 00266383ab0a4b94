/**
 * Crash safety of SPARQL Update: a child process runs one large update (N deletes + N inserts) as
 * one store transaction and is killed with SIGKILL at various moments. Reopening the store must
 * show all of the update or none of it, never a part, and an acknowledged update in full.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedNode } from '@ianode/rdf';
import { openStore } from '@ianode/store';

const CHILD = fileURLToPath(new URL('./support/update-crash-child.mjs', import.meta.url));
const N = 100_000;
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ianode-update-crash-'));
  dirs.push(dir);
  return dir;
}

/** A closed durable store holding the N <http://ex/p> triples; built once per file (see preparedStore). */
let template: string;
beforeAll(async () => {
  template = await tempDir();
  const store = await openStore({ dir: template, defaultLabel: '*' });
  const lines: string[] = [];
  for (let i = 0; i < N; i++) lines.push(`<http://ex/s${i}> <http://ex/p> "${i}" .\n`);
  await store.load(lines.join(''), { format: 'application/n-triples' });
  await store.close();
});

/** A fresh folder holding a byte-for-byte copy of the template store, for one case to crash. */
async function preparedStore(): Promise<string> {
  const dir = await tempDir();
  await cp(template, dir, { recursive: true });
  return dir;
}

/** Runs the child, kills it `delayMs` after it starts the update; whether it had acknowledged. */
function runAndKill(dir: string, delayMs: number): Promise<{ acked: boolean; killed: boolean }> {
  const child = spawn(process.execPath, [CHILD, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let acked = false;
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line === 'UPDATE') setTimeout(() => child.kill('SIGKILL'), delayMs);
    if (line === 'ACK') acked = true;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL' && code !== 0) reject(new Error(`child failed (${code}): ${stderr}`));
      else resolve({ acked, killed: signal === 'SIGKILL' });
    });
  });
}

describe('SPARQL Update crash safety (SIGKILL)', () => {
  for (const delayMs of [0, 150, 400, 900, 1800]) {
    it(`killed ${delayMs} ms into a ${N}-triple update: all or nothing`, async () => {
      const dir = await preparedStore();
      const { acked } = await runAndKill(dir, delayMs);
      const store = await openStore({ dir, defaultLabel: '*' });
      try {
        const count = (iri: string) => {
          const id = store.lookup(namedNode(iri));
          return id === undefined ? 0 : store.count({ p: id });
        };
        const p = count('http://ex/p');
        const q = count('http://ex/q');
        expect(p + q).toBe(N);
        expect([0, N]).toContain(q);
        if (acked) expect(q).toBe(N);
        // The recovered store takes new commits.
        await store.transaction((tx) => tx.add({ s: '<http://ex/after', p: '<http://ex/p', o: '"x"', g: '' }));
      } finally {
        await store.close();
      }
    });
  }
});
