#!/usr/bin/env node
/**
 * Entry point: `node dist/main.js [--config config.yaml] [--port 3030] [--host 127.0.0.1] [--wait 30]`.
 * Environment (SPEC §1): JWKS_URL (unset or `disabled` = open mode), OPENID_PROVIDER_URL,
 * USER_ATTRIBUTES_URL, ATTRIBUTE_HIERARCHY_URL, TOKEN_CLIENT_IDS (required in secure mode);
 * also ACCEPT_ACCESS_TOKENS, REVOCATION_URL, USER_CLAIMS, GROUPS_KEY, TOKEN_AUDIENCE, LOG_LEVEL,
 * PORT, HOST. The environment wins over the file's `security` section.
 */
import { parseArgs } from 'node:util';
import { redactAuthorization } from '@ianode/auth';
import { configFromFileAndEnv, DEFAULT_PORT } from './config.js';
import { createGraphServer } from './server.js';

const USAGE = `usage: ianode-graph [--config FILE.yaml|json] [--port ${DEFAULT_PORT}] [--host 127.0.0.1] [--wait SECONDS]
environment: JWKS_URL (unset/disabled = open mode), OPENID_PROVIDER_URL, USER_ATTRIBUTES_URL, ATTRIBUTE_HIERARCHY_URL, TOKEN_CLIENT_IDS (secure mode), ACCEPT_ACCESS_TOKENS, REVOCATION_URL, LOG_LEVEL`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      config: { type: 'string', short: 'c' },
      port: { type: 'string', default: process.env.PORT ?? String(DEFAULT_PORT) },
      host: { type: 'string', default: process.env.HOST ?? '127.0.0.1' },
      wait: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number, got ${values.port}`);
  const waitMs = values.wait === undefined ? 0 : Number(values.wait) * 1000;
  if (!Number.isFinite(waitMs) || waitMs < 0) fail(`--wait must be a number of seconds, got ${values.wait}`);
  const input = await configFromFileAndEnv(values.config).catch((error: unknown) => fail((error as Error).message));
  const server = await createGraphServer(input, { logger: { level: process.env.LOG_LEVEL ?? 'info' }, waitForAccessServiceMs: waitMs }).catch(
    (error: unknown) => fail(error instanceof Error ? error.message : String(error), { usage: false }),
  );
  const url = await server.listen({ port, host: values.host }).catch((error: unknown) => fail(`cannot listen on ${values.host}:${port}: ${String(error)}`, { usage: false }));
  server.app.log.info({ url, dataset: server.config.dataset.name, mode: server.security.secure ? 'secure' : 'open' }, 'graph server listening');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, 'stopping');
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** Exit 2 with the message; the usage text only for mistakes in the command line or config. */
function fail(message: string, { usage = true }: { usage?: boolean } = {}): never {
  console.error(`ianode-graph: ${redactAuthorization(message)}${usage ? `\n${USAGE}` : ''}`);
  process.exit(2);
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) await main();
