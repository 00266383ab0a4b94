/**
 * Online backups of a dataset (docs/operations.md "Backups"): the dump format of `ianode dump`
 * (@ianode/store dumpChunks: TriG plus the RDF-ABAC labels graph), from ONE committed state taken
 * when the backup starts, streamed while reads and writes go on, so a backup equals the state of
 * exactly one commit (its txId is in the result and on the file's first line).
 *
 * Files: `<dir>/<dataset>_<YYYY-MM-DD_HH-MM-SS-mmm>Z.trig.gz` (UTC; `.trig` without gzip), written
 * atomically (@ianode/store writeFileAtomic: a temporary file, mode 0600, in the same folder, fsync,
 * rename, fsync of the folder).
 * A failure part-way leaves no file under a backup's name (the temporary file is removed). Names
 * sort by time, and `ianode restore FILE --to DIR` reads them as they are.
 *
 * `BackupScheduler` backs every dataset up every `backup.every` and keeps the newest `backup.keep`
 * files per dataset (also after a backup asked for over HTTP); each run is a task (tasks.ts).
 */
import { mkdir, readdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ATOMIC_TEMP_FILE, dumpChunks, writeFileAtomic, type DumpFigures, type QuadStore } from '@ianode/store';
import { realTimers, type Timers } from './body-reader.js';
import { checkSection, plainCopy, type Schema } from './config-schema.js';
import type { TaskInfo, Tasks } from './tasks.js';

/** What a backup reads: a dataset's name and its store (only its labelled state is read). */
export interface BackupTarget {
  name: string;
  store: Pick<QuadStore, 'labelledQuads'>;
}

export interface BackupOptions {
  /** gzip the file (default true). */
  gzip?: boolean;
  /** Milliseconds since the epoch, for the file name and `seconds` (default Date.now). */
  now?: () => number;
  /** Data quads written so far, of `total`. */
  onProgress?: (done: number, total?: number) => void;
}

export interface BackupResult {
  /** The backup file (absolute path). */
  file: string;
  /** Data quads in it. */
  quads: number;
  /** Of which with a label of their own (a labels-graph entry each). */
  labelled: number;
  /** Pending labels in it (labels for quads not stored). */
  pending: number;
  /** Size of the file. */
  bytes: number;
  /** The commit the backup equals. */
  txId: number;
  seconds: number;
}

const NAME = /^[A-Za-z0-9_-]+$/;
/** A backup file: dataset, UTC timestamp, gzip or not. */
const FILE = /^([A-Za-z0-9_-]+)_(\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}-\d{3})Z\.trig(\.gz)?$/;

/** `ds_2026-11-26_09-56-01-123Z.trig.gz` for a backup of `ds` started at that time. */
export function backupFileName(dataset: string, ms: number, gzip: boolean): string {
  const stamp = new Date(ms).toISOString().replace('T', '_').replace(/:/g, '-').replace('.', '-');
  return `${dataset}_${stamp}${gzip ? '.trig.gz' : '.trig'}`;
}

/** A backup file's dataset and time, or undefined for any other name. */
export function parseBackupFileName(file: string): { dataset: string; takenAt: string; gzip: boolean } | undefined {
  const m = FILE.exec(file);
  if (m === null) return undefined;
  const [date, time] = m[2]!.split('_') as [string, string];
  const [h, min, s, ms] = time.split('-');
  return { dataset: m[1]!, takenAt: `${date}T${h}:${min}:${s}.${ms}Z`, gzip: m[3] !== undefined };
}

/** Writes a backup of `target` into `dir` (made, mode 0700, when absent). */
export async function backupDataset(target: BackupTarget, dir: string, options: BackupOptions = {}): Promise<BackupResult> {
  if (!NAME.test(target.name)) throw new TypeError(`backup: dataset name must be a word of letters, digits, _ or -: ${JSON.stringify(target.name)}`);
  const now = options.now ?? Date.now;
  const gzip = options.gzip ?? true;
  const started = now();
  const figures: DumpFigures = { quads: 0, labelled: 0, pending: 0, txId: 0 };
  // The state is taken here, in the call itself (before its first await): the backup is the state
  // of the last commit before the call, and later commits never show in it.
  const chunks = dumpChunks(target.store, figures, (n) => options.onProgress?.(n, figures.quads));
  options.onProgress?.(0, figures.quads);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.resolve(dir, backupFileName(target.name, started, gzip));
  let bytes = 0;
  // The file is written through its handle (a stream over a FileHandle that it does not close
  // keeps a reference that makes the handle's close wait for ever).
  const sink = (handle: FileHandle) => async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      for (let at = 0; at < chunk.length; ) at += (await handle.write(chunk, at)).bytesWritten;
      bytes += chunk.length;
    }
  };
  await writeFileAtomic(file, async (handle) => {
    const source = Readable.from(chunks, { objectMode: false });
    if (gzip) await pipeline(source, createGzip(), sink(handle));
    else await pipeline(source, sink(handle));
  });
  return { file, quads: figures.quads, labelled: figures.labelled, pending: figures.pending, bytes, txId: figures.txId, seconds: (now() - started) / 1000 };
}

export interface BackupFile {
  /** The file name in the backup folder. */
  file: string;
  dataset: string;
  /** When the backup started (UTC, from the name). */
  takenAt: string;
  bytes: number;
  gzip: boolean;
}

/** The file names in `dir`; none when it does not exist (yet: it is made by the first backup). */
async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return [];
    throw error;
  }
}

/** The backups in `dir` (of `dataset` when given), the newest first; none when `dir` is absent.
 * Other files (temporary ones of a backup under way among them) are not listed. */
export async function listBackups(dir: string, dataset?: string): Promise<BackupFile[]> {
  const names = await namesIn(dir);
  const out: BackupFile[] = [];
  for (const file of names) {
    const parsed = parseBackupFileName(file);
    if (parsed === undefined || (dataset !== undefined && parsed.dataset !== dataset)) continue;
    let bytes: number;
    try {
      const s = await stat(path.join(dir, file));
      if (!s.isFile()) continue;
      bytes = s.size;
    } catch {
      continue; // removed meanwhile (retention)
    }
    out.push({ file, ...parsed, bytes });
  }
  return out.sort((a, b) => (a.takenAt === b.takenAt ? b.file.localeCompare(a.file) : b.takenAt.localeCompare(a.takenAt)));
}

/** Removes the temporary files of `dataset`'s backups in `dir` (a process that stopped while
 * writing one leaves it); returns their names. Only call it while no backup of `dataset` runs. */
export async function removeLeftovers(dir: string, dataset: string): Promise<string[]> {
  const names = await namesIn(dir);
  const leftovers = names.filter((f) => {
    const target = ATOMIC_TEMP_FILE.exec(f)?.[1];
    return target !== undefined && parseBackupFileName(target)?.dataset === dataset;
  });
  for (const f of leftovers) await unlink(path.join(dir, f)).catch(() => undefined);
  return leftovers;
}

/** Keeps the newest `keep` backups of `dataset` in `dir`; returns the names removed. */
export async function pruneBackups(dir: string, dataset: string, keep: number): Promise<string[]> {
  if (!Number.isInteger(keep) || keep < 1) throw new TypeError(`pruneBackups: keep must be a whole number of at least 1, got ${keep}`);
  const old = (await listBackups(dir, dataset)).slice(keep);
  for (const b of old) await unlink(path.join(dir, b.file)).catch(() => undefined);
  return old.map((b) => b.file);
}

// ---------------------------------------------------------------- configuration

/** `backup:` of the configuration file. */
export interface BackupConfigInput {
  /** The folder backups are written to (made when absent). */
  dir?: unknown;
  /** Scheduled backups: `24h`, `30m`, `1h30m`, `90s` or milliseconds; absent = none. */
  every?: unknown;
  /** Newest backups kept per dataset; absent = all. */
  keep?: unknown;
  /** gzip the files (default true). */
  gzip?: unknown;
}

export interface ResolvedBackupConfig {
  /** Absolute. */
  dir: string;
  everyMs: number | undefined;
  keep: number | undefined;
  gzip: boolean;
}

/** `backup` of the configuration (config-schema.ts); what a schema cannot say (durations, the
 * folder) resolveBackupConfig checks. */
export const BACKUP_SCHEMA: Schema = {
  type: 'object', additionalProperties: false, message: 'must be a mapping { dir, every, keep, gzip }',
  properties: {
    dir: { type: 'string', message: 'must be the folder backups are written to, got {value}' },
    every: { type: ['string', 'number'], message: 'must be a duration such as 24h, 30m, 1h30m or 90s (or milliseconds), got {value}' },
    keep: { type: 'integer', minimum: 1, message: 'must be a whole number of at least 1 (the newest backups kept per dataset), got {value}' },
    gzip: { type: 'boolean', default: true, message: 'must be true or false, got {value}' },
  },
};

/** The shortest schedule: a backup a minute at most. */
export const MIN_BACKUP_EVERY_MS = 60_000;
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 };

/** `24h`, `30m`, `1h30m`, `90s`, `1d`, `500ms` or a number of milliseconds → milliseconds. */
export function parseDuration(value: unknown, field: string): number {
  let ms: number;
  if (typeof value === 'number') {
    ms = value;
  } else if (typeof value === 'string' && /^\s*(\d+\s*(ms|s|m|h|d)\s*)+$/.test(value)) {
    ms = 0;
    for (const [, n, unit] of value.matchAll(/(\d+)\s*(ms|s|m|h|d)/g)) ms += Number(n) * UNITS[unit!]!;
  } else if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) {
    ms = Number(value);
  } else {
    throw new TypeError(`${field} must be a duration such as 24h, 30m, 1h30m or 90s (or milliseconds), got ${JSON.stringify(value)}`);
  }
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new TypeError(`${field} must be a positive duration, got ${JSON.stringify(value)}`);
  return ms;
}

/** `backup:` checked (TypeErrors name the field); undefined when there is no `backup:`.
 * `baseDir`: what a relative `dir` is relative to (default the working directory). */
export function resolveBackupConfig(input: unknown, baseDir: string = process.cwd()): ResolvedBackupConfig | undefined {
  if (input === undefined || input === null) return undefined;
  const checked = plainCopy(input);
  checkSection(BACKUP_SCHEMA, checked, 'backup');
  const { dir, every, keep, gzip } = checked as BackupConfigInput;
  if (typeof dir !== 'string' || dir.trim() === '') throw new TypeError(`backup.dir must be the folder backups are written to, got ${JSON.stringify(dir)}`);
  let everyMs: number | undefined;
  if (every !== undefined) {
    everyMs = parseDuration(every, 'backup.every');
    if (everyMs < MIN_BACKUP_EVERY_MS) throw new TypeError(`backup.every must be at least 1m, got ${JSON.stringify(every)}`);
  }
  if (keep !== undefined && (typeof keep !== 'number' || !Number.isInteger(keep) || keep < 1)) {
    throw new TypeError(`backup.keep must be a whole number of at least 1 (the newest backups kept per dataset), got ${JSON.stringify(keep)}`);
  }
  if (gzip !== undefined && typeof gzip !== 'boolean') throw new TypeError(`backup.gzip must be true or false, got ${JSON.stringify(gzip)}`);
  return { dir: path.resolve(baseDir, dir), everyMs, keep: keep as number | undefined, gzip: gzip ?? true };
}

// ---------------------------------------------------------------- tasks and schedule

export const BACKUP_TASK = 'backup';

/** Starts a backup of `target` as a task (then applies `keep`). When one of this dataset is
 * running already, returns it with `started: false` instead of starting another. */
export function startBackupTask(tasks: Tasks, target: BackupTarget, config: ResolvedBackupConfig, now: () => number = Date.now): { task: TaskInfo; started: boolean } {
  const running = tasks.running(BACKUP_TASK, target.name);
  if (running !== undefined) return { task: running, started: false };
  const task = tasks.start(BACKUP_TASK, target.name, async (progress) => {
    // No other backup of this dataset runs in this process: a temporary file of it is a leftover
    // of a process that stopped in the middle of one.
    await removeLeftovers(config.dir, target.name);
    const result = await backupDataset(target, config.dir, { gzip: config.gzip, now, onProgress: progress });
    const removed = config.keep === undefined ? [] : await pruneBackups(config.dir, target.name, config.keep);
    return { ...result, file: path.basename(result.file), removed };
  });
  return { task, started: true };
}

export interface BackupSchedulerOptions {
  config: ResolvedBackupConfig;
  datasets: () => ReadonlyMap<string, BackupTarget>;
  tasks: Tasks;
  timers?: Timers;
  now?: () => number;
}

/** Every `config.everyMs`: a backup task per dataset, one after another (so two backups never
 * compete for the disk). A failure is the task's (`/$/tasks`); the schedule goes on. */
export class BackupScheduler {
  private readonly timers: Timers;
  private readonly now: () => number;
  private timer: unknown;
  private stopped = true;
  private current: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: BackupSchedulerOptions) {
    this.timers = options.timers ?? realTimers;
    this.now = options.now ?? Date.now;
  }

  /** Arms the schedule (nothing when `every` is not set); the first run is one period from now. */
  start(): void {
    if (this.options.config.everyMs === undefined || !this.stopped) return;
    this.stopped = false;
    this.arm();
  }

  /** Disarms; waits for a run under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    await this.current;
  }

  /** One run now: a backup of every dataset, in turn; the tasks as they ended. */
  runOnce(): Promise<TaskInfo[]> {
    const run = (async () => {
      const out: TaskInfo[] = [];
      for (const target of this.options.datasets().values()) {
        const { task } = startBackupTask(this.options.tasks, target, this.options.config, this.now);
        out.push((await this.options.tasks.settled(task.id)) ?? task);
      }
      return out;
    })();
    this.current = run.catch(() => undefined);
    return run;
  }

  private arm(): void {
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      if (this.stopped) return;
      void this.runOnce()
        .catch(() => undefined)
        .finally(() => {
          if (!this.stopped) this.arm();
        });
    }, this.options.config.everyMs!);
  }
}
