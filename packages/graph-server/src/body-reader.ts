/**
 * Write bodies are read whole before a write takes the store's writer lock, so a slow or stalled
 * client never holds the single writer (docs/graph-server.md "Writes never wait on a client").
 *
 * - `BodyDeadline`: an idle timer (no byte for `bodyIdleTimeoutMs`) and a total timer
 *   (`bodyTimeoutMs`) per request body; either answers 408 naming the limit, and a graceful stop
 *   aborts the deadlines still open (503). Timers are injected (`Timers`) so tests need no clock.
 * - `spoolBody`: the bytes, under the byte limit (413), in memory up to `spoolMemoryBytes`, then in
 *   a temporary file (mode 0600, in a folder of mode 0700 made for this server, removed after).
 */
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tooLarge } from './body.js';
import { GraphServerError } from './errors.js';

/** setTimeout / clearTimeout, injectable (tests drive them by hand). */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface BodyTimeouts {
  /** No byte for this long: 408 (0 = no idle limit). */
  idleMs: number;
  /** The whole body takes longer than this: 408 (0 = no total limit). */
  totalMs: number;
}

/** The timers of one request body; `failed` rejects when one fires or the body is aborted. */
export class BodyDeadline {
  readonly failed: Promise<never>;
  private reject!: (error: Error) => void;
  private idle: unknown;
  private total: unknown;
  private done = false;

  constructor(
    private readonly timeouts: BodyTimeouts,
    private readonly timers: Timers,
    /** What is being read, for messages: `upload body`, `graph store body`. */
    private readonly what: string,
    private readonly onStop: (deadline: BodyDeadline) => void = () => undefined,
  ) {
    this.failed = new Promise<never>((_resolve, reject) => {
      this.reject = reject;
    });
    this.failed.catch(() => undefined);
    if (timeouts.totalMs > 0) {
      this.total = timers.setTimeout(
        () => this.fail(new GraphServerError('REQUEST_TIMEOUT', `${what} not received within limits.bodyTimeoutMs (${timeouts.totalMs} ms); nothing was stored`)),
        timeouts.totalMs,
      );
    }
    this.touch();
  }

  /** Bytes arrived: restart the idle timer. */
  touch(): void {
    if (this.done || this.timeouts.idleMs <= 0) return;
    if (this.idle !== undefined) this.timers.clearTimeout(this.idle);
    this.idle = this.timers.setTimeout(
      () => this.fail(new GraphServerError('REQUEST_TIMEOUT', `${this.what}: no bytes for limits.bodyIdleTimeoutMs (${this.timeouts.idleMs} ms); nothing was stored`)),
      this.timeouts.idleMs,
    );
  }

  /** Ends the read with `error` (a timeout, or a stop): whoever awaits `race` gets it. */
  fail(error: Error): void {
    if (this.done) return;
    this.stop();
    this.reject(error);
  }

  /** `promise`, unless the deadline fails first. */
  race<T>(promise: Promise<T>): Promise<T> {
    return Promise.race([promise, this.failed]);
  }

  /** The body is read (or the request ended): clear the timers. */
  stop(): void {
    if (this.done) return;
    this.done = true;
    if (this.idle !== undefined) this.timers.clearTimeout(this.idle);
    if (this.total !== undefined) this.timers.clearTimeout(this.total);
    this.onStop(this);
  }

  get stopped(): boolean {
    return this.done;
  }
}

/** `source` under the deadline: each chunk restarts the idle timer; a timeout ends the iteration. */
export async function* guarded<T>(source: AsyncIterable<T>, deadline: BodyDeadline): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let timedOut = false;
  try {
    while (true) {
      let next: IteratorResult<T>;
      try {
        next = await deadline.race(iterator.next());
      } catch (error) {
        // A timeout or stop leaves the stream alone: returning it would destroy the request's
        // socket before the 408/503 reply is written (that reply closes the connection).
        timedOut = deadline.stopped;
        throw error;
      }
      if (next.done) return;
      deadline.touch();
      yield next.value;
    }
  } finally {
    if (!timedOut) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

/** A body read whole: in memory, or in a temporary file. */
export interface SpooledBody {
  readonly bytes: number;
  /** The bytes again, from memory or the file. */
  chunks(): AsyncIterable<Uint8Array>;
  /** The bytes as UTF-8 text. */
  text(): Promise<string>;
  /** Remove the temporary file (if any). Safe to call twice. */
  dispose(): Promise<void>;
}

/** Where spool files go: one folder (0700) per server, made at first use, removed at close. */
export class SpoolArea {
  private dir: Promise<string> | undefined;
  private files = 0;

  constructor(private readonly parent: string = tmpdir()) {}

  /** A new file, created exclusively with mode 0600. */
  async create(): Promise<{ path: string; handle: FileHandle }> {
    this.dir ??= mkdtemp(join(this.parent, 'ianode-spool-')); // mkdtemp makes the folder 0700
    const path = join(await this.dir, `body-${++this.files}`);
    return { path, handle: await open(path, 'wx', 0o600) };
  }

  /** The folder, if one was made (tests check its mode). */
  async folder(): Promise<string | undefined> {
    return this.dir;
  }

  async remove(): Promise<void> {
    if (this.dir === undefined) return;
    const dir = await this.dir.catch(() => undefined);
    this.dir = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
}

export interface SpoolOptions {
  /** Most bytes (413 beyond). */
  limit: number;
  /** Bytes kept in memory before the body moves to a file. */
  memoryBytes: number;
  area: SpoolArea;
  deadline: BodyDeadline;
}

/** Reads `source` whole under the deadline and the byte limit; nothing is kept on failure. */
export async function spoolBody(source: AsyncIterable<Uint8Array | string>, options: SpoolOptions): Promise<SpooledBody> {
  const memory: Buffer[] = [];
  let bytes = 0;
  let file: { path: string; handle: FileHandle } | undefined;
  try {
    for await (const chunk of guarded(source, options.deadline)) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      bytes += buffer.byteLength;
      if (bytes > options.limit) throw tooLarge(options.limit);
      if (file === undefined && bytes > options.memoryBytes) {
        file = await options.deadline.race(options.area.create());
        for (const part of memory) await options.deadline.race(writeAll(file.handle, part));
        memory.length = 0;
      }
      if (file === undefined) memory.push(Buffer.from(buffer)); // a copy: the stream may reuse its buffer
      else await options.deadline.race(writeAll(file.handle, buffer));
    }
    if (file !== undefined) await options.deadline.race(file.handle.close());
  } catch (error) {
    if (file !== undefined) {
      await file.handle.close().catch(() => undefined);
      await rm(file.path, { force: true });
    }
    throw error;
  }
  if (file === undefined) {
    const whole = Buffer.concat(memory);
    return {
      bytes,
      async *chunks() {
        if (whole.byteLength > 0) yield whole;
      },
      text: async () => whole.toString('utf8'),
      dispose: async () => undefined,
    };
  }
  const path = file.path;
  let disposed = false;
  return {
    bytes,
    async *chunks() {
      if (disposed) throw new Error('spooled body already disposed');
      yield* createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>;
    },
    async text() {
      const parts: Buffer[] = [];
      for await (const chunk of createReadStream(path)) parts.push(chunk as Buffer);
      return Buffer.concat(parts).toString('utf8');
    },
    async dispose() {
      disposed = true;
      await rm(path, { force: true });
    },
  };
}

async function writeAll(handle: FileHandle, buffer: Buffer): Promise<void> {
  let offset = 0;
  while (offset < buffer.byteLength) {
    const { bytesWritten } = await handle.write(buffer, offset, buffer.byteLength - offset);
    offset += bytesWritten;
  }
}
