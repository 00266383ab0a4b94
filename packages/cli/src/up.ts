/**
 * `ianode up`: the whole node as three child processes under one supervisor (supervisor.ts): the
 * IdP (9229), the access service (8091) and the graph server (3030) in secure mode, each its own
 * package's entry point, so a heavy graph query never delays a sign-in. Durable storage under
 * ./data, the demo pool and directory seeded, the demo labelled data loaded once.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFromFileAndEnv, resolveConfig, storeTuning } from '@ianode/graph-server';
import { openStore } from '@ianode/store';
import { DEMO_CLIENT, DEMO_PASSWORD, DEMO_POOL } from './demo.js';
import { serviceEntry } from './service-entry.js';
import { Supervisor, type ServiceSpec, type SupervisorOptions } from './supervisor.js';

export { DEMO_CLIENT, DEMO_PASSWORD, DEMO_POOL, serviceEntry };

/** The identity provider's region when IDP_REGION is unset (the IdP's own default too). */
export const DEFAULT_REGION = 'us-east-1';

/** The repository root (packages/cli/dist/up.js -> ../../..). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface UpOptions {
  dataDir: string;
  idpPort: number;
  accessPort: number;
  graphPort: number;
  host: string;
  logLevel: string;
  config: string;
  demoData: string | undefined;
  /** The IdP's region: its ARNs, and the scope admin requests must be signed for (AWS_DEFAULT_REGION). */
  region: string;
}

export function upOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): UpOptions {
  const port = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    // Not 0: each service is told the others' ports before they start.
    if (!Number.isInteger(value) || value < 1 || value > 65535) throw new Error(`${name} must be a port number (1-65535), got ${env[name]}`);
    return value;
  };
  return {
    dataDir: path.resolve(env.IANODE_DATA_DIR ?? './data'),
    idpPort: port('IDP_PORT', 9229),
    accessPort: port('ACCESS_PORT', 8091),
    graphPort: port('GRAPH_PORT', 3030),
    host: env.IANODE_HOST ?? '127.0.0.1',
    logLevel: env.LOG_LEVEL ?? 'warn',
    config: env.IANODE_CONFIG ?? path.join(REPO_ROOT, 'config/graph-secure.yaml'),
    demoData: env.IANODE_DEMO_DATA === 'none' ? undefined : (env.IANODE_DEMO_DATA ?? path.join(REPO_ROOT, 'config/demo-data.trig')),
    region: region(env.IDP_REGION),
  };
}

function region(value: string | undefined): string {
  if (value === undefined || value === '') return DEFAULT_REGION;
  // An AWS region name (us-east-1, eu-west-2, ap-southeast-3, us-gov-west-1, …): it goes into ARNs
  // and into the printed export line.
  if (!/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(value)) throw new Error(`IDP_REGION must be a region name like us-east-1, got ${value}`);
  return value;
}

interface AdminKey {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The IdP admin key: generated on the first start, kept in <data>/ianode-admin.json (mode 600). */
async function adminKey(dataDir: string): Promise<AdminKey> {
  const file = path.join(dataDir, 'ianode-admin.json');
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as AdminKey;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const id = 'AKIA' + [...randomBytes(16)].map((b) => alphabet[b % 32]).join('');
  const key: AdminKey = { accessKeyId: id, secretAccessKey: randomBytes(30).toString('base64') };
  await writeFile(file, JSON.stringify(key, null, 2) + '\n', { mode: 0o600 });
  return key;
}

export interface RunningNode {
  /** The three children; `start()` it, `stop()` it, await `done` for the exit code. */
  supervisor: Supervisor;
  /** What the supervisor runs, in start order: idp, access, graph. */
  services: readonly ServiceSpec[];
  urls: { idp: string; access: string; graph: string };
  /** The `export` lines of the banner (name → shell text); never a secret an operator chose. */
  exports: Record<string, string>;
}

/** Past the graph server's own grace for in-flight requests, a stop waits this long before SIGKILL. */
const GRAPH_STOP_MARGIN_MS = 15_000;

/**
 * Everything before the children start: the data folder, the admin key, the demo data loaded into
 * the graph server's store folder (once, marked by <data>/demo-data-loaded.json), and the three
 * children's command lines. Nothing listens yet: `node.supervisor.start()` starts them in order.
 */
export async function up(options: UpOptions, supervisorOptions: SupervisorOptions = {}): Promise<RunningNode> {
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const admin = await adminKey(options.dataDir);
  const local = (port: number) => `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  const publicIdp = `http://localhost:${options.idpPort}`;
  const issuer = `${publicIdp}/${DEMO_POOL}`;
  const jwksUrl = `${local(options.idpPort)}/${DEMO_POOL}/.well-known/jwks.json`;
  const revocationUrl = `${local(options.idpPort)}/${DEMO_POOL}/revocations`;
  // The children get this process's environment (LOG_LEVEL, QUERY_TIMEOUT_MS, IDP_ADMIN_PASSWORD, …)
  // with what `up` decides set over it; the IdP admin key goes to the IdP only.
  const { IDP_ADMIN_ACCESS_KEY_ID: _id, IDP_ADMIN_SECRET_ACCESS_KEY: _secret, ...base } = process.env;
  // The local demo lets a browser page of any origin call the three services (bearer tokens only,
  // never cookies); CORS_ORIGINS set (a list, or empty for none) replaces that for all three.
  const corsOrigins = process.env.CORS_ORIGINS ?? '*';

  const graphEnv: NodeJS.ProcessEnv = {
    // glibc keeps freed array buffers below its (self-raising) mmap threshold in its heap; a fixed
    // threshold gives the memory of deleted data and compactions back (bench/README.md).
    MALLOC_MMAP_THRESHOLD_: '131072',
    ...base,
    DATA_DIR: options.dataDir,
    JWKS_URL: jwksUrl,
    REVOCATION_URL: revocationUrl,
    OPENID_PROVIDER_URL: issuer,
    USER_ATTRIBUTES_URL: local(options.accessPort),
    CORS_ORIGINS: corsOrigins,
    LOG_LEVEL: options.logLevel,
  };
  const graphConfig = resolveConfig(await configFromFileAndEnv(options.config, graphEnv));
  if (options.demoData !== undefined) await loadDemoDataOnce(options, graphConfig);

  const services: ServiceSpec[] = [
    {
      name: 'idp',
      command: process.execPath,
      args: [
        serviceEntry('@ianode/idp'), 'serve',
        '--port', String(options.idpPort), '--host', options.host,
        '--data', path.join(options.dataDir, 'idp'),
        '--seed', path.join(REPO_ROOT, 'packages/idp/seed/demo.yaml'),
        '--public-url', publicIdp,
        '--region', options.region,
        '--log-level', options.logLevel,
      ],
      // The region is the one the banner's AWS_DEFAULT_REGION names (given above, not inherited).
      env: {
        ...withoutKeys(base, ['IDP_REGION']),
        IDP_CORS_ORIGINS: corsOrigins,
        // The demo client's callback and sign-out URLs name the web console's port (seed/demo.yaml).
        GRAPH_PORT: String(options.graphPort),
        IDP_ADMIN_ACCESS_KEY_ID: admin.accessKeyId,
        IDP_ADMIN_SECRET_ACCESS_KEY: admin.secretAccessKey,
        // Users created in the IdP are announced to the access service, whose demo rule activates
        // members of ianode_read (config/access-demo.yaml; docs/operations.md "Provisioning users").
        IDP_USER_CREATED_WEBHOOK_URL: `${local(options.accessPort)}/provisioning/user-created`,
        IDP_USER_CREATED_AUDIENCE: 'ianode-access-service',
      },
      healthUrl: `${local(options.idpPort)}/health`,
      description: `identity provider on :${options.idpPort}`,
    },
    {
      name: 'access',
      command: process.execPath,
      args: [
        serviceEntry('@ianode/access-service'),
        '--port', String(options.accessPort), '--host', options.host,
        '--data', path.join(options.dataDir, 'access'),
        '--seed', path.join(REPO_ROOT, 'packages/access-service/seed/demo.yaml'),
        '--config', path.join(REPO_ROOT, 'config/access-demo.yaml'),
      ],
      env: {
        ...base,
        OPENID_PROVIDER_URL: issuer,
        JWKS_URL: jwksUrl,
        // The demo pool's client only; the seeded entries are claimed by the IdP users whose verified
        // e-mail address they carry (first identity to claim an address owns it).
        TOKEN_CLIENT_IDS: DEMO_CLIENT,
        TOKEN_AUDIENCE: '',
        ACCEPT_ACCESS_TOKENS: 'false',
        LINK_BY_EMAIL: 'true',
        REVOCATION_URL: revocationUrl,
        CORS_ORIGINS: corsOrigins,
        LOG_LEVEL: options.logLevel,
      },
      healthUrl: `${local(options.accessPort)}/health`,
      description: `access service on :${options.accessPort}`,
    },
    {
      name: 'graph',
      command: process.execPath,
      args: [serviceEntry('@ianode/graph-server'), '--config', options.config, '--port', String(options.graphPort), '--host', options.host, '--wait', '10'],
      env: graphEnv,
      // Liveness: a graph server that serves while the access service restarts is not restarted.
      healthUrl: `${local(options.graphPort)}/$/ping`,
      description: `graph server on :${options.graphPort} (secure mode)`,
      stopTimeoutMs: graphConfig.limits.shutdownGraceMs + GRAPH_STOP_MARGIN_MS,
    },
  ];
  const supervisor = new Supervisor(services, supervisorOptions);
  const urls = { idp: publicIdp, access: `http://localhost:${options.accessPort}`, graph: `http://localhost:${options.graphPort}` };
  const exports = bannerExports({
    env: process.env,
    urls,
    adminKeyFile: path.join(options.dataDir, 'ianode-admin.json'),
    accessKeyId: admin.accessKeyId,
    region: options.region,
  });
  return { supervisor, services, urls, exports };
}

function withoutKeys(env: NodeJS.ProcessEnv, keys: string[]): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !keys.includes(k)));
}

/**
 * The demo data goes straight into the graph server's store folder, in this process, before the
 * graph server starts (it is the only writer then); the marker is written after the store has
 * closed, so a failed or interrupted load is retried on the next start.
 */
async function loadDemoDataOnce(options: UpOptions, config: ReturnType<typeof resolveConfig>): Promise<void> {
  const marker = path.join(options.dataDir, 'demo-data-loaded.json');
  if (options.demoData === undefined || existsSync(marker)) return;
  process.stdout.write(`ianode: loading the demo data (first start) from ${path.relative(process.cwd(), options.demoData)}…\n`);
  const text = await readFile(options.demoData, 'utf8');
  const store = await openStore({ dir: config.dataset.storage, defaultLabel: config.dataset.defaultLabel, lockPurpose: 'ianode up (demo data)', ...storeTuning(config.dataset) });
  let result;
  try {
    result = await store.load(text, { format: 'application/trig' });
  } finally {
    await store.close();
  }
  await writeFile(marker, JSON.stringify({ file: options.demoData, ...result, at: new Date().toISOString() }) + '\n', { mode: 0o600 });
  process.stdout.write(`ianode: demo data loaded (${result.quads} quads, ${result.labels} labels) from ${path.relative(process.cwd(), options.demoData)}\n`);
}

/**
 * The variables the banner tells a newcomer to export. Secrets are printed only when they are the
 * bundled demo values: the demo password is printed only while `IDP_ADMIN_PASSWORD` is unset (or is
 * the demo default); an operator's own password is never echoed. The IdP admin secret key is
 * generated per data folder and is never printed: the line reads it from its mode-600 file.
 */
export function bannerExports(input: {
  env: NodeJS.ProcessEnv;
  urls: { idp: string };
  adminKeyFile: string;
  accessKeyId: string;
  /** The IdP's region (default us-east-1). */
  region?: string;
}): Record<string, string> {
  const password = input.env.IDP_ADMIN_PASSWORD;
  const demoPassword = password === undefined || password === '' || password === DEMO_PASSWORD;
  return {
    USER_POOL_ID: DEMO_POOL,
    CLIENT_ID: DEMO_CLIENT,
    IDP_URL: input.urls.idp,
    // An operator-set password is referred to, not shown ("${IDP_ADMIN_PASSWORD:?…}" keeps the value
    // of the shell it is pasted into, and fails loudly there if it is unset).
    IDP_ADMIN_PASSWORD: demoPassword ? DEMO_PASSWORD : '"${IDP_ADMIN_PASSWORD:?set it to the password you started ianode with}"',
    ADMIN_USER_EMAIL: 'admin@ianode.local',
    USER_EMAIL: 'user@ianode.local',
    // The IdP checks the credential scope: the AWS CLI (AWS_DEFAULT_REGION) and the AWS SDKs
    // (AWS_REGION) must sign for the IdP's region; without one the CLI refuses to run at all.
    AWS_DEFAULT_REGION: input.region ?? DEFAULT_REGION,
    AWS_REGION: input.region ?? DEFAULT_REGION,
    AWS_ACCESS_KEY_ID: input.accessKeyId,
    AWS_SECRET_ACCESS_KEY: `"$(node -p 'require(process.argv[1]).secretAccessKey' ${shellQuote(input.adminKeyFile)})"`,
  };
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** What `ianode up` prints once everything listens: exports, then the next commands. */
export function banner(node: RunningNode, dataDir: string): string {
  const { urls, exports } = node;
  const port = (url: string) => new URL(url).port;
  return [
    '',
    `ianode is up (data in ${dataDir}):`,
    `  identity provider  ${urls.idp}      (JWKS ${urls.idp}/${exports.USER_POOL_ID}/.well-known/jwks.json)`,
    `  access service     ${urls.access}`,
    `  graph server       ${urls.graph}/ds   (secure mode)`,
    '',
    '# In another shell, paste:',
    ...Object.entries(exports).map(([k, v]) => `export ${k}=${v}`),
    '',
    '# then (the walk-through of README.md; docs/SPEC.md §9):',
    'cd packages/access-service',
    'source idp-local/fetch_id_token.sh $ADMIN_USER_EMAIL',
    `curl -H "Authorization: bearer $IDP_ID_TOKEN" localhost:${port(urls.access)}/whoami`,
    `curl localhost:${port(urls.idp)}/$USER_POOL_ID/.well-known/jwks.json`,
    `curl -H "Authorization: bearer $IDP_ID_TOKEN" localhost:${port(urls.graph)}/ds --data-urlencode 'query=SELECT ?s ?p ?o WHERE { ?s ?p ?o }'`,
    'source idp-local/fetch_id_token.sh $USER_EMAIL      # the same query shows the ordinary user less',
    '',
    'Ctrl-C stops all three; the next `npm start` reuses the data.',
    '',
  ].join('\n');
}
