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
import { chmodSync, closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
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

/** An open log file: appends whole transactions and fsyncs before reporting them committed. */
export class WalWriter {
  private broken = false;
  /** Writes started ahead of a commit (terms of a big load); `append` waits for them. */
  private ahead: Promise<void> = Promise.resolve();

  private constructor(
    private readonly handle: FileHandle,
    private size: number,
    private readonly fsync: boolean,
  ) {}

  /** Open a log for appending (created 0600 when absent; its folder is then synced, so a log
   * that holds acknowledged commits never disappears with its directory entry). Torn tails are cut
   * by the caller (`truncateFile`) once the open has decided the folder is healthy. */
  static async open(path: string, fsync: boolean): Promise<WalWriter> {
    const created = !existsSync(path);
    const handle = await open(path, 'a', FILE_MODE);
    try {
      const st = await handle.stat();
      if ((st.mode & 0o777) !== FILE_MODE) await handle.chmod(FILE_MODE);
      if (created) syncDir(join(path, '..'));
      return new WalWriter(handle, st.size, fsync);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  get bytes(): number {
    return this.size;
  }

  /** Append one transaction's frames and sync. On failure the file is cut back to where it was,
   * so a half-written transaction never sits in front of later ones; if even that fails the
   * writer refuses further appends (the store must be reopened). */
  async append(chunks: Iterable<Buffer>): Promise<void> {
    await this.ahead;
    if (this.broken) throw new StoreError('STORE_IO', 'the transaction log is unusable after an earlier write error; reopen the store');
    const start = this.size;
    try {
      let batch: Buffer[] = [];
      let batchBytes = 0;
      for (const c of chunks) {
        batch.push(c);
        batchBytes += c.byteLength;
        if (batchBytes >= 8 << 20 || batch.length >= 256) {
          await this.writeAll(batch, batchBytes);
          batch = [];
          batchBytes = 0;
        }
      }
      if (batch.length > 0) await this.writeAll(batch, batchBytes);
      if (this.fsync) await this.handle.datasync();
    } catch (err) {
      try {
        await this.handle.truncate(start);
        this.size = start;
      } catch {
        this.broken = true;
      }
      throw new StoreError('STORE_IO', `could not write the transaction log: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Start writing frames now, in the background (not synced; the next `append`'s sync covers
   * them). A failure makes the writer refuse further appends: the store must be reopened. */
  appendAhead(chunks: Buffer[]): void {
    this.ahead = this.ahead.then(async () => {
      if (this.broken) return;
      try {
        await this.writeAll(chunks, chunks.reduce((n, c) => n + c.byteLength, 0));
      } catch {
        this.broken = true;
      }
    });
  }

  private async writeAll(buffers: Buffer[], total: number): Promise<void> {
    await writeFully(this.handle, buffers, total);
    this.size += total;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

/** writev until every byte is written (a short write continues where it stopped). */
async function writeFully(handle: FileHandle, buffers: Buffer[], total: number): Promise<void> {
  let written = (await handle.writev(buffers)).bytesWritten;
  while (written < total) {
    const rest = Buffer.concat(buffers).subarray(written);
    written += (await handle.write(rest)).bytesWritten;
  }
}

/** Write a file atomically: temp file, fsync, rename, fsync the folder. */
export async function writeFileAtomic(dir: string, name: string, chunks: Iterable<Buffer>): Promise<void> {
  const tmp = join(dir, name + '.tmp');
  const handle = await open(tmp, 'w', FILE_MODE);
  try {
    let batch: Buffer[] = [];
    let bytes = 0;
    for (const c of chunks) {
      batch.push(c);
      bytes += c.byteLength;
      if (bytes >= 8 << 20 || batch.length >= 256) {
        await writeFully(handle, batch, bytes);
        batch = [];
        bytes = 0;
      }
    }
    if (batch.length > 0) await writeFully(handle, batch, bytes);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await rename(tmp, join(dir, name));
  syncDir(dir);
}
