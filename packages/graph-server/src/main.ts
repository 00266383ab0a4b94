#!/usr/bin/env node
/**
 * Entry point: `node dist/main.js [--config config.yaml] [--port 3030] [--host 127.0.0.1] [--wait 30]`.
 * Environment (SPEC §1): JWKS_URL (unset or `disabled` = open mode), OPENID_PROVIDER_URL,
 * USER_ATTRIBUTES_URL, ATTRIBUTE_HIERARCHY_URL (or the reference's ABAC_HIERARCHIES_URL),
 * TOKEN_CLIENT_IDS (required in secure mode);
 * also ACCEPT_ACCESS_TOKENS, REVOCATION_URL, USER_CLAIMS, GROUPS_KEY, TOKEN_AUDIENCE, LOG_LEVEL,
 * PORT, HOST. The environment wins over the file's `security` section.
 */
import { envValue, parseOptions, parsePort, runService, UsageError } from '@ianode/service';
import { configFromFileAndEnv, DEFAULT_PORT } from './config.js';
import type { GraphServer } from './server.js';

const USAGE = `usage: ianode-graph [--config FILE.yaml|json] [--port ${DEFAULT_PORT}] [--host 127.0.0.1] [--wait SECONDS]
environment: JWKS_URL (unset/disabled = open mode), OPENID_PROVIDER_URL, USER_ATTRIBUTES_URL, ATTRIBUTE_HIERARCHY_URL (alias ABAC_HIERARCHIES_URL), TOKEN_CLIENT_IDS (secure mode), ACCEPT_ACCESS_TOKENS, REVOCATION_URL, LOG_LEVEL`;

/** Mistakes in the command line or the configuration file exit 2 with the usage text; a failed start (store, access service, port) without it. */
async function start(): Promise<GraphServer | undefined> {
  const values = parseOptions({
    config: { type: 'string', short: 'c' },
    port: { type: 'string', default: envValue(process.env, 'PORT') ?? String(DEFAULT_PORT) },
    host: { type: 'string', default: envValue(process.env, 'HOST') ?? '127.0.0.1' },
    wait: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    console.log(USAGE);
    return undefined;
  }
  const port = parsePort(values.port);
  const waitMs = values.wait === undefined ? 0 : Number(values.wait) * 1000;
  if (!Number.isFinite(waitMs) || waitMs < 0) throw new UsageError(`--wait must be a number of seconds, got ${values.wait}`);
  // The one place the environment becomes configuration (configFromEnv: docs/graph-server.md "Configuration").
  const input = await configFromFileAndEnv(values.config, process.env).catch((error: unknown) => {
    throw new UsageError((error as Error).message, { cause: error });
  });
  // The server's code (Fastify, the query engine, the store) is loaded once the command line and the
  // configuration are read: `--help` and a usage error do not wait for it.
  const { createGraphServer } = await import('./server.js');
  const server = await createGraphServer(input, { logger: { level: envValue(process.env, 'LOG_LEVEL') ?? 'info' }, waitForAccessServiceMs: waitMs, queryWorkerStart: 'eager' });
  const url = await server.listen({ port, host: values.host }).catch((error: unknown) => {
    throw new Error(`cannot listen on ${values.host}:${port}: ${String(error)}`, { cause: error });
  });
  server.app.log.info({ url, datasets: [...server.datasets.keys()], mode: server.security.secure ? 'secure' : 'open' }, 'graph server listening');
  return server;
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  await runService({ name: 'ianode-graph', usage: USAGE, start, log: (server) => server.app.log });
}
