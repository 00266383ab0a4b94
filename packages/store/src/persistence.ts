/**
 * Files of a durable store, in its folder:
 *
 *   checkpoint-<txId>.ckpt   the whole state as of commit txId (one transaction of frames)
 *   wal-<txId>.log           commits after txId, appended and fsynced one by one
 *
 * Restart = newest readable checkpoint + replay of the logs. A checkpoint is written to a temporary
 * file, fsynced and renamed, then a new log is started and the older files are removed.
 */
import { mkdirSync, openSync, fsyncSync, closeSync, readdirSync, rmSync, ftruncateSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreError } from './errors.js';
import { FrameType, readFrames, type Frame } from './wal.js';

const pad = (n: number) => String(n).padStart(10, '0');
export const checkpointName = (txId: number) => `checkpoint-${pad(txId)}.ckpt`;
export const walName = (txId: number) => `wal-${pad(txId)}.log`;

export interface DirListing {
  checkpoints: number[];
  wals: number[];
}

export function listDir(dir: string): DirListing {
  mkdirSync(dir, { recursive: true });
  const checkpoints: number[] = [];
  const wals: number[] = [];
  for (const f of readdirSync(dir)) {
    let m = /^checkpoint-(\d+)\.ckpt$/.exec(f);
    if (m) checkpoints.push(Number(m[1]));
    m = /^wal-(\d+)\.log$/.exec(f);
    if (m) wals.push(Number(m[1]));
    if (f.endsWith('.tmp')) rmSync(join(dir, f), { force: true });
  }
  checkpoints.sort((a, b) => a - b);
  wals.sort((a, b) => a - b);
  return { checkpoints, wals };
}

/** The committed transactions of a file, in order; `validEnd` = byte offset after the last one.
 * A TERMS frame between transactions (terms logged ahead of a big commit, see
 * `LabelledQuadStore.logTermsAhead`) comes back as a one-frame entry: terms are only dictionary
 * entries, valid whether or not the commit that needed them ever happened. */
export function readTransactions(path: string): { txs: Frame[][]; validEnd: number } {
  const txs: Frame[][] = [];
  let current: Frame[] | undefined;
  let validEnd = 0;
  for (const frame of readFrames(path)) {
    if (frame.type === FrameType.Begin) {
      current = [frame];
    } else if (current === undefined) {
      if (frame.type !== FrameType.Terms) break; // anything else outside a transaction: stop
      txs.push([frame]);
      validEnd = frame.end;
    } else if (frame.type === FrameType.Commit) {
      current.push(frame);
      txs.push(current);
      current = undefined;
      validEnd = frame.end;
    } else {
      current.push(frame);
    }
  }
  return { txs, validEnd };
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

  static async open(path: string, validEnd: number | undefined, fsync: boolean): Promise<WalWriter> {
    if (validEnd !== undefined) {
      const fd = openSync(path, 'r+');
      try {
        ftruncateSync(fd, validEnd); // drop a torn tail left by a crash
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    const handle = await open(path, 'a');
    const { size } = await handle.stat();
    return new WalWriter(handle, size, fsync);
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
  const handle = await open(tmp, 'w');
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
