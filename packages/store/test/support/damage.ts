/**
 * Fixtures for the integrity tests: a durable store filled with seeded commits (each commit's
 * resulting contents kept as the reference), file snapshots, frame maps, and damage helpers.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { openStore, type KeyQuad, type QuadStore, type StoreOptions } from '@ianode/store';
import { Rng } from '@ianode/testkit';
import { expect } from 'vitest';

const dirs: string[] = [];
export async function tempDir(prefix = 'ianode-integrity-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
export async function removeTempDirs(): Promise<void> {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

const LABELS = ['*', 'employee', 'a & b', 'clearance=S'];

/** The contents of a store: one `s p o g | label` line per quad, as term keys. */
export function contents(store: QuadStore): Set<string> {
  const out = new Set<string>();
  for (const q of store.match({})) {
    const key: KeyQuad = { s: store.key(q.s), p: store.key(q.p), o: store.key(q.o), g: q.g === 0 ? '' : store.key(q.g) };
    out.add(`${key.s} ${key.p} ${key.o} ${key.g} | ${store.labelOf(key)}`);
  }
  return out;
}

/** Seeded commit k: a load over a small shared vocabulary (later commits reuse known terms, plus
 * some new ones), or, every third commit, a deletion of some stored quads. */
async function commit(store: QuadStore, rng: Rng, k: number): Promise<void> {
  if (k % 3 === 0) {
    const stored = [...store.match({})];
    const victims = rng.subset(stored, 0.3);
    await store.transaction((tx) => {
      for (const q of victims.length > 0 ? victims : stored.slice(0, 1)) {
        tx.delete({ s: store.key(q.s), p: store.key(q.p), o: store.key(q.o), g: q.g === 0 ? '' : store.key(q.g) });
      }
    });
    return;
  }
  let text = '';
  const n = 20 + rng.int(30);
  for (let i = 0; i < n; i++) {
    const g = rng.int(3);
    const o = rng.chance(0.5) ? `<http://ex/o${rng.int(15)}>` : `"c${k} v${i}"`;
    text += `<http://ex/s${rng.int(25)}> <http://ex/p${rng.int(4)}> ${o}${g === 0 ? '' : ` <http://ex/g${g}>`} .\n`;
  }
  await store.load(text, { format: 'application/n-quads', label: rng.pick(LABELS) });
}

export interface Plan {
  seed: number;
  /** Commit counts between checkpoints: [3, 2, 2] = 3 commits, checkpoint, 2, checkpoint, 2. */
  segments: number[];
}

export interface Built {
  dir: string;
  /** refs[t] = contents after commit t (refs[0] = empty). */
  refs: Set<string>[];
}

/** A folder holding the plan's commits; checkpoints only where the plan says. */
export async function buildStore(plan: Plan, options: StoreOptions = {}): Promise<Built> {
  const dir = await tempDir();
  const rng = new Rng(plan.seed);
  const store = await openStore({ dir, checkpointBytes: 1 << 30, ...options });
  const refs: Set<string>[] = [new Set()];
  let k = 0;
  for (const [i, count] of plan.segments.entries()) {
    if (i > 0) await store.checkpoint();
    for (let c = 0; c < count; c++) {
      await commit(store, rng, ++k);
      refs.push(contents(store));
      if (store.stats().txId !== refs.length - 1) throw new Error('every seeded commit must change the store');
    }
  }
  await store.close();
  return { dir, refs };
}

export type FolderImage = Map<string, { bytes: Buffer; mode: number }>;

/** Every file of a folder, with its bytes and mode. */
export async function folderImage(dir: string): Promise<FolderImage> {
  const image: FolderImage = new Map();
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    image.set(name, { bytes: await readFile(path), mode: (await stat(path)).mode & 0o777 });
  }
  return image;
}

/**
 * expect(actual).toEqual(expected) for folder images, run only when a plain comparison (same
 * names, modes and bytes, by Buffer.equals) finds a difference: vitest's deep equality walks a
 * Buffer key by key, which made the image checks most of the damage sweeps' time.
 */
export function expectSameImage(actual: FolderImage, expected: FolderImage | undefined, message?: string): void {
  const same =
    expected !== undefined &&
    actual.size === expected.size &&
    [...actual].every(([name, f]) => {
      const other = expected.get(name);
      return other !== undefined && other.mode === f.mode && other.bytes.equals(f.bytes);
    });
  if (!same) expect(actual, message).toEqual(expected);
}

/** expect(actual).toEqual(expected) for store contents, run only when a plain set comparison finds a difference. */
export function expectSameContents(actual: Set<string>, expected: Set<string> | undefined, message?: string): void {
  const same = expected !== undefined && actual.size === expected.size && [...actual].every((line) => expected.has(line));
  if (!same) expect(actual, message).toEqual(expected);
}

export interface FrameInfo {
  start: number;
  type: number;
  len: number;
  /** BEGIN / COMMIT: their transaction id. */
  txId?: number;
}

/** The frames of an intact store file. */
export async function frameMap(path: string): Promise<FrameInfo[]> {
  const b = await readFile(path);
  const frames: FrameInfo[] = [];
  for (let pos = 0; pos + 16 <= b.length; ) {
    const type = b.readUInt32LE(pos + 4);
    const len = b.readUInt32LE(pos + 8);
    frames.push({ start: pos, type, len, ...(type === 1 || type === 8 ? { txId: b.readUInt32LE(pos + 16) } : {}) });
    pos += 16 + len;
  }
  return frames;
}

export const BEGIN = 1;
export const ADD = 4;
export const COMMIT = 8;

export async function flipBit(path: string, offset: number, bit = 0): Promise<void> {
  const b = await readFile(path);
  if (offset >= b.length) throw new RangeError(`offset ${offset} past the end of ${path} (${b.length})`);
  b[offset]! ^= 1 << bit;
  await writeFile(path, b);
}

/** Rewrite a frame's payload in place and give it a correct checksum (damage no checksum sees). */
export async function rewriteFrame(path: string, start: number, edit: (payload: Buffer) => void): Promise<void> {
  const b = await readFile(path);
  const len = b.readUInt32LE(start + 8);
  const payload = b.subarray(start + 16, start + 16 + len);
  edit(payload);
  b.writeUInt32LE(crc32(payload, crc32(b.subarray(start, start + 12))), start + 12);
  await writeFile(path, b);
}
