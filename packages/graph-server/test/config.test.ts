/**
 * The store settings of the `dataset` section: defaults, the YAML file, the environment (which
 * wins), validation, and what reaches `openStore`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromFileAndEnv, resolveConfig, storeTuning } from '@ianode/graph-server';

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
