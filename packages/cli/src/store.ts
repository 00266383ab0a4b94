/**
 * `ianode store verify DIR` and `ianode store recover DIR --to NEW_DIR` (docs/operations.md): the
 * store folder checked end to end, and a damaged folder's commits before the damage saved to a
 * new folder. Both only read DIR; run them while the graph server is stopped. Their command line
 * (usage, --help, exit 2 on a mistake) is cli.ts's.
 */
import { recoverStore, verifyStore } from '@ianode/store';
import { runCli, type Actions } from './cli.js';

/** The two store actions, writing their reports to `write`. */
export function storeActions(write: (text: string) => void): Pick<Actions, 'storeVerify' | 'storeRecover'> {
  return {
    async storeVerify(dir) {
      const report = verifyStore(dir);
      write(`${report.lines.join('\n')}\n`);
      return report.healthy ? 0 : 1;
    },
    async storeRecover(dir, to) {
      const report = await recoverStore(dir, to);
      write(`${report.lines.join('\n')}\n(this report is also in ${to}/RECOVERY.txt)\n`);
      return 0;
    },
  };
}

/** `ianode store ARGS…` on its own (reports and usage to `write`); returns the exit code (2 for a usage error). */
export function storeCommand(args: string[], write: (text: string) => void = (t) => process.stdout.write(t)): Promise<number> {
  const other = async (): Promise<number> => {
    throw new Error('not a store command');
  };
  const actions: Actions = {
    up: other, service: other, load: other, query: other, token: other, kafkaSend: other, kafkaStatus: other, labelsStats: other, labelsQuads: other, labelsRelabel: other,
    dump: other, loadOffline: other, restore: other, compact: other, queryOffline: other, updateOffline: other, backup: other, ...storeActions(write),
  };
  return runCli(['store', ...args], { env: process.env, stdout: write, stderr: write }, actions);
}
