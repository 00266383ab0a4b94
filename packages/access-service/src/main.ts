#!/usr/bin/env node
/**
 * Entry point: `node dist/main.js --port 8091 --data ./data/access --seed seed/demo.yaml`.
 * Environment: OPENID_PROVIDER_URL and/or JWKS_URL (one is required), TOKEN_CLIENT_IDS (required:
 * the app client ids whose ID tokens are accepted; TOKEN_AUDIENCE is the older name),
 * ACCEPT_ACCESS_TOKENS (true/false), LINK_BY_EMAIL (true/false), GROUPS_KEY (default cognito:groups),
 * ADMIN_GROUP (default ianode_admin), USER_CLAIMS (comma-separated display-name claims), LOG_LEVEL, HOST.
 */
import { parseArgs } from 'node:util';
import { redactAuthorization } from '@ianode/auth';
import { DEFAULT_ADMIN_GROUP, DEFAULT_PORT } from './config.js';
import { createAccessServer } from './server.js';

const USAGE = `usage: ianode-access [--port 8091] [--host 127.0.0.1] [--data ./data/access] [--seed seed.yaml]
environment: OPENID_PROVIDER_URL and/or JWKS_URL (required), TOKEN_CLIENT_IDS (required), ACCEPT_ACCESS_TOKENS, LINK_BY_EMAIL, REVOCATION_URL,
             GROUPS_KEY, ADMIN_GROUP, USER_CLAIMS, LOG_LEVEL`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.PORT ?? String(DEFAULT_PORT) },
      host: { type: 'string', default: process.env.HOST ?? '127.0.0.1' },
      data: { type: 'string', default: process.env.DATA_DIR ?? './data/access' },
      seed: { type: 'string' },
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
  const env = (name: string) => (process.env[name] === undefined || process.env[name] === '' ? undefined : process.env[name]);
  const jwksUrl = env('JWKS_URL');
  const openIdProviderUrl = env('OPENID_PROVIDER_URL');
  if (jwksUrl === undefined && openIdProviderUrl === undefined) {
    fail('set OPENID_PROVIDER_URL (the issuer, e.g. http://localhost:9229/local_abcd1234) or JWKS_URL: the access service always verifies tokens');
  }
  const clientIds = [env('TOKEN_CLIENT_IDS'), env('TOKEN_AUDIENCE')]
    .flatMap((list) => (list === undefined ? [] : list.split(',')))
    .map((c) => c.trim())
    .filter(Boolean);
  if (clientIds.length === 0) {
    fail('set TOKEN_CLIENT_IDS to the app client ids whose ID tokens are accepted (comma-separated): tokens of any other client are refused');
  }
  const server = await createAccessServer({
    clientIds,
    acceptAccessTokens: env('ACCEPT_ACCESS_TOKENS') === 'true',
    linkByEmail: env('LINK_BY_EMAIL') === 'true',
    ...(env('REVOCATION_URL') === undefined ? {} : { revocationUrl: env('REVOCATION_URL')! }),
    dataDir: values.data,
    ...(values.seed === undefined ? {} : { seed: values.seed }),
    ...(jwksUrl === undefined ? {} : { jwksUrl }),
    ...(openIdProviderUrl === undefined ? {} : { openIdProviderUrl }),
    groupsClaim: env('GROUPS_KEY') ?? 'cognito:groups',
    adminGroup: env('ADMIN_GROUP') ?? DEFAULT_ADMIN_GROUP,
    ...(env('USER_CLAIMS') === undefined ? {} : { userClaims: env('USER_CLAIMS')!.split(',').map((c) => c.trim()).filter(Boolean) }),
    logger: { level: env('LOG_LEVEL') ?? 'info' },
  }).catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));

  const log = server.app.log;
  const created = Object.entries(server.seeded.created).filter(([, names]) => names.length > 0);
  if (created.length > 0) log.info({ seed: values.seed, created: server.seeded.created }, 'seed applied');
  const unlinked = server.directory.unlinkedCount();
  if (unlinked > 0) {
    log.info(
      { unlinked, linkByEmail: env('LINK_BY_EMAIL') === 'true' },
      'directory entries not yet linked to a token identity (iss, sub): linked on first sight by verified e-mail when LINK_BY_EMAIL=true, else by PUT /users/{id}/subject',
    );
  }
  const url = await server.listen({ port, host: values.host }).catch((error: unknown) => fail(`cannot listen on ${values.host}:${port}: ${String(error)}`));
  log.info({ url, data: values.data, issuer: server.verifier.issuer ?? null, jwksUrl: jwksUrl ?? null }, 'access service listening');
  server.verifier.warmUp().catch((error: unknown) => {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    log.warn({ cause }, 'token keys not reachable yet: authenticated requests answer 503 until they are');
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

function fail(message: string): never {
  console.error(`ianode-access: ${redactAuthorization(message)}\n${USAGE}`);
  process.exit(2);
}

await main();
