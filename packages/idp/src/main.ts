#!/usr/bin/env node
/**
 * Entry point of the identity provider.
 *
 *   node dist/main.js [serve] --port 9229 --data ./data/idp [--seed seed.yaml] [--public-url URL] [--host 127.0.0.1]
 *   node dist/main.js rotate-keys --pool <pool id> --data ./data/idp
 *   node dist/main.js admin-key --data ./data/idp
 *   node dist/main.js outbox --pool <pool id> --data ./data/idp
 *
 * Every option has an environment equivalent (IDP_PORT, IDP_DATA_DIR, IDP_SEED, IDP_PUBLIC_URL,
 * IDP_HOST, IDP_LOG_LEVEL, IDP_REGION, IDP_CORS_ORIGINS, IDP_ADMIN_ACCESS_KEY_ID + IDP_ADMIN_SECRET_ACCESS_KEY);
 * options win over the environment.
 */
import { parseArgs } from 'node:util';
import { envValue, exitWith, hostUrl, parseCorsOrigins, parsePort, runService, UsageError, type Env } from '@ianode/service';
import { DEFAULT_PORT, type IdpConfig } from './config.js';
import { createContext } from './context.js';
import { openDatabase } from './db/database.js';
import { outbox as outboxOf } from './model/confirmation-codes.js';
import { findPool } from './model/pools.js';
import { createIdpServer, type IdpServer } from './server.js';

const NAME = 'ianode-idp';

const USAGE = `usage:
  ianode-idp [serve] [--port 9229] [--host 127.0.0.1] [--data ./data/idp] [--seed FILE] [--public-url URL] [--user-created-webhook URL] [--log-level info] [--cors-origins ORIGINS]
  ianode-idp rotate-keys --pool POOL_ID [--data ./data/idp]
  ianode-idp admin-key [--data ./data/idp]
  ianode-idp outbox --pool POOL_ID [--data ./data/idp]`;

const env: Env = process.env;

function options(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      data: { type: 'string' },
      seed: { type: 'string' },
      'public-url': { type: 'string' },
      'user-created-webhook': { type: 'string' },
      'log-level': { type: 'string' },
      'cors-origins': { type: 'string' },
      region: { type: 'string' },
      pool: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  return { values, command: positionals[0] ?? 'serve' };
}

function adminFromEnv(): IdpConfig['adminCredentials'] {
  const id = env.IDP_ADMIN_ACCESS_KEY_ID;
  const secret = env.IDP_ADMIN_SECRET_ACCESS_KEY;
  if (!id && !secret) return undefined;
  if (!id || !secret) throw new Error('set both IDP_ADMIN_ACCESS_KEY_ID and IDP_ADMIN_SECRET_ACCESS_KEY, or neither');
  return { accessKeyId: id, secretAccessKey: secret };
}

async function serve(v: ReturnType<typeof options>['values']): Promise<IdpServer> {
  const port = parsePort(v.port ?? envValue(env, 'IDP_PORT') ?? String(DEFAULT_PORT), v.port === undefined ? 'IDP_PORT' : '--port');
  const seed = v.seed ?? env.IDP_SEED;
  const publicUrl = v['public-url'] ?? env.IDP_PUBLIC_URL;
  const region = v.region ?? env.IDP_REGION;
  const adminCredentials = adminFromEnv();
  let corsOrigins: string[];
  try {
    // Comma-separated origins whose browser pages may call the IdP, or *; default none.
    corsOrigins = parseCorsOrigins(v['cors-origins'] ?? envValue(env, 'IDP_CORS_ORIGINS'), v['cors-origins'] === undefined ? 'IDP_CORS_ORIGINS' : '--cors-origins');
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const webhook = v['user-created-webhook'] ?? envValue(env, 'IDP_USER_CREATED_WEBHOOK_URL');
  if (webhook !== undefined && !/^https?:\/\//i.test(webhook)) throw new Error(`the user-creation webhook must be an http(s) URL, got ${JSON.stringify(webhook)}`);
  const server = await createIdpServer({
    dataDir: v.data ?? env.IDP_DATA_DIR ?? './data/idp',
    ...(publicUrl ? { publicUrl } : {}),
    ...(seed ? { seed } : {}),
    ...(region ? { region } : {}),
    ...(adminCredentials ? { adminCredentials } : {}),
    corsOrigins,
    log: { level: v['log-level'] ?? env.IDP_LOG_LEVEL ?? 'info' },
    ...(webhook ? { userCreatedWebhook: { url: webhook, ...(env.IDP_USER_CREATED_AUDIENCE ? { audience: env.IDP_USER_CREATED_AUDIENCE } : {}) } } : {}),
  });
  if (server.admin.generated) {
    // Printed once, on the start that generated it; never written to the log.
    process.stdout.write(
      `\nIdP admin credentials (generated now, shown once; sign admin calls with them):\n` +
        `  export AWS_ACCESS_KEY_ID=${server.admin.accessKeyId}\n` +
        `  export AWS_SECRET_ACCESS_KEY=${server.admin.secretAccessKey}\n` +
        // Signatures must be scoped to the IdP's region.
        `  export AWS_DEFAULT_REGION=${server.context.region}\n\n`,
    );
  }
  const host = v.host ?? env.IDP_HOST ?? '127.0.0.1';
  const url = await server.listen({ port, host });
  for (const p of server.seedReport?.pools ?? []) {
    server.app.log.info({ pool: p.id, clients: p.clients, users: p.users.length, created: p.created }, 'seeded pool');
  }
  const address = server.app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  // One plain line whatever the log level, for people and for scripts waiting on the start.
  process.stdout.write(`${NAME}: listening on ${hostUrl(host, bound)}, issuer base ${url}\n`);
  return server;
}

async function rotateKeys(v: ReturnType<typeof options>['values']): Promise<void> {
  if (!v.pool) throw new Error('rotate-keys needs --pool POOL_ID');
  const db = openDatabase(v.data ?? env.IDP_DATA_DIR ?? './data/idp');
  try {
    const ctx = createContext(db, { dataDir: '' });
    if (!findPool(db, v.pool)) throw new Error(`user pool ${v.pool} does not exist`);
    const { kid, previousKid } = await ctx.keys.rotate(v.pool);
    process.stdout.write(`pool ${v.pool}: new signing key ${kid}; ${previousKid ?? 'no key'} stays published until its tokens expire\n`);
  } finally {
    db.close();
  }
}

function adminKey(v: ReturnType<typeof options>['values']): void {
  const db = openDatabase(v.data ?? env.IDP_DATA_DIR ?? './data/idp');
  try {
    const { accessKeyId, secretAccessKey } = createContext(db, { dataDir: '' }).admin;
    process.stdout.write(`export AWS_ACCESS_KEY_ID=${accessKeyId}\nexport AWS_SECRET_ACCESS_KEY=${secretAccessKey}\n`);
  } finally {
    db.close();
  }
}

/** The live sign-up and reset codes of a pool (the IdP sends no mail), one line each. */
function outbox(v: ReturnType<typeof options>['values']): void {
  if (!v.pool) throw new Error('outbox needs --pool POOL_ID');
  const db = openDatabase(v.data ?? env.IDP_DATA_DIR ?? './data/idp');
  try {
    if (!findPool(db, v.pool)) throw new Error(`user pool ${v.pool} does not exist`);
    const messages = outboxOf(db, v.pool, Date.now());
    if (messages.length === 0) process.stdout.write(`pool ${v.pool}: no pending codes\n`);
    for (const m of messages) {
      process.stdout.write(`${m.username}\t${m.purpose}\t${m.code}\t${m.destination ?? '-'}\texpires ${new Date(m.expiresAt).toISOString()}\n`);
    }
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const { values, command } = options(process.argv.slice(2));
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  switch (command) {
    case 'serve':
      // Exit 1 for every failed start, as the IdP always has (the others exit 2).
      await runService({ name: NAME, usage: USAGE, start: () => serve(values), log: (server) => server.app.log, exitCodes: { usage: 1, start: 1 } });
      return;
    case 'rotate-keys':
      return rotateKeys(values);
    case 'admin-key':
      return adminKey(values);
    case 'outbox':
      return outbox(values);
    default:
      exitWith(NAME, `unknown command ${command}`, { code: 1, usage: USAGE });
  }
}

main().catch((err: unknown) => exitWith(NAME, err instanceof Error ? err.message : String(err), { code: 1 }));
