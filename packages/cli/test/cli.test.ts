import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromFileAndEnv, resolveConfig, substituteEnv } from '@ianode/graph-server';
import { REPO_ROOT, upOptionsFromEnv } from '../src/up.js';

describe('ianode up options', () => {
  it('defaults to ./data and the SPEC ports, overridable by env', () => {
    expect(upOptionsFromEnv({})).toMatchObject({ idpPort: 9229, accessPort: 8091, graphPort: 3030, dataDir: path.resolve('./data') });
    expect(upOptionsFromEnv({ GRAPH_PORT: '4000', IANODE_DATA_DIR: '/tmp/x' })).toMatchObject({ graphPort: 4000, dataDir: '/tmp/x' });
    expect(() => upOptionsFromEnv({ IDP_PORT: 'nope' })).toThrow(/IDP_PORT/);
  });
});

describe('example configurations', () => {
  it('secure example resolves with the environment winning', async () => {
    const input = await configFromFileAndEnv(path.join(REPO_ROOT, 'config/graph-secure.yaml'), { JWKS_URL: 'http://idp/x/.well-known/jwks.json', DATA_DIR: '/d' });
    const config = resolveConfig(input);
    expect(config.security.jwksUrl).toBe('http://idp/x/.well-known/jwks.json');
    expect(config.dataset).toMatchObject({ name: 'ds', storage: '/d/ds', defaultLabel: '!', permissions: { read: 'ianode_read | ianode_admin', write: 'ianode_admin' } });
    expect(config.limits.queryTimeoutMs).toBe(60000);
  });
  it('open example has no JWKS', async () => {
    const config = resolveConfig(await configFromFileAndEnv(path.join(REPO_ROOT, 'config/graph-open.yaml'), {}));
    expect(config.security.jwksUrl).toBeUndefined();
  });
  it('${VAR} substitution: defaults, comments untouched, unset is an error', () => {
    expect(substituteEnv('a: ${X:-1}\n# ${NOPE}\nb: ${Y}', { Y: '2' })).toBe('a: 1\n# ${NOPE}\nb: 2');
    expect(() => substituteEnv('a: ${NOPE}', {})).toThrow(/NOPE/);
  });
});
