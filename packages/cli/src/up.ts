/**
 * `ianode up`: the whole node in ONE process (decision: in-process servers, not child processes —
 * one Ctrl-C, one log stream, no port-readiness polling): the IdP (9229), the access service (8091)
 * and the graph server (3030) in secure mode, durable storage under ./data, the demo pool and
 * directory seeded, the demo labelled data loaded once.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAccessServer } from '@ianode/access-service';
import { configFromFileAndEnv, createGraphServer, type GraphServer } from '@ianode/graph-server';
import { createIdpServer } from '@ianode/idp';

export const DEMO_POOL = 'local_ianode01';
export const DEMO_CLIENT = 'ianodedemoclient0000000001';
export const DEMO_PASSWORD = 'Ianode-demo-1';

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
}

export function upOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): UpOptions {
  const port = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`${name} must be a port number, got ${env[name]}`);
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
  };
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
  graph: GraphServer;
  urls: { idp: string; access: string; graph: string };
  /** The `export` lines of the banner (name → shell text); never a secret an operator chose. */
  exports: Record<string, string>;
  close(): Promise<void>;
}

export async function up(options: UpOptions): Promise<RunningNode> {
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const admin = await adminKey(options.dataDir);
  const local = (port: number) => `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  const publicIdp = `http://localhost:${options.idpPort}`;
  const log = { level: options.logLevel };
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => {});
  };
  try {
    const idp = await createIdpServer({
      dataDir: path.join(options.dataDir, 'idp'),
      seed: path.join(REPO_ROOT, 'packages/idp/seed/demo.yaml'),
      publicUrl: publicIdp,
      adminCredentials: admin,
      log,
    });
    closers.push(() => idp.close());
    await idp.listen({ port: options.idpPort, host: options.host });
    const issuer = `${publicIdp}/${DEMO_POOL}`;
    const jwksUrl = `${local(options.idpPort)}/${DEMO_POOL}/.well-known/jwks.json`;
    const revocationUrl = `${local(options.idpPort)}/${DEMO_POOL}/revocations`;

    const access = await createAccessServer({
      dataDir: path.join(options.dataDir, 'access'),
      seed: path.join(REPO_ROOT, 'packages/access-service/seed/demo.yaml'),
      openIdProviderUrl: issuer,
      jwksUrl,
      // The demo pool's client only; the seeded entries are claimed by the IdP users whose verified
      // e-mail address they carry (first identity to claim an address owns it).
      clientIds: [DEMO_CLIENT],
      linkByEmail: true,
      revocationUrl,
      logger: log,
    });
    closers.push(() => access.close());
    await access.listen({ port: options.accessPort, host: options.host });

    const env = {
      ...process.env,
      DATA_DIR: options.dataDir,
      JWKS_URL: jwksUrl,
      REVOCATION_URL: revocationUrl,
      OPENID_PROVIDER_URL: issuer,
      USER_ATTRIBUTES_URL: local(options.accessPort),
    };
    const input = await configFromFileAndEnv(options.config, env);
    const graph = await createGraphServer(input, { logger: log, waitForAccessServiceMs: 10_000 });
    closers.push(() => graph.close());
    if (options.demoData !== undefined) {
      const marker = path.join(options.dataDir, 'demo-data-loaded.json');
      if (!existsSync(marker)) {
        const result = await graph.store.load(await readFile(options.demoData, 'utf8'), { format: 'application/trig' });
        await writeFile(marker, JSON.stringify({ file: options.demoData, ...result, at: new Date().toISOString() }) + '\n', { mode: 0o600 });
        process.stdout.write(`ianode: demo data loaded (${result.quads} quads, ${result.labels} labels) from ${path.relative(process.cwd(), options.demoData)}\n`);
      }
    }
    await graph.listen({ port: options.graphPort, host: options.host });
    const urls = { idp: publicIdp, access: `http://localhost:${options.accessPort}`, graph: `http://localhost:${options.graphPort}` };
    const exports = bannerExports({
      env: process.env,
      urls,
      adminKeyFile: path.join(options.dataDir, 'ianode-admin.json'),
      accessKeyId: admin.accessKeyId,
    });
    return { graph, urls, exports, close };
  } catch (error) {
    await close();
    throw error;
  }
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
    // The IdP checks the credential scope: the AWS CLI must sign for the IdP's region.
    AWS_DEFAULT_REGION: 'us-east-1',
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
    '# then (SPEC §9):',
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
