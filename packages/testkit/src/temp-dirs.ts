/** Temporary store folders for a test file, removed after its last test. */
import { accessSync, constants, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

let scratch: string | undefined;
/**
 * Where tests put short-lived databases: `/dev/shm` (a memory file system) when it is a writable
 * folder, else the system's temporary folder. The files are the same either way; on a memory
 * file system an fsync costs nothing, where on a busy disk each costs milliseconds and a SQLite
 * database with `synchronous = FULL` makes one per commit.
 */
export function scratchDir(): string {
  if (scratch === undefined) {
    scratch = tmpdir();
    try {
      if (statSync('/dev/shm').isDirectory()) {
        accessSync('/dev/shm', constants.W_OK);
        scratch = '/dev/shm';
      }
    } catch {
      /* no /dev/shm: the temporary folder */
    }
  }
  return scratch;
}

/** Returns a function that makes a new folder `<tmp>/ianode-<name>-XXXXXX`; all are removed in `afterAll`. */
export function tempDirs(name: string): () => Promise<string> {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), `ianode-${name}-`));
    dirs.push(dir);
    return dir;
  };
}
