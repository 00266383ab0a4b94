#!/usr/bin/env node
/**
 * `ianode <command>`:
 *   up                       IdP + access service + graph server (secure mode) as supervised child processes, demo seeded
 *   graph | access | idp ... one service on its own (the package's entry point, same options)
 *   load FILE [--label L]    upload RDF to the graph server
 *   query 'SPARQL'           run a query
 *   token [EMAIL]            print `export IDP_ID_TOKEN=…` for a demo user
 *   store verify DIR | store recover DIR --to NEW_DIR   check / rescue a store folder (store.ts)
 * Environment: IANODE_DATA_DIR (./data), IDP_PORT, ACCESS_PORT, GRAPH_PORT, LOG_LEVEL (warn),
 * IANODE_URL (http://localhost:3030/ds), IDP_ID_TOKEN, IDP_URL, CLIENT_ID, IDP_ADMIN_PASSWORD.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { load, query, token } from './commands.js';
import { storeCommand } from './store.js';
import { stopOnSignals, SupervisorError } from './supervisor.js';
import { banner, serviceEntry, up, upOptionsFromEnv } from './up.js';

const USAGE = `usage: ianode <command>
  up                          IdP (9229), access service (8091), graph server (3030, secure mode) as three supervised processes; data in ./data
  graph [--config F] ...      the graph server alone (open mode unless JWKS_URL is set)
  access ...                  the access service alone
  idp ...                     the identity provider alone
  load FILE [--label L]       upload RDF (.ttl .trig .nt .nq .jsonld) with $IDP_ID_TOKEN
  query 'SELECT ...' [--accept TYPE]
  token [EMAIL]               print export IDP_ID_TOKEN=... for a demo user
  store verify DIR            check every file of a store folder (exit 0 healthy, 1 damaged)
  store recover DIR --to NEW  write every commit before the first damage to a new store folder
environment: IANODE_DATA_DIR, IDP_PORT, ACCESS_PORT, GRAPH_PORT, LOG_LEVEL, IANODE_URL, IDP_ID_TOKEN, IDP_URL`;

function runEntry(pkg: string, args: string[]): Promise<number> {
  const child = spawn(process.execPath, [serviceEntry(pkg), ...args], { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

async function runUp(): Promise<number> {
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

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const env = process.env;
  const url = env.IANODE_URL ?? `http://localhost:${env.GRAPH_PORT ?? 3030}/ds`;
  switch (command) {
    case 'up':
      return runUp();
    case 'graph':
      return runEntry('@ianode/graph-server', rest);
    case 'access':
      return runEntry('@ianode/access-service', rest);
    case 'idp':
      return runEntry('@ianode/idp', rest);
    case 'load': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { label: { type: 'string' }, url: { type: 'string' } } });
      if (positionals.length !== 1) throw new Error('usage: ianode load FILE [--label LABEL] [--url URL]');
      return load(positionals[0]!, { url: values.url ?? url, token: env.IDP_ID_TOKEN, label: values.label });
    }
    case 'query': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { accept: { type: 'string' }, url: { type: 'string' } } });
      if (positionals.length !== 1) throw new Error("usage: ianode query 'SELECT ...' [--accept TYPE] [--url URL]");
      return query(positionals[0]!, { url: values.url ?? url, token: env.IDP_ID_TOKEN, accept: values.accept });
    }
    case 'store':
      return storeCommand(rest);
    case 'token':
      return token(rest[0] ?? env.USER_EMAIL ?? 'user@ianode.local');
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`ianode: unknown command ${command}\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`ianode: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
