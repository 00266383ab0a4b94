/**
 * File integrity (ARCHITECTURE.md, "Durability"; docs/operations.md): every store file is checked
 * end to end at open. Damage is refused with the file and offset, the folder left byte for byte as
 * it was; only a torn tail (nothing intact and committed after it) is cut off. A damaged newest
 * checkpoint falls back to the previous one plus its logs. Whatever opens holds exactly the
 * contents after some committed prefix — never an invented quad — and, unless the damage is a torn
 * tail, every acknowledged commit.
 */
import { appendFile, chmod, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, recoverStore, StoreError, verifyStore, type StoreOptions } from '@ianode/store';
import {
  ADD, BEGIN, buildStore, COMMIT, contents, expectSameContents, expectSameImage, flipBit, folderImage, frameMap, removeTempDirs, rewriteFrame, tempDir,
  type Built,
} from './support/damage.js';

afterAll(removeTempDirs);

interface Logged {
  level: string;
  message: string;
}

async function openLogged(dir: string, options: StoreOptions = {}) {
  const logs: Logged[] = [];
  const store = await openStore({ dir, ...options, log: (level, message) => logs.push({ level, message }) });
  return { store, logs };
}

/** Opens and expects a refusal naming the file and offset; the folder must not change. */
async function expectRefusal(dir: string, file: string, offset: number | RegExp): Promise<string> {
  const before = await folderImage(dir);
  const logs: Logged[] = [];
  const error = await openStore({ dir, log: (level, message) => logs.push({ level, message }) }).then(
    async (store) => {
      const state = store.stats();
      await store.close();
      return new Error(`the open succeeded at transaction ${state.txId} with ${state.quads} quads`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreError);
  const message = (error as StoreError).message;
  expect((error as StoreError).code, message).toBe('STORE_CORRUPT');
  expect(message).toContain(file);
  if (typeof offset === 'number') expect(message).toContain(`byte ${offset}`);
  else expect(message).toMatch(offset);
  expect(message).toContain('ianode store recover');
  expect(logs.some((l) => l.level === 'error' && l.message === message), 'the refusal is logged').toBe(true);
  expectSameImage(await folderImage(dir), before, 'a refused open changes nothing in the folder');
  return message;
}

/** Opens and expects exactly the contents after commit `txId`. */
async function expectState(dir: string, built: Built, txId: number) {
  const { store, logs } = await openLogged(dir);
  try {
    expect(store.stats().txId).toBe(txId);
    expectSameContents(contents(store), built.refs[txId]);
  } finally {
    await store.close();
  }
  return logs;
}

/** The verify report must flag damage; recover must keep commits 1..`keeps` and say what was lost. */
async function expectVerifyAndRecover(built: Built, keeps: number, file: string): Promise<string> {
  const before = await folderImage(built.dir);
  const report = verifyStore(built.dir);
  expect(report.healthy, report.lines.join('\n')).toBe(false);
  expect(report.lines.join('\n')).toContain(file);
  const out = join(await tempDir(), 'recovered');
  const recovery = await recoverStore(built.dir, out);
  expectSameImage(await folderImage(built.dir), before, 'recover never changes the folder it reads');
  expect(recovery.txId).toBe(keeps);
  const last = built.refs.length - 1;
  expect(recovery.lostCommits).toBe(last - keeps);
  const text = recovery.lines.join('\n');
  if (keeps < last) {
    expect(text).toContain(`LOST: ${last - keeps} commit`);
    expect(text).toContain(`transactions ${keeps + 1} to ${last}`);
    expect(text).toContain(file);
  }
  const store = await openStore({ dir: out });
  try {
    expectSameContents(contents(store), built.refs[keeps]);
  } finally {
    await store.close();
  }
  expect(verifyStore(out).healthy).toBe(true);
  expect(await readFile(join(out, 'RECOVERY.txt'), 'utf8')).toBe(`${text}\n`);
  return text;
}

const LOG0 = 'wal-0000000000.log';
const ckpt = (n: number) => `checkpoint-${String(n).padStart(10, '0')}.ckpt`;
const wal = (n: number) => `wal-${String(n).padStart(10, '0')}.log`;

describe('a healthy store', () => {
  it('verifies healthy, opens at its last commit, and keeps files private', async () => {
    const built = await buildStore({ seed: 1, segments: [3, 2, 2] });
    expect(verifyStore(built.dir).healthy).toBe(true);
    await expectState(built.dir, built, 7);
    expect((await stat(built.dir)).mode & 0o777).toBe(0o700);
    for (const [name, f] of await folderImage(built.dir)) expect(f.mode, name).toBe(0o600);
  });

  it('restricts an existing folder it owns to 0700, and only once the open has succeeded', async () => {
    const built = await buildStore({ seed: 3, segments: [2] });
    await chmod(built.dir, 0o755);
    await flipBit(join(built.dir, LOG0), 17); // commit 1 damaged, commit 2 intact after it
    await expectRefusal(built.dir, LOG0, 0);
    expect((await stat(built.dir)).mode & 0o777).toBe(0o755);
    await flipBit(join(built.dir, LOG0), 17);
    await expectState(built.dir, built, 2);
    expect((await stat(built.dir)).mode & 0o777).toBe(0o700);
  });

  it('keeps the previous checkpoint and every log from it until the next checkpoint', async () => {
    const built = await buildStore({ seed: 2, segments: [3, 2, 2] });
    // checkpoint 3 then 5: checkpoint 3 stays as the fallback, with wal-3 (commits 4, 5) and wal-5.
    expect((await readdir(built.dir)).sort()).toEqual([ckpt(3), ckpt(5), wal(3), wal(5)]);
    const one = await buildStore({ seed: 2, segments: [3, 2] });
    // Only one checkpoint: its fallback is no checkpoint at all, so wal-0 (commits 1-3) stays.
    expect((await readdir(one.dir)).sort()).toEqual([ckpt(3), LOG0, wal(3)]);
  });
});

describe('a damaged log (no checkpoint)', () => {
  const PLAN = { seed: 11, segments: [6] };

  /** Damage inside commit `k` (1-based): the offset of one of its frames plus `at`. */
  async function commitFrames(built: Built, k: number) {
    const frames = await frameMap(join(built.dir, LOG0));
    const begin = frames.findIndex((f) => f.type === BEGIN && f.txId === k);
    const commit = frames.findIndex((f) => f.type === COMMIT && f.txId === k);
    return frames.slice(begin, commit + 1);
  }

  // Commits 3 and 6 are deletions, the others loads (support/damage.ts).
  const MID_LOG: { name: string; commit: number; where: (frames: Awaited<ReturnType<typeof commitFrames>>) => number; bit?: number }[] = [
    { name: 'a flipped bit in the frame marker of commit 1', commit: 1, where: (f) => f[0]!.start + 1 },
    { name: 'a flipped bit in the frame type of commit 1', commit: 1, where: (f) => f[1]!.start + 4 },
    { name: 'a flipped bit in a frame length of commit 3', commit: 3, where: (f) => f[1]!.start + 8, bit: 3 },
    { name: 'a flipped bit in a checksum of commit 2', commit: 2, where: (f) => f[1]!.start + 13 },
    { name: 'a flipped bit in the ADD payload of commit 4', commit: 4, where: (f) => f.find((x) => x.type === ADD)!.start + 16 + 7, bit: 5 },
    { name: "a flipped bit in the last commit's payload", commit: 6, where: (f) => f[1]!.start + 20 },
  ];

  it.each(MID_LOG)('$name: refused, nothing changed; verify flags it, recover keeps the commits before it', async ({ commit, where, bit }) => {
    const built = await buildStore(PLAN);
    const frames = await commitFrames(built, commit);
    const offset = where(frames);
    await flipBit(join(built.dir, LOG0), offset, bit ?? 0);
    const message = await expectRefusal(built.dir, LOG0, frames.find((f) => f.start + 16 + f.len > offset)!.start);
    expect(message).toContain(`every commit after transaction ${commit - 1} in this log`);
    await expectVerifyAndRecover(built, commit - 1, LOG0);
  });

  it('an id past the dictionary (checksum intact) is refused, never served', async () => {
    const built = await buildStore(PLAN);
    const frames = await commitFrames(built, 4);
    const add = frames.find((f) => f.type === ADD)!;
    await rewriteFrame(join(built.dir, LOG0), add.start, (p) => p.writeUInt32LE(0x00ffffff, p.length / 5)); // a subject id
    const message = await expectRefusal(built.dir, LOG0, add.start);
    expect(message).toContain('term id 16777215');
    await expectVerifyAndRecover(built, 3, LOG0);
  });

  it('a refused open leaves even leftover temporary files; a healthy open removes them and says so', async () => {
    const built = await buildStore(PLAN);
    await writeFile(join(built.dir, `${ckpt(6)}.tmp`), 'half a checkpoint');
    const frames = await commitFrames(built, 2);
    await flipBit(join(built.dir, LOG0), frames[0]!.start + 16);
    await expectRefusal(built.dir, LOG0, frames[0]!.start);
    await flipBit(join(built.dir, LOG0), frames[0]!.start + 16); // repaired
    const logs = await expectState(built.dir, built, 6);
    expect(logs.some((l) => l.level === 'info' && l.message.includes(`${ckpt(6)}.tmp`))).toBe(true);
    expect(await readdir(built.dir)).toEqual([LOG0]);
  });

  it('a transaction id out of sequence (checksum intact) is refused', async () => {
    const built = await buildStore(PLAN);
    const frames = await commitFrames(built, 3);
    await rewriteFrame(join(built.dir, LOG0), frames[0]!.start, (p) => p.writeUInt32LE(9, 0));
    await expectRefusal(built.dir, LOG0, frames[0]!.start);
    await expectVerifyAndRecover(built, 2, LOG0);
  });

  const TORN: { name: string; keeps: number; damage: (path: string, size: number, built: Built) => Promise<void> }[] = [
    { name: 'cut in the middle of the last commit', keeps: 5, damage: async (path, _size, built) => {
      const f = await commitFrames(built, 6);
      await truncate(path, f[1]!.start + 10);
    } },
    { name: 'cut inside commit 3 (everything after it gone)', keeps: 2, damage: async (path, _size, built) => {
      const f = await commitFrames(built, 3);
      await truncate(path, f.at(-1)!.start + 5);
    } },
    { name: 'seeded garbage appended', keeps: 6, damage: async (path) => {
      const garbage = Buffer.alloc(4096);
      let x = 12345;
      for (let i = 0; i < garbage.length; i++) garbage[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
      await appendFile(path, garbage);
    } },
    { name: 'a flipped bit in the last COMMIT frame (indistinguishable from a torn append)', keeps: 5, damage: async (path, size) => flipBit(path, size - 2) },
  ];

  it.each(TORN)('$name: a torn tail, cut off and reported; the rest opens exactly', async ({ keeps, damage }) => {
    const built = await buildStore(PLAN);
    const path = join(built.dir, LOG0);
    const size = (await stat(path)).size;
    await damage(path, size, built);
    const damaged = (await stat(path)).size;
    const verify = verifyStore(built.dir);
    expect(verify.healthy).toBe(false);
    expect(verify.opens).toBe(true);
    expect(verify.findings.map((f) => f.severity)).toContain('torn');
    const logs = await expectState(built.dir, built, keeps);
    const cut = logs.find((l) => l.level === 'warn' && l.message.includes('torn tail'));
    expect(cut?.message).toContain(LOG0);
    const now = (await stat(path)).size;
    expect(cut?.message).toContain(`${damaged - now} bytes`);
    // After the cut the folder is healthy, and new commits stay.
    expect(verifyStore(built.dir).healthy).toBe(true);
  });
});

describe('a damaged checkpoint', () => {
  /** Damage kinds, given the checkpoint's frames and size. */
  const KINDS: { name: string; damage: (path: string, frames: Awaited<ReturnType<typeof frameMap>>, size: number) => Promise<number> }[] = [
    { name: 'a flipped bit in the BEGIN header', damage: async (path, f) => (await flipBit(path, f[0]!.start + 2), f[0]!.start) },
    { name: 'a flipped bit in the term payload', damage: async (path, f) => (await flipBit(path, f[1]!.start + 40), f[1]!.start) },
    { name: 'a flipped bit in the rows', damage: async (path, f) => {
      const add = f.find((x) => x.type === ADD)!;
      await flipBit(path, add.start + 16 + Math.floor(add.len / 2), 6);
      return add.start;
    } },
    { name: 'truncated', damage: async (path, f, size) => (await truncate(path, size - 3), f.at(-1)!.start) },
    { name: 'garbage appended', damage: async (path, _f, size) => (await appendFile(path, Buffer.from('not a frame')), size) },
  ];

  it.each(KINDS)('newest checkpoint $name: falls back to the previous checkpoint and its logs, and says so', async ({ damage }) => {
    const built = await buildStore({ seed: 21, segments: [3, 2, 2] });
    const path = join(built.dir, ckpt(5));
    const offset = await damage(path, await frameMap(path), (await stat(path)).size);
    const logs = await expectState(built.dir, built, 7);
    const warn = logs.find((l) => l.level === 'warn' && l.message.includes(ckpt(5)));
    expect(warn?.message).toContain(`byte ${offset}`);
    expect(warn?.message).toContain(ckpt(3));
    const report = verifyStore(built.dir);
    expect(report.healthy).toBe(false);
    expect(report.opens).toBe(true);
    const text = await expectVerifyAndRecover(built, 7, ckpt(5));
    expect(text).toContain('lost: no commit');
    expect(text).toContain(`damage: ${ckpt(5)} at byte ${offset}`);
    expect(text).toContain('passed over');
  });

  it.each(KINDS)('only checkpoint $name, no later commits: rebuilt from wal-0', async ({ damage }) => {
    const built = await buildStore({ seed: 22, segments: [3, 0] });
    const path = join(built.dir, ckpt(3));
    await damage(path, await frameMap(path), (await stat(path)).size);
    await expectState(built.dir, built, 3);
  });

  it.each(KINDS)('checkpoint $name with no previous checkpoint or log to rebuild it: refused', async ({ damage }) => {
    const built = await buildStore({ seed: 23, segments: [4, 3] });
    await rm(join(built.dir, LOG0)); // as an operator might have, or an older version did
    const path = join(built.dir, ckpt(4));
    const offset = await damage(path, await frameMap(path), (await stat(path)).size);
    const message = await expectRefusal(built.dir, ckpt(4), offset);
    expect(message).toContain('commits 1 to 4 are missing');
    // Nothing before the damage can be rebuilt but the commits after it need their base: recover
    // keeps nothing and says all 7 are lost.
    await expectVerifyAndRecover(built, 0, ckpt(4));
  });

  it('the only checkpoint damaged, no later commits, its log gone: refused (never an empty store)', async () => {
    const built = await buildStore({ seed: 27, segments: [4, 0] });
    await rm(join(built.dir, LOG0));
    await flipBit(join(built.dir, ckpt(4)), 200);
    await expectRefusal(built.dir, ckpt(4), /commits 1 to 4 are missing/);
    await rm(join(built.dir, wal(4)));
    await expectRefusal(built.dir, ckpt(4), /no intact checkpoint and complete chain of logs reaches transaction 4/);
  });

  it('both checkpoints damaged, later commits reusing known terms: refused, never half-served', async () => {
    const built = await buildStore({ seed: 24, segments: [3, 2, 3] });
    for (const c of [3, 5]) await flipBit(join(built.dir, ckpt(c)), 100);
    await expectRefusal(built.dir, ckpt(5), /commits 1 to 3 are missing/);
  });

  it('an id past the label table (checksum intact) in the only checkpoint: refused', async () => {
    const built = await buildStore({ seed: 25, segments: [3, 2] });
    await rm(join(built.dir, LOG0));
    const path = join(built.dir, ckpt(3));
    const add = (await frameMap(path)).find((f) => f.type === ADD)!;
    await rewriteFrame(path, add.start, (p) => p.writeUInt32LE(4000, p.length - 4)); // the last row's label
    await expectRefusal(built.dir, ckpt(3), add.start);
  });

  it('after a fallback, the next checkpoints keep a complete chain from an intact checkpoint', async () => {
    const built = await buildStore({ seed: 26, segments: [3, 2, 2] });
    await flipBit(join(built.dir, ckpt(5)), 30);
    const { store } = await openLogged(built.dir, { checkpointBytes: 1 << 30 });
    await store.load('<http://ex/after> <http://ex/p> "8" .\n', { format: 'application/n-triples' });
    const expected = contents(store);
    await store.checkpoint(); // checkpoint 8: its fallback must be 3 (5 is damaged), so wal-3 and wal-5 stay
    await store.close();
    expect((await readdir(built.dir)).sort()).toEqual([ckpt(3), ckpt(5), ckpt(8), wal(3), wal(5), wal(8)]);
    await flipBit(join(built.dir, ckpt(8)), 30);
    const reopened = await openLogged(built.dir);
    try {
      expect(reopened.store.stats().txId).toBe(8);
      expect(contents(reopened.store)).toEqual(expected);
      expect(reopened.logs.some((l) => l.level === 'warn' && l.message.includes(ckpt(8)) && l.message.includes(ckpt(3)))).toBe(true);
    } finally {
      await reopened.store.close();
    }
  });
});

describe('a damaged log with checkpoints', () => {
  it('damage in the log after the newest checkpoint: refused; recover keeps the commits before it', async () => {
    const built = await buildStore({ seed: 31, segments: [3, 4] });
    const frames = await frameMap(join(built.dir, wal(3)));
    const begin5 = frames.find((f) => f.type === BEGIN && f.txId === 5)!;
    await flipBit(join(built.dir, wal(3)), begin5.start + 16 + 1);
    const message = await expectRefusal(built.dir, wal(3), begin5.start);
    expect(message).toContain('after transaction 4');
    await expectVerifyAndRecover(built, 4, wal(3));
  });

  it('damage in the fallback log only: the store opens from the newest checkpoint; verify flags the log', async () => {
    const built = await buildStore({ seed: 32, segments: [3, 2, 2] });
    await flipBit(join(built.dir, wal(3)), 40);
    await expectState(built.dir, built, 7);
    const report = verifyStore(built.dir);
    expect(report.healthy).toBe(false);
    expect(report.findings.some((f) => f.severity === 'damage' && f.file === wal(3))).toBe(true);
  });

  it('a missing log between checkpoint and the newest log: refused', async () => {
    const built = await buildStore({ seed: 33, segments: [2, 2, 2] });
    await flipBit(join(built.dir, ckpt(4)), 50);
    await rm(join(built.dir, wal(2)));
    await expectRefusal(built.dir, wal(4), /commits 3 to 4 are missing/);
  });
});

/**
 * Sweeps: one pristine folder, damaged at many seeded offsets (one damage at a time). Whatever
 * opens must equal the contents after some committed prefix; anything short of the last commit is
 * allowed only for damage inside the last commit of the last log (a torn append), and then the
 * open reports it. Everything else must be refused with the folder unchanged.
 */
describe('seeded damage sweeps', () => {
  async function restore(dir: string, image: Awaited<ReturnType<typeof folderImage>>) {
    for (const name of await readdir(dir)) if (!image.has(name)) await rm(join(dir, name));
    for (const [name, f] of image) await writeFile(join(dir, name), f.bytes);
  }

  async function sweep(built: Built, cases: { file: string; offset: number; bit: number }[]) {
    const pristine = await folderImage(built.dir);
    const last = built.refs.length - 1;
    const lastLog = [...pristine.keys()].filter((n) => n.endsWith('.log')).sort().at(-1)!;
    const lastBegin = (await frameMap(join(built.dir, lastLog))).filter((f) => f.type === BEGIN).at(-1)!.start;
    const outcomes = { refused: 0, whole: 0, torn: 0 };
    for (const c of cases) {
      await restore(built.dir, pristine);
      await flipBit(join(built.dir, c.file), c.offset, c.bit);
      const where = `bit ${c.bit} of byte ${c.offset} of ${c.file}`;
      const before = await folderImage(built.dir);
      const logs: Logged[] = [];
      let store;
      try {
        store = await openStore({ dir: built.dir, log: (level, message) => logs.push({ level, message }) });
      } catch (err) {
        expect(err, where).toBeInstanceOf(StoreError);
        expect((err as StoreError).message, where).toContain(c.file);
        expectSameImage(await folderImage(built.dir), before, where);
        outcomes.refused++;
        continue;
      }
      try {
        const txId = store.stats().txId;
        expectSameContents(contents(store), built.refs[txId], where);
        if (txId < last) {
          expect({ file: c.file, torn: c.offset >= lastBegin }, where).toEqual({ file: lastLog, torn: true });
          expect(txId, where).toBe(last - 1);
          expect(logs.some((l) => l.level === 'warn' && l.message.includes('torn tail')), where).toBe(true);
          outcomes.torn++;
        } else {
          expect(txId, where).toBe(last);
          outcomes.whole++;
        }
      } finally {
        await store.close();
      }
    }
    return outcomes;
  }

  async function seededCases(built: Built, files: string[], count: number, seed: number) {
    let x = seed;
    const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const cases: { file: string; offset: number; bit: number }[] = [];
    for (let i = 0; i < count; i++) {
      const file = files[Math.floor(next() * files.length)]!;
      const size = (await stat(join(built.dir, file))).size;
      cases.push({ file, offset: Math.floor(next() * size), bit: Math.floor(next() * 8) });
    }
    return cases;
  }

  it('a log alone: every flip is refused, or is in the last commit and reported as a torn tail', async () => {
    const built = await buildStore({ seed: 41, segments: [6] });
    const outcomes = await sweep(built, await seededCases(built, [LOG0], 60, 41));
    expect(outcomes.whole).toBe(0); // every byte of a log matters
    expect(outcomes.refused).toBeGreaterThan(0);
  });

  it('checkpoints and logs: the state is always whole or refused', async () => {
    const built = await buildStore({ seed: 42, segments: [3, 2, 2] });
    const files = (await readdir(built.dir)).sort();
    const outcomes = await sweep(built, await seededCases(built, files, 80, 42));
    // A flip in checkpoint 5 falls back; in checkpoint 3 or wal-3 it is not even read.
    expect(outcomes.whole).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  });
});

describe('seeded truncation sweep', () => {
  it('a log cut anywhere opens at exactly the commits completed before the cut, and reports the cut', async () => {
    const built = await buildStore({ seed: 43, segments: [6] });
    const path = join(built.dir, LOG0);
    const pristine = await readFile(path);
    const commits = (await frameMap(path)).filter((f) => f.type === COMMIT);
    let x = 43;
    for (let i = 0; i < 25; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const cut = x % pristine.length;
      await writeFile(path, pristine.subarray(0, cut));
      const complete = commits.filter((f) => f.start + 20 <= cut).length;
      const logs = await expectState(built.dir, built, complete);
      const dropped = cut - (complete === 0 ? 0 : commits[complete - 1]!.start + 20);
      if (dropped > 0) expect(logs.some((l) => l.message.includes(`torn tail of ${dropped} bytes`)), `cut at ${cut}`).toBe(true);
    }
  });
});

describe('the first frame format', () => {
  it('logs whose checksums cover only the payload (magic IANL) still open', async () => {
    const built = await buildStore({ seed: 51, segments: [4] });
    const path = join(built.dir, LOG0);
    const b = await readFile(path);
    for (let pos = 0; pos < b.length; pos += 16 + b.readUInt32LE(pos + 8)) {
      b.writeUInt32LE(0x4c4e4149, pos);
      b.writeUInt32LE(crc32(b.subarray(pos + 16, pos + 16 + b.readUInt32LE(pos + 8))), pos + 12);
    }
    await writeFile(path, b);
    await expectState(built.dir, built, 4);
  });
});
