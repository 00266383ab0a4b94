/** Temporary store folders for a test file, removed after its last test. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

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
