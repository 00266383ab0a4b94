/**
 * The store folder lock (docs/operations.md "The folder lock"): one process at a time may open a
 * store folder for writing. `openStore({dir})` creates `DIR/LOCK` with O_EXCL (atomic: of two
 * processes racing, one wins) holding `{pid, hostname, startedAt, purpose}`, and removes it on
 * `close()` (and, best effort, when the process exits). A lock left by a process that died
 * (same host, pid no longer alive: a SIGKILL, a power cut) is taken over with a warning; a lock
 * held by a live process, or by a process on another host (whose liveness cannot be checked from
 * here), refuses the open with STORE_LOCKED.
 *
 * Written by hand: an advisory lock file is a few lines, and the npm lock packages either use
 * mtime heartbeats (a long GC pause loses the lock) or add a native dependency for flock.
 */
import { closeSync, fsyncSync, openSync, readFileSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { StoreError } from './errors.js';
import { FILE_MODE } from './persistence.js';

export const LOCK_FILE = 'LOCK';
const TAKEOVER_FILE = 'LOCK.takeover';
/** A lock file that stays empty or unreadable longer than this was left by a crash mid-create. */
const UNREADABLE_GRACE_MS = 10_000;

/** Who holds a store folder (the content of `DIR/LOCK`). */
export interface LockInfo {
  pid: number;
  hostname: string;
  /** ISO 8601 time the lock was taken. */
  startedAt: string;
  /** What holds it: `graph server`, `ianode load`, … */
  purpose: string;
}

/** What a folder's lock says, for `verifyStore` and messages. */
export interface LockStatus {
  /** The holder, when the lock file is readable. */
  holder: LockInfo | undefined;
  /** true: a live process on this host; false: a dead one (stale, the next open takes it over);
   * undefined: another host, or an unreadable lock file (cannot tell). */
  alive: boolean | undefined;
}

const held = new Set<string>();
let exitHookInstalled = false;

function defaultPurpose(): string {
  const script = process.argv[1];
  return script === undefined ? 'node' : `node ${basename(script)}`;
}

/** Whether process `pid` of this host is alive (EPERM: alive, another user's). */
function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(path: string): { info: LockInfo | undefined; text: string } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (typeof v.pid === 'number' && typeof v.hostname === 'string' && typeof v.startedAt === 'string') {
      return { info: { pid: v.pid, hostname: v.hostname, startedAt: v.startedAt, purpose: typeof v.purpose === 'string' ? v.purpose : '?' }, text };
    }
  } catch {
    // unreadable: judged by age below
  }
  return { info: undefined, text };
}

/** Whether the holder of a lock file is alive: this process only if it holds that very lock (a
 * restarted container's server often gets the pid its previous run had), else by its pid. */
function holderAlive(path: string, info: LockInfo, text: string): boolean {
  if (info.pid === process.pid) return held.has(path + '\u0000' + text);
  return pidAlive(info.pid);
}

/** Who holds `dir` (reads only; undefined when no lock file). */
export function lockStatus(dir: string): LockStatus | undefined {
  const read = readLock(join(dir, LOCK_FILE));
  if (read === undefined) return undefined;
  const { info } = read;
  if (info === undefined) return { holder: undefined, alive: undefined };
  return { holder: info, alive: info.hostname === hostname() ? holderAlive(join(dir, LOCK_FILE), info, read.text) : undefined };
}

/** A sentence naming the holder of a lock, e.g. for `ianode store verify`. */
export function describeHolder(info: LockInfo): string {
  return `process ${info.pid} on ${info.hostname} (${info.purpose}) since ${info.startedAt}`;
}

function lockedError(dir: string, info: LockInfo | undefined): StoreError {
  const path = join(dir, LOCK_FILE);
  if (info === undefined) {
    return new StoreError('STORE_LOCKED', `store ${dir} is locked: ${path} is being written by another process (or was left unreadable); try again, and if no process uses the folder, remove ${path}`);
  }
  const who = describeHolder(info);
  const what = info.hostname === hostname()
    ? `stop that process first (a running graph server: stop it, or use its HTTP API instead of an offline tool)`
    : `it was taken on another host, whose processes cannot be checked from here: if nothing there uses the folder any more (e.g. the folder was copied or moved), remove ${path}`;
  return new StoreError('STORE_LOCKED', `store ${dir} is in use by ${who}: ${what}`);
}

function createExclusive(path: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new StoreError('STORE_IO', `cannot create the lock file ${path}: ${(err as Error).message}`, { cause: err });
  }
  try {
    writeSync(fd, `${JSON.stringify(info)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** A held folder lock; `release()` removes the file if it is still this one's. */
export class FolderLock {
  private released = false;
  private constructor(
    readonly dir: string,
    readonly info: LockInfo,
    private readonly text: string,
  ) {}

  /**
   * Take the lock of `dir` (which must exist), taking over a stale one with a warning through
   * `log`; throws StoreError STORE_LOCKED when another process holds it.
   */
  static acquire(dir: string, purpose: string | undefined, log: (message: string, fields: Record<string, unknown>) => void): FolderLock {
    const path = join(dir, LOCK_FILE);
    const info: LockInfo = { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString(), purpose: purpose ?? defaultPurpose() };
    const text = `${JSON.stringify(info)}\n`;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (createExclusive(path, info)) return FolderLock.held(dir, info, text);
      const read = readLock(path);
      if (read === undefined) continue; // released meanwhile: try again
      const holder = read.info;
      if (holder === undefined) {
        let age = 0;
        try {
          age = Date.now() - statSync(path).mtimeMs;
        } catch {
          continue;
        }
        if (age < UNREADABLE_GRACE_MS) throw lockedError(dir, undefined);
      } else if (holder.hostname !== hostname() || holderAlive(path, holder, read.text)) {
        throw lockedError(dir, holder);
      }
      // Stale: take it over under a second exclusive file, so two processes taking over the same
      // stale lock cannot remove each other's new one.
      const takeover = join(dir, TAKEOVER_FILE);
      if (!createExclusive(takeover, info)) {
        let age = 0;
        try {
          age = Date.now() - statSync(takeover).mtimeMs;
        } catch {
          continue;
        }
        if (age >= UNREADABLE_GRACE_MS) rmSync(takeover, { force: true }); // left by a crash
        else throw lockedError(dir, holder);
        continue;
      }
      try {
        const again = readLock(path);
        if (again !== undefined && again.text !== read.text) continue; // someone else got there first
        rmSync(path, { force: true });
        if (!createExclusive(path, info)) continue;
        log(
          holder === undefined
            ? `took over the lock of store ${dir}: ${path} was unreadable and older than ${UNREADABLE_GRACE_MS / 1000} s (a crash while it was written)`
            : `took over the stale lock of store ${dir}: ${describeHolder(holder)} is no longer running (it did not close the store: killed or crashed)`,
          { dir, previous: holder },
        );
        return FolderLock.held(dir, info, text);
      } finally {
        rmSync(takeover, { force: true });
      }
    }
    throw lockedError(dir, readLock(path)?.info);
  }

  private static held(dir: string, info: LockInfo, text: string): FolderLock {
    const lock = new FolderLock(dir, info, text);
    held.add(join(dir, LOCK_FILE) + '\u0000' + text);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      // Best effort: a process that exits without closing its store (process.exit) leaves no
      // lock behind. A SIGKILL leaves it; the next open finds it stale and takes it over.
      process.on('exit', () => {
        for (const entry of held) {
          const [path, mine] = entry.split('\u0000') as [string, string];
          try {
            if (readFileSync(path, 'utf8') === mine) unlinkSync(path);
          } catch {
            // gone already
          }
        }
      });
    }
    return lock;
  }

  /** Remove the lock file, if it is still this lock's (idempotent). */
  release(): void {
    if (this.released) return;
    this.released = true;
    const path = join(this.dir, LOCK_FILE);
    held.delete(path + '\u0000' + this.text);
    try {
      if (readFileSync(path, 'utf8') === this.text) unlinkSync(path);
    } catch {
      // gone already
    }
  }
}
