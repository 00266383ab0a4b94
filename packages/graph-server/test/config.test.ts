/**
 * The store settings of the `dataset` section: defaults, the YAML file, the environment (which
 * wins), validation, and what reaches `openStore`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv, configFromFileAndEnv, resolveConfig, storeTuning } from '@ianode/graph-server';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function configFile(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ianode-config-'));
  dirs.push(dir);
  const path = join(dir, 'config.yaml');
  await writeFile(path, text);
  return path;
}

describe('dataset store settings', () => {
  it('have documented defaults', () => {
    expect(storeTuning(resolveConfig({}).dataset)).toEqual({
      checkpointBytes: 64 * 1024 * 1024,
      checkpointIntervalMs: 900_000,
      compactDeletedFraction: 0.25,
      compactMinDeleted: 10_000,
    });
  });

  it('come from the file, and the environment wins', async () => {
    const path = await configFile(
      'dataset:\n  storage: /data/ds\n  checkpointBytes: 1048576\n  checkpointIntervalMs: ${INTERVAL:-60000}\n  compactMinDeleted: 500\n',
    );
    const fromFile = resolveConfig(await configFromFileAndEnv(path, {}));
    expect(fromFile.dataset).toMatchObject({ storage: '/data/ds', checkpointBytes: 1_048_576, checkpointIntervalMs: 60_000, compactMinDeleted: 500 });
    const env = { STORE_CHECKPOINT_INTERVAL_MS: '0', STORE_COMPACT_DELETED_FRACTION: '0.5', STORE_CHECKPOINT_BYTES: '' };
    const withEnv = resolveConfig(await configFromFileAndEnv(path, env));
    expect(storeTuning(withEnv.dataset)).toEqual({
      checkpointBytes: 1_048_576,
      checkpointIntervalMs: 0,
      compactDeletedFraction: 0.5,
      compactMinDeleted: 500,
    });
    expect(withEnv.dataset.storage).toBe('/data/ds');
  });

  it('refuse what is not a non-negative number, naming it', async () => {
    expect(() => resolveConfig({ dataset: { checkpointBytes: -1 } })).toThrow(/dataset\.checkpointBytes/);
    expect(() => resolveConfig({ dataset: { compactDeletedFraction: 'half' as unknown as number } })).toThrow(/dataset\.compactDeletedFraction/);
    await expect(configFromFileAndEnv(undefined, { STORE_COMPACT_MIN_DELETED: 'lots' })).rejects.toThrow(/STORE_COMPACT_MIN_DELETED/);
  });
});

describe("the reference's environment names (issue 17, item 8)", () => {
  it('ABAC_HIERARCHIES_URL is read as ATTRIBUTE_HIERARCHY_URL; the same value under both is fine', async () => {
    const url = 'http://access.test:8091/hierarchies/lookup/{name}';
    expect((await configFromFileAndEnv(undefined, { ABAC_HIERARCHIES_URL: url })).security?.attributeHierarchyUrl).toBe(url);
    expect((await configFromFileAndEnv(undefined, { ABAC_HIERARCHIES_URL: url, ATTRIBUTE_HIERARCHY_URL: url })).security?.attributeHierarchyUrl).toBe(url);
    expect((await configFromFileAndEnv(undefined, { ATTRIBUTE_HIERARCHY_URL: url, ABAC_HIERARCHIES_URL: '' })).security?.attributeHierarchyUrl).toBe(url);
  });

  it('both set to different values: refuses to start, naming both', async () => {
    await expect(configFromFileAndEnv(undefined, { ATTRIBUTE_HIERARCHY_URL: 'http://a:1/h/{name}', ABAC_HIERARCHIES_URL: 'http://b:2/h/{name}' })).rejects.toThrow(
      /ATTRIBUTE_HIERARCHY_URL and ABAC_HIERARCHIES_URL .*both set, to different values/,
    );
  });

  it('security.unknownUsers defaults to deny; tokenHeaders to Authorization: Bearer', () => {
    const config = resolveConfig({});
    expect(config.security.unknownUsers).toBe('deny');
    expect(config.security.tokenHeaders).toEqual([{ header: 'Authorization', prefix: 'Bearer' }]);
    expect(resolveConfig({ security: { tokenHeaders: [{ header: 'X-Amzn-Oidc-Data' }] } }).security.tokenHeaders).toEqual([{ header: 'X-Amzn-Oidc-Data', prefix: '' }]);
  });
});

describe('configuration by schema (unknown keys, defaults, frozen)', () => {
  it('a misspelt key at the top stops the start, naming it and the nearest key', () => {
    expect(() => resolveConfig({ sercurity: {} } as never)).toThrow(/^sercurity: unknown key "sercurity"; did you mean security\? \(the configuration takes dataset, datasets, .*security/);
  });

  it('a misspelt key in a section names its path and the nearest key of that section', () => {
    expect(() => resolveConfig({ limits: { queryTimeoutMS: 5 } } as never)).toThrow(/^limits\.queryTimeoutMS: unknown key "queryTimeoutMS"; did you mean limits\.queryTimeoutMs\?/);
    expect(() => resolveConfig({ security: { clientId: ['c'] } } as never)).toThrow(/security\.clientId: unknown key "clientId"; did you mean security\.clientIds\?/);
    expect(() => resolveConfig({ writes: { allowUnreadableLabel: true } } as never)).toThrow(/writes\.allowUnreadableLabel: .*did you mean writes\.allowUnreadableLabels\?/);
    expect(() => resolveConfig({ audit: { queryTxt: true } } as never)).toThrow(/audit\.queryTxt: .*did you mean audit\.queryText\?/);
  });

  it('a misspelt key in a dataset entry names the entry', () => {
    expect(() => resolveConfig({ datasets: [{ name: 'a' }, { name: 'b', permisions: { read: 'x' } }] } as never)).toThrow(/^datasets\[1\]\.permisions: unknown key "permisions"; did you mean datasets\[1\]\.permissions\?/);
    expect(() => resolveConfig({ dataset: { permissions: { reed: 'x' } } } as never)).toThrow(/^dataset\.permissions\.reed: .*did you mean dataset\.permissions\.read\?/);
    expect(() => resolveConfig({ dataset: { limits: { resultRow: 1 } } } as never)).toThrow(/^dataset\.limits\.resultRow: .*did you mean dataset\.limits\.resultRows\?/);
    expect(() => resolveConfig({ datasets: [{ name: 'k', kafka: { topic: 't', brokers: 'k:1', fetchMessage: 5 } }] })).toThrow(/^datasets\[0\]\.kafka\.fetchMessage: .*did you mean datasets\[0\]\.kafka\.fetchMessages\?/);
  });

  it('a misspelt key in the file stops configFromFileAndEnv + resolveConfig (what main.ts runs)', async () => {
    const path = await configFile('limits:\n  queryTimeoutMS: 5\n');
    const input = await configFromFileAndEnv(path, {});
    expect(() => resolveConfig(input)).toThrow(/limits\.queryTimeoutMS: .*did you mean limits\.queryTimeoutMs\?/);
  });

  it('a value of the wrong kind names its path (the messages of before)', () => {
    expect(() => resolveConfig({ limits: { queryTimeoutMs: -1 } })).toThrow(/^limits\.queryTimeoutMs must be a non-negative number$/);
    expect(() => resolveConfig({ graphql: 'yes' as never })).toThrow(/^graphql must be true or false$/);
    expect(() => resolveConfig({ limits: 5 as never })).toThrow(/^limits must be a mapping$/);
    expect(() => resolveConfig({ datasets: [{ name: 'a' }, { name: 'b', labels: { legacy: 'no' as never } }] })).toThrow(/^datasets\[1\]\.labels\.legacy must be true or false$/);
    expect(() => resolveConfig({ writes: { updateLoadDir: '' } })).toThrow(/^writes\.updateLoadDir must be a folder path$/);
  });

  it('the defaults come from the schemas, and the result is frozen through and through', () => {
    const config = resolveConfig({ limits: { queryTimeoutMs: 5 } });
    expect(config.limits).toMatchObject({ queryTimeoutMs: 5, uploadBytes: 512 * 1024 * 1024, queryQueue: 256 });
    expect(config.writes).toEqual({ allowUnreadableLabels: false });
    expect(config.audit).toMatchObject({ maxBytes: 64 * 1024 * 1024, keep: 10, reads: false });
    for (const part of [config, config.limits, config.security, config.security.tokenHeaders, config.security.tokenHeaders[0], config.dataset, config.dataset.permissions, config.datasets, config.audit, config.cors.origins]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => {
      (config.limits as { queryTimeoutMs: number }).queryTimeoutMs = 1;
    }).toThrow(TypeError);
    // A frozen configuration is accepted again (createGraphServer resolves what it is given), and the caller's input is left as it was.
    expect(resolveConfig(config)).toEqual(config);
    const input = { limits: { queryTimeoutMs: 7 } };
    resolveConfig(input);
    expect(input).toEqual({ limits: { queryTimeoutMs: 7 } });
  });
});

describe('the environment mapped onto the configuration (configFromEnv, called by main.ts)', () => {
  it('maps each variable to its key, over the file', () => {
    const file = { writes: { allowUnreadableLabels: true }, limits: { queryTimeoutMs: 9 }, security: { groupsClaim: 'g' }, console: { issuer: 'http://file' } };
    const env = {
      IANODE_UPDATE_LOAD_DIR: '/srv/load', QUERY_WORKERS: '3', CORS_ORIGINS: 'https://a.example, https://b.example', JWKS_URL: 'http://idp/jwks.json',
      CONSOLE_ISSUER: 'http://env', CONSOLE_DIR: '/srv/console', STORE_CHECKPOINT_BYTES: '1024', UNRELATED: 'x',
    };
    const config = resolveConfig(configFromEnv(env, file));
    expect(config.writes).toEqual({ allowUnreadableLabels: true, updateLoadDir: '/srv/load' });
    expect(config.limits).toMatchObject({ queryTimeoutMs: 9, queryWorkers: 3 });
    expect(config.cors.origins).toEqual(['https://a.example', 'https://b.example']);
    expect(config.security).toMatchObject({ jwksUrl: 'http://idp/jwks.json', groupsClaim: 'g' });
    expect(config.console).toEqual({ issuer: 'http://env', dir: '/srv/console' });
    expect(config.dataset.checkpointBytes).toBe(1024);
  });

  it('an unset or empty variable leaves the file (and the default) alone', () => {
    const config = resolveConfig(configFromEnv({ IANODE_UPDATE_LOAD_DIR: '', CONSOLE_DIR: '  ' }, {}));
    expect(config.writes.updateLoadDir).toBeUndefined();
    expect(config.console).toEqual({});
    expect(configFromEnv({}, { limits: { queryTimeoutMs: 1 } }).limits).toEqual({ queryTimeoutMs: 1 });
  });

  it('a malformed value names the variable', () => {
    expect(() => configFromEnv({ QUERY_WORKERS: 'many' })).toThrow(/QUERY_WORKERS must be a whole number/);
  });
});
