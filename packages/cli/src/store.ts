/**
 * `ianode store verify DIR` and `ianode store recover DIR --to NEW_DIR` (docs/operations.md): the
 * store folder checked end to end, and a damaged folder's commits before the damage saved to a
 * new folder. Both only read DIR; run them while the graph server is stopped.
 */
import { parseArgs } from 'node:util';
import { recoverStore, verifyStore } from '@ianode/store';

export const STORE_USAGE = `usage: ianode store verify DIR             check every file of a store folder (exit 0 healthy, 1 damaged)
       ianode store recover DIR --to NEW_DIR  write every commit before the first damage to a new store folder`;

/** Runs the `store` subcommand; returns the exit code (2 for a usage error). */
export async function storeCommand(args: string[], write: (text: string) => void = (t) => process.stdout.write(t)): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { to: { type: 'string' } } });
  if (positionals.length !== 1 || (action === 'verify' && values.to !== undefined)) {
    write(`${STORE_USAGE}\n`);
    return 2;
  }
  const dir = positionals[0]!;
  if (action === 'verify') {
    const report = verifyStore(dir);
    write(`${report.lines.join('\n')}\n`);
    return report.healthy ? 0 : 1;
  }
  if (action === 'recover' && values.to !== undefined) {
    const report = await recoverStore(dir, values.to);
    write(`${report.lines.join('\n')}\n(this report is also in ${values.to}/RECOVERY.txt)\n`);
    return 0;
  }
  write(`${STORE_USAGE}\n`);
  return 2;
}
