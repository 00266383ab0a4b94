#!/usr/bin/env node
/**
 * Entry point: `node dist/main.js --port 8091 --data ./data/access --seed seed/demo.yaml [--config access.yaml]`
 * (`--config`, or ACCESS_CONFIG: provisioning rules and IdP notifications, src/provisioning.ts, and
 * `compat: reference`, src/compat.ts).
 * Environment: OPENID_PROVIDER_URL and/or JWKS_URL (one is required), TOKEN_CLIENT_IDS (required:
 * the app client ids whose ID tokens are accepted; TOKEN_AUDIENCE is the older name),
 * ACCEPT_ACCESS_TOKENS (true/false), LINK_BY_EMAIL (true/false), GROUPS_KEY (default cognito:groups),
 * ADMIN_GROUP (default ianode_admin), USER_CLAIMS (comma-separated display-name claims), CORS_ORIGINS
 * (comma-separated origins whose browser pages may call the service, or *; default none), LOG_LEVEL, HOST.
 */
import { envFlag, envList, envValue, parseCorsOrigins, parseOptions, parsePort, runService, UsageError } from '@ianode/service';
import { DEFAULT_ADMIN_GROUP, DEFAULT_PORT } from './config.js';
import { readAccessConfigFile } from './provisioning.js';
import { createAccessServer, type AccessServer } from './server.js';

const USAGE = `usage: ianode-access [--port 8091] [--host 127.0.0.1] [--data ./data/access] [--seed seed.yaml] [--config access.yaml]
environment: OPENID_PROVIDER_URL and/or JWKS_URL (required), TOKEN_CLIENT_IDS (required), ACCEPT_ACCESS_TOKENS, LINK_BY_EMAIL, REVOCATION_URL, ACCESS_CONFIG,
             GROUPS_KEY, ADMIN_GROUP, USER_CLAIMS, CORS_ORIGINS, LOG_LEVEL`;

async function start(): Promise<AccessServer | undefined> {
  const env = process.env;
  const values = parseOptions({
    port: { type: 'string', default: envValue(env, 'PORT') ?? String(DEFAULT_PORT) },
    host: { type: 'string', default: envValue(env, 'HOST') ?? '127.0.0.1' },
    data: { type: 'string', default: envValue(env, 'DATA_DIR') ?? './data/access' },
    seed: { type: 'string' },
    // provisioning rules and IdP notifications (docs/operations.md "Provisioning users")
    config: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    console.log(USAGE);
    return undefined;
  }
  const port = parsePort(values.port);
  const jwksUrl = envValue(env, 'JWKS_URL');
  const openIdProviderUrl = envValue(env, 'OPENID_PROVIDER_URL');
  if (jwksUrl === undefined && openIdProviderUrl === undefined) {
    throw new UsageError('set OPENID_PROVIDER_URL (the issuer, e.g. http://localhost:9229/local_abcd1234) or JWKS_URL: the access service always verifies tokens');
  }
  const clientIds = [...(envList(env, 'TOKEN_CLIENT_IDS') ?? []), ...(envList(env, 'TOKEN_AUDIENCE') ?? [])];
  if (clientIds.length === 0) {
    throw new UsageError('set TOKEN_CLIENT_IDS to the app client ids whose ID tokens are accepted (comma-separated): tokens of any other client are refused');
  }
  const linkByEmail = envFlag(env, 'LINK_BY_EMAIL') ?? false;
  const revocationUrl = envValue(env, 'REVOCATION_URL');
  const userClaims = envList(env, 'USER_CLAIMS');
  let corsOrigins: string[];
  try {
    corsOrigins = parseCorsOrigins(envValue(env, 'CORS_ORIGINS'), 'CORS_ORIGINS');
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const configPath = values.config ?? envValue(env, 'ACCESS_CONFIG');
  const file = configPath === undefined ? undefined : readAccessConfigFile(configPath, env);
  const server = await createAccessServer({
    clientIds,
    acceptAccessTokens: envFlag(env, 'ACCEPT_ACCESS_TOKENS') ?? false,
    linkByEmail,
    ...(revocationUrl === undefined ? {} : { revocationUrl }),
    dataDir: values.data,
    ...(values.seed === undefined ? {} : { seed: values.seed }),
    ...(file === undefined ? {} : { provisioning: file.provisioning }),
    ...(file?.compat === undefined ? {} : { compat: file.compat }),
    ...(jwksUrl === undefined ? {} : { jwksUrl }),
    ...(openIdProviderUrl === undefined ? {} : { openIdProviderUrl }),
    groupsClaim: envValue(env, 'GROUPS_KEY') ?? 'cognito:groups',
    adminGroup: envValue(env, 'ADMIN_GROUP') ?? DEFAULT_ADMIN_GROUP,
    ...(userClaims === undefined ? {} : { userClaims }),
    corsOrigins,
    logger: { level: envValue(env, 'LOG_LEVEL') ?? 'info' },
  });

  const log = server.app.log;
  const created = Object.entries(server.seeded.created).filter(([, names]) => names.length > 0);
  if (created.length > 0) log.info({ seed: values.seed, created: server.seeded.created }, 'seed applied');
  const unlinked = server.directory.unlinkedCount();
  if (unlinked > 0) {
    log.info(
      { unlinked, linkByEmail },
      'directory entries not yet linked to a token identity (iss, sub): linked on first sight by verified e-mail when LINK_BY_EMAIL=true, else by PUT /users/{id}/subject',
    );
  }
  const url = await server.listen({ port, host: values.host }).catch((error: unknown) => {
    throw new Error(`cannot listen on ${values.host}:${port}: ${String(error)}`, { cause: error });
  });
  log.info({ url, data: values.data, issuer: server.verifier.issuer ?? null, jwksUrl: jwksUrl ?? null }, 'access service listening');
  if (file?.compat !== undefined) {
    const { attributeNames, unauthenticatedLookup, trustedNetworks } = file.compat;
    log.info({ attributeNames }, 'compat: reference: lookups answer in the reference access service\'s format');
    if (unauthenticatedLookup) {
      log.warn(
        { trustedNetworks: trustedNetworks.length > 0 ? trustedNetworks : 'loopback and private addresses' },
        'compat.unauthenticatedLookup: /users/lookup and /users/retrieve answer WITHOUT a token to these client addresses',
      );
    }
  }
  server.verifier.warmUp().catch((error: unknown) => {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    log.warn({ cause }, 'token keys not reachable yet: authenticated requests answer 503 until they are');
  });
  return server;
}

await runService({
  name: 'ianode-access',
  usage: USAGE,
  start,
  log: (server) => server.app.log,
});
