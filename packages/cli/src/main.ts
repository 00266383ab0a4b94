#!/usr/bin/env node
/**
 * `ianode <command>` (bin/ianode.js runs this file; `ianode --help` lists the commands, cli.ts
 * reads them):
 *   up                       IdP + access service + graph server (secure mode) as supervised child processes, demo seeded
 *   graph | access | idp ... one service on its own (the package's entry point, same options)
 *   load FILE [--label L]    upload RDF to the graph server
 *   query 'SPARQL'           run a query
 *   token [EMAIL]            print `export IDP_ID_TOKEN=…` for a demo user
 *   store verify DIR | store recover DIR --to NEW_DIR   check / rescue a store folder (store.ts)
 *   load DIR FILE… | dump | restore | compact | query DIR … --as | update DIR … --as   offline tools (offline.ts)
 *   kafka send FILE | kafka status   produce a message / show offsets for Kafka ingestion (kafka.ts)
 *   backup --server URL --dataset NAME [--wait]   an online backup by a graph server (backup.ts)
 *   labels stats|quads|relabel   label administration over the graph server's API (labels.ts)
 */
import { spawn } from 'node:child_process';
import { runCli, type Actions } from './cli.js';
import { serviceEntry } from './service-entry.js';

// Each command's code is loaded when that command runs, not before the command line is read:
// `ianode --help`, a usage error or `ianode graph …` load neither the graph server's library (up.ts
// reads its configuration), nor the identity provider's client, nor the Kafka client.

function runEntry(pkg: string, args: string[]): Promise<number> {
  const child = spawn(process.execPath, [serviceEntry(pkg), ...args], { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

async function runUp(): Promise<number> {
  const { banner, up, upOptionsFromEnv } = await import('./up.js');
  const { stopOnSignals, SupervisorError } = await import('./supervisor.js');
  const options = upOptionsFromEnv();
  const node = await up(options);
  const { supervisor } = node;
  // Before the first child starts: the children have their own process groups, so a Ctrl-C
  // reaches them through this process only.
  const signals = stopOnSignals(supervisor, (signal) =>
    process.stdout.write(`ianode: ${signal}: stopping the graph server, access service and identity provider\n`),
  );
  try {
    await supervisor.start();
  } catch (error) {
    if (signals.signalled) {
      await supervisor.done;
      process.stdout.write('ianode: stopped\n');
      return 0;
    }
    // The supervisor has reported which service did not come up (and its lines are above).
    if (!(error instanceof SupervisorError)) throw error;
    return 1;
  }
  process.stdout.write(banner(node, options.dataDir));
  const code = await supervisor.done;
  process.stdout.write(code === 0 ? 'ianode: stopped\n' : 'ianode: stopped after a service kept failing\n');
  return code;
}

const out = (text: string) => void process.stdout.write(text);
const err = (text: string) => void process.stderr.write(text);
const commands = () => import('./commands.js');
const offline = async () => (await import('./offline-actions.js')).offlineActions(out, err);
const store = async () => (await import('./store.js')).storeActions(out);

const actions: Actions = {
  up: runUp,
  service: runEntry,
  load: async (file, opts) => (await commands()).load(file, opts),
  query: async (text, opts) => (await commands()).query(text, opts),
  token: async (user, env) => (await commands()).token(user, env),
  storeVerify: async (dir) => (await store()).storeVerify(dir),
  storeRecover: async (dir, to) => (await store()).storeRecover(dir, to),
  kafkaSend: async (file, opts) => (await import('./kafka.js')).kafkaSend(file, opts), // kafka.ts loads the Kafka client only when called
  kafkaStatus: async (opts) => (await import('./kafka.js')).kafkaStatus(opts),
  labelsStats: async (opts) => (await import('./labels.js')).labelsStats(opts),
  labelsQuads: async (opts) => (await import('./labels.js')).labelsQuads(opts),
  labelsRelabel: async (opts) => (await import('./labels.js')).labelsRelabel(opts),
  dump: async (dir, opts) => (await offline()).dump(dir, opts),
  loadOffline: async (dir, files, opts) => (await offline()).loadOffline(dir, files, opts),
  restore: async (file, to, opts) => (await offline()).restore(file, to, opts),
  compact: async (dir, opts) => (await offline()).compact(dir, opts),
  queryOffline: async (dir, text, actor, opts) => (await offline()).queryOffline(dir, text, actor, opts),
  updateOffline: async (dir, text, actor, opts) => (await offline()).updateOffline(dir, text, actor, opts),
  backup: async ({ quiet, ...opts }) => {
    const { backupOnline } = await import('./backup.js');
    const { processProgressIo } = await import('./progress.js');
    return backupOnline(opts, { stdout: out, stderr: err, progress: quiet ? undefined : processProgressIo() });
  },
};

const io = { env: process.env, stdout: out, stderr: err };

runCli(process.argv.slice(2), io, actions).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`ianode: ${describeError(error)}\n`);
    process.exit(1);
  },
);

/** fetch's "fetch failed" says nothing; its cause names the address that did not answer. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error.message === 'fetch failed' && cause?.message) {
    const hint = cause.code === 'ECONNREFUSED' ? ' (is the node running? `npm start`)' : '';
    return `${cause.message}${hint}`;
  }
  return error.message;
}
