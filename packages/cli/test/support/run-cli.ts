/**
 * `runCli` with every action recorded instead of run: what the command line parsed, its exit code and
 * what it printed. Shared by the command-line tests (one list of actions to keep in step with
 * ../../src/cli.ts).
 */
import { runCli, type Actions } from '../../src/cli.js';

/** Actions that record each call and answer 0; a test of --help expects none. */
function recorder() {
  const calls: [string, ...unknown[]][] = [];
  const record =
    (name: string) =>
    async (...args: unknown[]) => {
      calls.push([name, ...args]);
      return 0;
    };
  const actions: Actions = {
    up: record('up'),
    service: record('service'),
    load: record('load'),
    query: record('query'),
    token: record('token'),
    storeVerify: record('storeVerify'),
    storeRecover: record('storeRecover'),
    kafkaSend: record('kafkaSend'),
    kafkaStatus: record('kafkaStatus'),
    labelsStats: record('labelsStats'),
    labelsQuads: record('labelsQuads'),
    labelsRelabel: record('labelsRelabel'),
    dump: record('dump'),
    loadOffline: record('loadOffline'),
    restore: record('restore'),
    compact: record('compact'),
    queryOffline: record('queryOffline'),
    updateOffline: record('updateOffline'),
    backup: record('backup'),
  };
  return { actions, calls };
}

export async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const { actions, calls } = recorder();
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { env, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) }, actions);
  return { code, stdout, stderr, calls };
}
