/**
 * The offline tools as `Actions` (cli.ts reads the command line, offline.ts does the work): a
 * folder held by another process is exit 3 with the store's message naming the holder.
 */
import type { Actions } from './cli.js';
import { compact, dump, EXIT_LOCKED, FolderInUse, loadOffline, queryOffline, restore, updateOffline, type OfflineIo } from './offline.js';
import { processProgressIo } from './progress.js';

type OfflineActions = Pick<Actions, 'dump' | 'loadOffline' | 'restore' | 'compact' | 'queryOffline' | 'updateOffline'>;

export function offlineActions(
  out: (text: string) => void = (t) => void process.stdout.write(t),
  err: (text: string) => void = (t) => void process.stderr.write(t),
): OfflineActions {
  const io = (quiet: boolean): OfflineIo => ({ stdout: out, stderr: quiet ? () => undefined : err, progress: quiet ? undefined : processProgressIo() });
  const refusing = (name: string, run: () => Promise<number>): Promise<number> =>
    run().catch((error: unknown) => {
      if (!(error instanceof FolderInUse)) throw error;
      err(`ianode ${name}: ${error.message}\n`);
      return EXIT_LOCKED;
    });
  return {
    dump: (dir, opts) => refusing('dump', () => dump(dir, opts, io(opts.quiet))),
    loadOffline: (dir, files, opts) => refusing('load', () => loadOffline(dir, files, opts, io(opts.quiet))),
    restore: (file, to, opts) => refusing('restore', () => restore(file, to, io(opts.quiet))),
    compact: (dir, opts) => refusing('compact', () => compact(dir, io(opts.quiet))),
    queryOffline: (dir, text, actor, opts) => refusing('query', () => queryOffline(dir, text, actor, opts, io(opts.quiet))),
    updateOffline: (dir, text, actor, opts) => refusing('update', () => updateOffline(dir, text, actor, opts, io(opts.quiet))),
  };
}
