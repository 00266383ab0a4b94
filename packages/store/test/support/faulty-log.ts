/**
 * Fault injection for the log writer (StoreOptions.logFiles): a real log file whose writes can be
 * made to fail after writing part of their bytes (a full disk mid-write), and whose truncate can
 * be made to fail too (the file's tail is then unknown).
 */
import { open } from 'node:fs/promises';
import type { LogFile, OpenLogFile } from '@ianode/store';

export class LogFaults {
  /** Writes fail (after writing half of their first buffer). */
  writes = false;
  /** Truncates fail. */
  truncates = false;
  failedWrites = 0;
  /** Bytes written, failed writes' partial bytes included. */
  bytesWritten = 0;

  readonly open: OpenLogFile = async (path) => {
    const handle = await open(path, 'a');
    return this.wrap(handle);
  };

  private async count<T extends { bytesWritten: number }>(write: Promise<T>): Promise<T> {
    const result = await write;
    this.bytesWritten += result.bytesWritten;
    return result;
  }

  private wrap(handle: LogFile): LogFile {
    const fail = async (buffer: Buffer | undefined): Promise<never> => {
      this.failedWrites++;
      if (buffer !== undefined && buffer.byteLength > 1) {
        this.bytesWritten += (await handle.write(buffer.subarray(0, buffer.byteLength >> 1))).bytesWritten;
      }
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    return {
      writev: (buffers) => (this.writes ? fail(buffers[0]) : this.count(handle.writev(buffers))),
      write: (buffer) => (this.writes ? fail(buffer) : this.count(handle.write(buffer))),
      datasync: () => handle.datasync(),
      truncate: (length) => {
        if (this.truncates) return Promise.reject(Object.assign(new Error('EIO: i/o error, ftruncate'), { code: 'EIO' }));
        return handle.truncate(length);
      },
      stat: () => handle.stat(),
      close: () => handle.close(),
    };
  }
}
