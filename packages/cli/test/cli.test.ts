import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromFileAndEnv, loadConfigFile, resolveConfig } from '@ianode/graph-server';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { openStore } from '@ianode/store';
import { banner, bannerExports, DEMO_CLIENT, DEMO_PASSWORD, REPO_ROOT, up, upOptionsFromEnv } from '../src/up.js';

describe('ianode up options', () => {
  it('defaults to ./data and the SPEC ports, overridable by env', () => {
    expect(upOptionsFromEnv({})).toMatchObject({ idpPort: 9229, accessPort: 8091, graphPort: 3030, dataDir: path.resolve('./data') });
    expect(upOptionsFromEnv({ GRAPH_PORT: '4000', IANODE_DATA_DIR: '/tmp/x' })).toMatchObject({ graphPort: 4000, dataDir: '/tmp/x' });
    expect(() => upOptionsFromEnv({ IDP_PORT: 'nope' })).toThrow(/IDP_PORT/);
    // Each child is told the others' ports before it starts: no port 0.
    expect(() => upOptionsFromEnv({ GRAPH_PORT: '0' })).toThrow(/GRAPH_PORT/);
  });
  it('the identity provider region: IDP_REGION, else us-east-1; not a region name is an error', () => {
    expect(upOptionsFromEnv({}).region).toBe('us-east-1');
    expect(upOptionsFromEnv({ IDP_REGION: 'eu-west-2' }).region).toBe('eu-west-2');
    expect(upOptionsFromEnv({ IDP_REGION: 'us-gov-west-1' }).region).toBe('us-gov-west-1');
    expect(() => upOptionsFromEnv({ IDP_REGION: 'eu west' })).toThrow(/IDP_REGION/);
  });
});

describe('example configurations', () => {
  it('secure example resolves with the environment winning', async () => {
    const input = await configFromFileAndEnv(path.join(REPO_ROOT, 'config/graph-secure.yaml'), { JWKS_URL: 'http://idp/x/.well-known/jwks.json', DATA_DIR: '/d' });
    const config = resolveConfig(input);
    expect(config.security.jwksUrl).toBe('http://idp/x/.well-known/jwks.json');
    expect(config.dataset).toMatchObject({ name: 'ds', storage: '/d/ds', defaultLabel: '!', permissions: { read: 'ianode_read | ianode_admin', write: 'ianode_admin' } });
    expect(config.limits.queryTimeoutMs).toBe(60000);
    expect(config.security).toMatchObject({ clientIds: ['ianodedemoclient0000000001'], acceptAccessTokens: false });
  });
  it('open example has no JWKS', async () => {
    const config = resolveConfig(await configFromFileAndEnv(path.join(REPO_ROOT, 'config/graph-open.yaml'), {}));
    expect(config.security.jwksUrl).toBeUndefined();
  });
  it('${VAR} substitution (the one rule of @ianode/service): defaults, comments untouched, unset is an error', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ianode-config-'));
    try {
      const file = path.join(dir, 'graph.yaml');
      writeFileSync(file, 'limits:\n  queryTimeoutMs: ${X:-1}   # ${NOPE}\n# ${NOPE}\ndataset:\n  name: ${Y}\n');
      expect(await loadConfigFile(file, { Y: 'two' })).toEqual({ limits: { queryTimeoutMs: 1 }, dataset: { name: 'two' } });
      await expect(loadConfigFile(file, {})).rejects.toThrow(/dataset\.name: \$\{Y\}.*Y/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('start banner secrets (issue 13)', () => {
  const dir = () => mkdtempSync(path.join(tmpdir(), 'ianode-banner-'));
  const text = (exports: Record<string, string>) => Object.entries(exports).map(([k, v]) => `export ${k}=${v}`).join('\n');

  it('prints the demo password only while it is the bundled default, never an operator-set one', () => {
    const urls = { idp: 'http://localhost:9229' };
    const demo = bannerExports({ env: {}, urls, adminKeyFile: '/d/ianode-admin.json', accessKeyId: 'AKIAX' });
    expect(demo.IDP_ADMIN_PASSWORD).toBe(DEMO_PASSWORD);
    const own = bannerExports({ env: { IDP_ADMIN_PASSWORD: 'Operator-Secret-42' }, urls, adminKeyFile: '/d/ianode-admin.json', accessKeyId: 'AKIAX' });
    expect(text(own)).not.toContain('Operator-Secret-42');
    expect(own.IDP_ADMIN_PASSWORD).toContain('${IDP_ADMIN_PASSWORD');
  });

  it('never prints the generated AWS secret key, but the export line yields it in a shell', () => {
    const folder = dir();
    try {
      const file = path.join(folder, 'ianode-admin.json');
      writeFileSync(file, JSON.stringify({ accessKeyId: 'AKIAX', secretAccessKey: 'gener4ted/secret+key=' }));
      const exports = bannerExports({ env: {}, urls: { idp: 'http://localhost:9229' }, adminKeyFile: file, accessKeyId: 'AKIAX' });
      expect(text(exports)).not.toContain('gener4ted');
      const value = execFileSync('bash', ['-c', `${text(exports)}\nprintf '%s' "$AWS_SECRET_ACCESS_KEY"`], { encoding: 'utf8' });
      expect(value).toBe('gener4ted/secret+key=');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('start banner exports: the aws CLI and SDKs work straight away (issue 15)', () => {
  it('names the IdP region as AWS_DEFAULT_REGION (aws CLI) and AWS_REGION (SDKs)', () => {
    const input = { env: {}, urls: { idp: 'http://localhost:9229' }, adminKeyFile: '/d/ianode-admin.json', accessKeyId: 'AKIAX' };
    expect(bannerExports(input)).toMatchObject({ AWS_DEFAULT_REGION: 'us-east-1', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'AKIAX' });
    expect(bannerExports({ ...input, region: 'eu-west-2' })).toMatchObject({ AWS_DEFAULT_REGION: 'eu-west-2', AWS_REGION: 'eu-west-2' });
  });

  it('the banner prints them as export lines, after the lines the e2e harness reads', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'ianode-region-'));
    try {
      const options = upOptionsFromEnv({ IANODE_DATA_DIR: dataDir, IDP_REGION: 'eu-west-2', IANODE_DEMO_DATA: 'none' });
      const node = await up(options, { write: () => {} });
      const [idp] = node.services;
      // The IdP is told the region the banner names, not left to a default of its own.
      expect(idp!.args.join(' ')).toContain('--region eu-west-2');
      expect(idp!.env.IDP_REGION).toBeUndefined();
      const lines = banner(node, dataDir).split('\n').filter((l) => l.startsWith('export '));
      expect(lines.map((l) => l.split('=')[0])).toEqual(
        ['USER_POOL_ID', 'CLIENT_ID', 'IDP_URL', 'IDP_ADMIN_PASSWORD', 'ADMIN_USER_EMAIL', 'USER_EMAIL', 'AWS_DEFAULT_REGION', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'].map((k) => `export ${k}`),
      );
      expect(lines).toContain('export AWS_DEFAULT_REGION=eu-west-2');
      // In a shell they set what the aws CLI reads.
      const shell = execFileSync('bash', ['-c', `${lines.join('\n')}\nprintf '%s %s' "$AWS_DEFAULT_REGION" "$AWS_REGION"`], { encoding: 'utf8' });
      expect(shell).toBe('eu-west-2 eu-west-2');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('ianode up as three processes (issue 14)', () => {
  it('runs each service entry point in order; the IdP admin secret only in the IdP environment; demo data loaded once', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'ianode-up-'));
    try {
      const options = { ...upOptionsFromEnv({ IANODE_DATA_DIR: dataDir, IDP_PORT: '19001', ACCESS_PORT: '19002', GRAPH_PORT: '19003' }) };
      const node = await up(options, { write: () => {} });
      const [idp, access, graph] = node.services;
      expect(node.services.map((s) => s.name)).toEqual(['idp', 'access', 'graph']);
      expect(idp!.args[0]).toMatch(/packages\/idp\/dist\/main\.js$/);
      expect(access!.args[0]).toMatch(/packages\/access-service\/dist\/main\.js$/);
      expect(graph!.args[0]).toMatch(/packages\/graph-server\/dist\/main\.js$/);
      // What `npm start` says while it starts each (the supervisor's "starting …" lines).
      expect(node.services.map((s) => s.description)).toEqual(['identity provider on :19001', 'access service on :19002', 'graph server on :19003 (secure mode)']);
      expect(node.services.map((s) => s.healthUrl)).toEqual(['http://127.0.0.1:19001/health', 'http://127.0.0.1:19002/health', 'http://127.0.0.1:19003/$/ping']);
      expect(access!.env).toMatchObject({ TOKEN_CLIENT_IDS: DEMO_CLIENT, LINK_BY_EMAIL: 'true', JWKS_URL: 'http://127.0.0.1:19001/local_ianode01/.well-known/jwks.json' });
      expect(graph!.env).toMatchObject({ DATA_DIR: dataDir, USER_ATTRIBUTES_URL: 'http://127.0.0.1:19002', MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072' });

      const { secretAccessKey } = JSON.parse(readFileSync(path.join(dataDir, 'ianode-admin.json'), 'utf8')) as { secretAccessKey: string };
      expect(idp!.env.IDP_ADMIN_SECRET_ACCESS_KEY).toBe(secretAccessKey);
      for (const service of node.services) expect(service.args.join(' ')).not.toContain(secretAccessKey);
      for (const service of [access!, graph!]) expect(Object.values(service.env)).not.toContain(secretAccessKey);

      const count = async () => {
        const store = await openStore({ dir: path.join(dataDir, 'ds') });
        try {
          return store.count({});
        } finally {
          await store.close();
        }
      };
      expect(existsSync(path.join(dataDir, 'demo-data-loaded.json'))).toBe(true);
      expect(await count()).toBe(6);
      await up(options, { write: () => {} });
      expect(await count()).toBe(6);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
