/**
 * Files of a durable store, in its folder:
 *
 *   checkpoint-<txId>.ckpt   the whole state as of commit txId (one transaction of frames)
 *   wal-<txId>.log           commits after txId, appended and fsynced one by one
 *
 * Restart = newest intact checkpoint + replay of the logs (store.ts `open`, integrity.ts). A
 * checkpoint is written to a temporary file, fsynced and renamed, then a new log is started; the
 * previous checkpoint and the logs that roll it forward are kept until the next checkpoint.
 * The folder is 0700 and every file 0600 (the data is labelled: not everyone may read it).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { StoreError } from './errors.js';

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

const pad = (n: number) => String(n).padStart(10, '0');
export const checkpointName = (txId: number) => `checkpoint-${pad(txId)}.ckpt`;
export const walName = (txId: number) => `wal-${pad(txId)}.log`;

export interface DirListing {
  checkpoints: number[];
  wals: number[];
  /** Leftover temporary files (a checkpoint interrupted by a crash). */
  tmps: string[];
}

/** The store files of a folder, sorted by transaction id. Reads only (an absent folder lists empty). */
export function listDir(dir: string): DirListing {
  const checkpoints: number[] = [];
  const wals: number[] = [];
  const tmps: string[] = [];
  if (!existsSync(dir)) return { checkpoints, wals, tmps };
  for (const f of readdirSync(dir)) {
    let m = /^checkpoint-(\d+)\.ckpt$/.exec(f);
    if (m) checkpoints.push(Number(m[1]));
    m = /^wal-(\d+)\.log$/.exec(f);
    if (m) wals.push(Number(m[1]));
    if (f.endsWith('.tmp')) tmps.push(f);
  }
  checkpoints.sort((a, b) => a - b);
  wals.sort((a, b) => a - b);
  return { checkpoints, wals, tmps };
}

/** Create the folder 0700, or restrict an existing one the process owns to 0700. */
export function prepareDir(dir: string): void {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    return;
  }
  const st = statSync(dir);
  if ((st.mode & 0o777) !== DIR_MODE && typeof process.getuid === 'function' && st.uid === process.getuid()) chmodSync(dir, DIR_MODE);
}

/** Cut a log back to `end` bytes (a torn tail) and sync it. */
export function truncateFile(path: string, end: number): void {
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, end);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file operations the log writer uses: a `node:fs/promises` FileHandle, or a wrapper that
 * injects faults (tests). */
export interface LogFile {
  writev(buffers: Buffer[]): Promise<{ bytesWritten: number }>;
  write(buffer: Buffer): Promise<{ bytesWritten: number }>;
  datasync(): Promise<void>;
  truncate(length: number): Promise<void>;
  stat(): Promise<{ size: number }>;
  close(): Promise<void>;
}

/** Opens a log file for appending (created when absent). */
export type OpenLogFile = (path: string) => Promise<LogFile>;

export const openLogFile: OpenLogFile = (path) => open(path, 'a', FILE_MODE);

/** An open log file: appends whole transactions and fsyncs before reporting them committed.
 *
 * A failed write (a full disk, an I/O error) fails its transaction and the file is cut back to
 * the end of the last written one, so a half-written transaction never sits in front of later
 * ones. If even the cut-back fails, the file's tail is unknown: every later append first retries
 * it (reopening the file if need be) and is refused only while that still fails, so the store
 * recovers by itself once space is freed. */
export class WalWriter {
  /** Set after a failed write: the file may hold bytes past `size` until `restore` cuts them. */
  private suspect: Error | undefined;
  /** Why a write ahead failed: the next `append` fails (its commit needs the missing frames). */
  private aheadError: Error | undefined;
  /** Writes started ahead of a commit (terms of a big load); `append` waits for them. */
  private ahead: Promise<void> = Promise.resolve();

  private constructor(
    private handle: LogFile,
    private size: number,
    private readonly fsync: boolean,
    private readonly path: string,
    private readonly openFile: OpenLogFile,
  ) {}

  /** Open a log for appending (created 0600 when absent; its folder is then synced, so a log
   * that holds acknowledged commits never disappears with its directory entry). Torn tails are cut
   * by the caller (`truncateFile`) once the open has decided the folder is healthy. */
  static async open(path: string, fsync: boolean, openFile: OpenLogFile = openLogFile): Promise<WalWriter> {
    const created = !existsSync(path);
    const handle = await openFile(path);
    try {
      const { size } = await handle.stat();
      if ((statSync(path).mode & 0o777) !== FILE_MODE) chmodSync(path, FILE_MODE);
      if (created) syncDir(join(path, '..'));
      return new WalWriter(handle, size, fsync, path, openFile);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  get bytes(): number {
    return this.size;
  }

  /** Append one transaction's frames and sync. On failure the transaction is not in the log. */
  async append(chunks: Iterable<Buffer>): Promise<void> {
    await this.ahead;
    const aheadError = this.aheadError;
    this.aheadError = undefined;
    await this.restore();
    if (aheadError) throw writeError(aheadError);
    const start = this.size;
    try {
      await inBatches(chunks, (batch, bytes) => this.writeAll(batch, bytes));
      if (this.fsync) await this.handle.datasync();
    } catch (err) {
      this.size = start;
      this.suspect = err as Error;
      await this.restore().catch(() => undefined); // else the next append retries it
      throw writeError(err as Error);
    }
  }

  /** Cut the log back to `size` bytes, the end of the last commit: a transaction that wrote
   * frames ahead (`appendAhead`) rolled back. If that fails, the next append retries it first. */
  async rollBackTo(size: number): Promise<void> {
    await this.ahead;
    this.aheadError = undefined;
    if (size > this.size) throw new RangeError(`cannot roll the log forward from ${this.size} to ${size} bytes`);
    this.size = size;
    this.suspect ??= new Error('transaction rolled back');
    await this.restore();
  }

  /** Start writing frames now, in the background (not synced; the next `append`'s sync covers
   * them). A failure fails the next `append`, which first cuts the file back. */
  appendAhead(chunks: Buffer[]): void {
    this.ahead = this.ahead.then(async () => {
      if (this.suspect || this.aheadError) return;
      try {
        await this.writeAll(chunks, chunks.reduce((n, c) => n + c.byteLength, 0));
      } catch (err) {
        this.aheadError = err as Error;
        this.suspect = err as Error;
      }
    });
  }

  /** After a failed write: cut the file back to `size` (the end of the last whole write) and
   * check it, reopening the file when the handle itself fails. Throws while that is impossible. */
  private async restore(): Promise<void> {
    if (this.suspect === undefined) return;
    try {
      await this.cutBack(this.handle);
    } catch {
      try {
        const handle = await this.openFile(this.path);
        await this.handle.close().catch(() => undefined);
        this.handle = handle;
        await this.cutBack(handle);
      } catch (err) {
        throw new StoreError(
          'STORE_IO',
          `the transaction log could not be put back to its last commit after a write error (${(err as Error).message}); ` +
            'writes are refused until it can, which is retried at every write',
          { cause: err },
        );
      }
    }
    this.suspect = undefined;
  }

  private async cutBack(handle: LogFile): Promise<void> {
    await handle.truncate(this.size);
    if (this.fsync) await handle.datasync();
    const { size } = await handle.stat();
    if (size !== this.size) throw new Error(`log is ${size} bytes after cutting it back to ${this.size}`);
  }

  private async writeAll(buffers: Buffer[], total: number): Promise<void> {
    await writeFully(this.handle, buffers, total);
    this.size += total;
  }

  async close(): Promise<void> {
    await this.ahead;
    await this.handle.close();
  }
}

function writeError(err: Error): StoreError {
  return new StoreError('STORE_IO', `could not write the transaction log: ${err.message}`, { cause: err });
}

/** writev until every byte is written (a short write continues where it stopped). */
async function writeFully(handle: Pick<LogFile, 'writev' | 'write'>, buffers: Buffer[], total: number): Promise<void> {
  let written = (await handle.writev(buffers)).bytesWritten;
  while (written < total) {
    const rest = Buffer.concat(buffers).subarray(written);
    written += (await handle.write(rest)).bytesWritten;
  }
}

/** Hands `chunks` to `write` in batches of up to 8 MiB or 256 buffers (one writev each): the
 * log's appends and `writeChunks` batch alike. */
async function inBatches(chunks: Iterable<Buffer>, write: (batch: Buffer[], bytes: number) => Promise<void>): Promise<void> {
  let batch: Buffer[] = [];
  let bytes = 0;
  for (const c of chunks) {
    batch.push(c);
    bytes += c.byteLength;
    if (bytes >= 8 << 20 || batch.length >= 256) {
      await write(batch, bytes);
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) await write(batch, bytes);
}

/** Writes `chunks` in batches of up to 8 MiB or 256 buffers. */
export async function writeChunks(handle: Pick<LogFile, 'writev' | 'write'>, chunks: Iterable<Buffer>): Promise<void> {
  await inBatches(chunks, (batch, bytes) => writeFully(handle, batch, bytes));
}

/** A temporary file of `writeFileAtomic` for `file`: `.<name>.<12 hex digits>.tmp` beside it. */
export const ATOMIC_TEMP_FILE = /^\.(.+)\.[0-9a-f]{12}\.tmp$/;

/**
 * Writes `file` atomically, the one way the project does it (the store's checkpoints, the graph
 * server's backups and its dataset registry): `write` fills a new temporary file in the same folder
 * (`.<name>.<random>.tmp`, created exclusively, mode 0600), which is fsynced, closed and renamed over
 * `file`, then the folder is fsynced. A failure before the rename removes the temporary file (a
 * partial file must not keep the space a full disk needs); a crash may leave one, which matches
 * `ATOMIC_TEMP_FILE`. Resolves to what `write` resolved to.
 */
export async function writeFileAtomic<T>(file: string, write: (handle: FileHandle) => Promise<T>): Promise<T> {
  const dir = dirname(file);
  const tmp = join(dir, `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  let renamed = false;
  try {
    const handle = await open(tmp, 'wx', FILE_MODE);
    let result: T;
    try {
      result = await write(handle);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
    renamed = true;
    await syncFolder(dir);
    return result;
  } finally {
    if (!renamed) await unlink(tmp).catch(() => undefined);
  }
}

async function syncFolder(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
