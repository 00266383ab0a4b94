/**
 * Online backups (../src/backup.ts): the file (name, mode, content, figures), atomic writes (a
 * failure part-way leaves no file), listing and retention, the scheduler on fake timers, and
 * `backup:` of the configuration. The round trip through `ianode restore` under concurrent writes
 * is in packages/cli/test/backup.test.ts (the CLI holds the restore code).
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStore, type QuadStore } from '@ianode/store';
import {
  BackupScheduler, backupDataset, backupFileName, listBackups, parseBackupFileName, parseDuration, pruneBackups, resolveBackupConfig, startBackupTask,
  type BackupTarget,
} from '../src/backup.js';
import type { Timers } from '../src/body-reader.js';
import { Tasks } from '../src/tasks.js';

let root: string;
let n = 0;
const fresh = (name: string) => path.join(root, `${name}-${++n}`);
const stores: QuadStore[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ianode-backup-'));
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function storeWith(text: string): Promise<QuadStore> {
  const store = await openStore({ dir: fresh('store'), defaultLabel: 'employee' });
  stores.push(store);
  if (text !== '') await store.load(text, { format: 'application/trig' });
  return store;
}

const DATA = `@prefix ex: <http://ex/> .
ex:a ex:p "plain" .
ex:g { ex:b ex:p "secret" . }
<http://ndtp.co.uk/security#labels> {
  [ <http://ndtp.co.uk/security#pattern> '<http://ex/g> <http://ex/b> <http://ex/p> "secret"' ; <http://ndtp.co.uk/security#label> "clearance=S" ] .
}`;

/** Timers that fire only when told. */
function fakeTimers() {
  const armed = new Map<number, { callback: () => void; ms: number }>();
  let next = 0;
  const timers: Timers = {
    setTimeout: (callback, ms) => {
      armed.set(++next, { callback, ms });
      return next;
    },
    clearTimeout: (handle) => void armed.delete(handle as number),
  };
  return {
    timers,
    armed,
    fire() {
      const [id, t] = [...armed][0]!;
      armed.delete(id);
      t.callback();
    },
  };
}

describe('backupDataset', () => {
  it('writes <name>_<UTC time>Z.trig.gz, mode 0600, from one commit, with the labels graph', async () => {
    const store = await storeWith(DATA);
    const dir = fresh('backups');
    const progress: [number, number | undefined][] = [];
    let clock = Date.UTC(2026, 10, 26, 9, 56, 1, 123);
    const result = await backupDataset({ name: 'ds', store }, dir, {
      now: () => (clock += 250) - 250,
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(path.basename(result.file)).toBe('ds_2026-11-26_09-56-01-123Z.trig.gz');
    expect(result).toMatchObject({ quads: 2, labelled: 1, pending: 0, txId: store.stats().txId, seconds: 0.25 });
    const file = await stat(result.file);
    expect(file.mode & 0o777).toBe(0o600);
    expect(result.bytes).toBe(file.size);
    const text = gunzipSync(await readFile(result.file)).toString('utf8');
    expect(text.split('\n')[0]).toBe(`# ianode dump: transaction ${store.stats().txId}, 2 quads, 0 pending labels`);
    expect(text).toContain('<http://ndtp.co.uk/security#labels> {');
    expect(text).toContain('"clearance=S"');
    expect(progress.at(0)).toEqual([0, 2]);
    expect(progress.at(-1)).toEqual([2, 2]);
    expect(await readdir(dir)).toEqual([path.basename(result.file)]); // no temporary file left
  });

  it('gzip: false writes plain TriG (.trig)', async () => {
    const store = await storeWith(DATA);
    const result = await backupDataset({ name: 'plain', store }, fresh('backups'), { gzip: false, now: () => 0 });
    expect(path.basename(result.file)).toBe('plain_1970-01-01_00-00-00-000Z.trig');
    expect(await readFile(result.file, 'utf8')).toContain('<http://ex/a> <http://ex/p> "plain" .');
  });

  it('a store that fails part-way leaves no file at all (no backup, no temporary file)', async () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `<http://ex/s${i}> <http://ex/p> "${i}" .`).join('\n');
    const store = await storeWith(lines);
    let yielded = 0;
    const failing: BackupTarget = {
      name: 'ds',
      store: {
        labelledQuads() {
          const state = store.labelledQuads();
          const rows = state.rows;
          return {
            ...state,
            rows: {
              *[Symbol.iterator]() {
                for (const row of rows) {
                  // The blank-node check reads every row once first; fail in the data pass, after
                  // a first chunk (4096 quads) went to the file.
                  if (++yielded > 10_000 + 6000) throw new Error('disk read failed');
                  yield row;
                }
              },
            },
          };
        },
      },
    };
    for (const gzip of [true, false]) {
      yielded = 0;
      const dir = fresh('backups');
      await expect(backupDataset(failing, dir, { gzip })).rejects.toThrow('disk read failed');
      expect(await readdir(dir)).toEqual([]);
    }
  });

  it('a labelled quad with a blank node is refused before any file is made', async () => {
    const store = await storeWith('');
    await store.transaction((tx) => tx.add({ s: '_:b1', p: '<http://ex/p', o: '"x"', g: '' }, 'clearance=S'));
    const dir = fresh('backups');
    await expect(backupDataset({ name: 'ds', store }, dir)).rejects.toThrow(/blank node/);
    expect(await readdir(dir).catch(() => [])).toEqual([]);
  });

  it('refuses a name that is not a dataset name (it becomes a file name)', async () => {
    const store = await storeWith('');
    await expect(backupDataset({ name: '../x', store }, fresh('backups'))).rejects.toThrow(TypeError);
  });
});

describe('file names, listing and retention', () => {
  it('names round-trip and sort by time', () => {
    const name = backupFileName('my_ds-1', Date.UTC(2026, 0, 2, 3, 4, 5, 6), true);
    expect(name).toBe('my_ds-1_2026-01-02_03-04-05-006Z.trig.gz');
    expect(parseBackupFileName(name)).toEqual({ dataset: 'my_ds-1', takenAt: '2026-01-02T03:04:05.006Z', gzip: true });
    expect(parseBackupFileName('notes.txt')).toBeUndefined();
    expect(parseBackupFileName('.ds_2026-01-02_03-04-05-006Z.trig.gz.abc.tmp')).toBeUndefined();
  });

  it('lists the backups newest first, per dataset; keeps the newest N of one dataset only', async () => {
    const a = await storeWith(DATA);
    const dir = fresh('backups');
    let clock = 1_000_000;
    for (let i = 0; i < 4; i++) {
      await backupDataset({ name: 'a', store: a }, dir, { now: () => (clock += 1000) });
      await backupDataset({ name: 'b', store: a }, dir, { now: () => (clock += 1000) });
    }
    await writeFile(path.join(dir, 'README.txt'), 'not a backup');
    const all = await listBackups(dir);
    expect(all).toHaveLength(8);
    expect(all.map((b) => b.takenAt)).toEqual([...all.map((b) => b.takenAt)].sort().reverse());
    expect(all.every((b) => b.bytes > 0)).toBe(true);
    const removed = await pruneBackups(dir, 'a', 2);
    expect(removed).toHaveLength(2);
    const left = await listBackups(dir, 'a');
    expect(left.map((b) => b.file)).toEqual(all.filter((b) => b.dataset === 'a').slice(0, 2).map((b) => b.file));
    expect(await listBackups(dir, 'b')).toHaveLength(4);
    expect(await readdir(dir)).toContain('README.txt');
    expect(await listBackups(path.join(dir, 'absent'))).toEqual([]);
  });
});

describe('BackupScheduler', () => {
  it('every period, a backup task per dataset; keeps the newest N per dataset; stops', async () => {
    const one = await storeWith(DATA);
    const two = await storeWith('<http://ex/x> <http://ex/p> "two" .');
    const datasets = new Map<string, BackupTarget>([['one', { name: 'one', store: one }], ['two', { name: 'two', store: two }]]);
    const dir = fresh('backups');
    let clock = Date.UTC(2026, 0, 1);
    const now = () => clock;
    const tasks = new Tasks({ now });
    const fake = fakeTimers();
    const config = resolveBackupConfig({ dir, every: '30m', keep: 2 })!;
    const scheduler = new BackupScheduler({ config, datasets: () => datasets, tasks, timers: fake.timers, now });
    scheduler.start();
    scheduler.start(); // once only
    expect([...fake.armed.values()].map((t) => t.ms)).toEqual([30 * 60_000]);
    expect(await readdir(dir).catch(() => [])).toEqual([]); // nothing before the first period
    for (let run = 1; run <= 3; run++) {
      clock += 30 * 60_000;
      fake.fire();
      await vi.waitFor(() => expect(fake.armed.size).toBe(1)); // re-armed once the run ended
      expect(tasks.list().filter((t) => t.state === 'succeeded')).toHaveLength(2 * run);
    }
    const files = await listBackups(dir);
    expect(files.map((f) => `${f.dataset} ${f.takenAt}`)).toEqual([
      'two 2026-01-01T01:30:00.000Z', 'one 2026-01-01T01:30:00.000Z', 'two 2026-01-01T01:00:00.000Z', 'one 2026-01-01T01:00:00.000Z',
    ]);
    const last = tasks.list()[0]!;
    expect(last).toMatchObject({ kind: 'backup', state: 'succeeded', result: { quads: 1, removed: ['two_2026-01-01_00-30-00-000Z.trig.gz'] } });
    await scheduler.stop();
    expect(fake.armed.size).toBe(0);
  });

  it('a failing dataset fails its task; the others are backed up and the schedule goes on', async () => {
    const good = await storeWith(DATA);
    const broken: BackupTarget = { name: 'broken', store: { labelledQuads: () => { throw new Error('store closed'); } } };
    const datasets = new Map<string, BackupTarget>([['broken', broken], ['good', { name: 'good', store: good }]]);
    const tasks = new Tasks({ now: () => 0 });
    const fake = fakeTimers();
    const scheduler = new BackupScheduler({ config: resolveBackupConfig({ dir: fresh('backups'), every: 60_000 })!, datasets: () => datasets, tasks, timers: fake.timers, now: () => 0 });
    scheduler.start();
    fake.fire();
    await vi.waitFor(() => expect(fake.armed.size).toBe(1));
    expect(tasks.list().map((t) => [t.dataset, t.state, t.error?.message])).toEqual([['good', 'succeeded', undefined], ['broken', 'failed', 'store closed']]);
    await scheduler.stop();
  });

  it('no every: start arms nothing; a backup of a dataset under way is not started twice', async () => {
    const store = await storeWith(DATA);
    const fake = fakeTimers();
    const tasks = new Tasks();
    const config = resolveBackupConfig({ dir: fresh('backups') })!;
    new BackupScheduler({ config, datasets: () => new Map(), tasks, timers: fake.timers }).start();
    expect(fake.armed.size).toBe(0);
    // A temporary file left by a process that stopped mid-backup goes with the next backup of
    // its dataset (and only of its dataset).
    await mkdir(config.dir, { recursive: true });
    const leftover = `.${backupFileName('ds', 0, true)}.0123456789ab.tmp`;
    const otherLeftover = `.${backupFileName('ds2', 0, true)}.0123456789ab.tmp`;
    for (const f of [leftover, otherLeftover]) await writeFile(path.join(config.dir, f), 'partial');
    const first = startBackupTask(tasks, { name: 'ds', store }, config);
    const second = startBackupTask(tasks, { name: 'ds', store }, config);
    expect(first.started).toBe(true);
    expect(second).toEqual({ task: expect.objectContaining({ id: first.task.id }), started: false });
    expect((await tasks.settled(first.task.id))?.state).toBe('succeeded');
    const left = await readdir(config.dir);
    expect(left).toContain(otherLeftover);
    expect(left).not.toContain(leftover);
    expect(left).toHaveLength(2);
  });
});

describe('resolveBackupConfig', () => {
  it('resolves dir, every, keep and gzip', () => {
    expect(resolveBackupConfig(undefined)).toBeUndefined();
    expect(resolveBackupConfig({ dir: 'backups' }, '/srv/ianode')).toEqual({ dir: '/srv/ianode/backups', everyMs: undefined, keep: undefined, gzip: true });
    expect(resolveBackupConfig({ dir: '/b', every: '1h30m', keep: 7, gzip: false })).toEqual({ dir: '/b', everyMs: 90 * 60_000, keep: 7, gzip: false });
    expect(resolveBackupConfig({ dir: '/b', every: 86_400_000 })?.everyMs).toBe(86_400_000);
    expect(parseDuration('24h', 'x')).toBe(86_400_000);
    expect(parseDuration('1d', 'x')).toBe(86_400_000);
    expect(parseDuration('90s', 'x')).toBe(90_000);
    expect(parseDuration('1500', 'x')).toBe(1500);
  });

  it.each([
    [[], /backup must be a mapping/],
    [{}, /backup\.dir must be/],
    [{ dir: '' }, /backup\.dir must be/],
    [{ dir: '/b', every: 'daily' }, /backup\.every must be a duration.*"daily"/],
    [{ dir: '/b', every: '10s' }, /backup\.every must be at least 1m/],
    [{ dir: '/b', every: 0 }, /backup\.every must be a positive duration/],
    [{ dir: '/b', keep: 0 }, /backup\.keep must be a whole number/],
    [{ dir: '/b', keep: 1.5 }, /backup\.keep/],
    [{ dir: '/b', gzip: 'yes' }, /backup\.gzip must be true or false/],
    [{ dir: '/b', every: '1h', retention: 3 }, /backup\.retention: unknown key "retention"; did you mean backup\.every\? \(backup takes dir, every, keep, gzip\)/],
  ])('%j is a TypeError naming the field', (input, message) => {
    expect(() => resolveBackupConfig(input)).toThrow(TypeError);
    expect(() => resolveBackupConfig(input)).toThrow(message);
  });
});
