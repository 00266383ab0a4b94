import { fileURLToPath } from 'node:url';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scratchDir } from '@ianode/testkit';
import { loadSeedFile, parseSeed, SeedError } from '../src/index.js';
import { signIn, startIdp, verifyWithJwks, type TestIdp } from './support/harness.js';

const DEMO = fileURLToPath(new URL('../seed/demo.yaml', import.meta.url));
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('demo seed', () => {
  it('creates the fixed pool, client, users and groups; the default password signs in', async () => {
    const doc = await loadSeedFile(DEMO, {});
    const idp = await startIdp({ seed: doc });
    try {
      const pool = await idp.ok<{ UserPool: { Id: string } }>('DescribeUserPool', { UserPoolId: 'local_ianode01' });
      expect(pool.UserPool.Id).toBe('local_ianode01');
      const admin = await signIn(idp, 'ianodedemoclient0000000001', 'admin@ianode.local', 'Ianode-demo-1');
      expect(admin.status).toBe(200);
      const id = await verifyWithJwks(idp, 'local_ianode01', admin.body.AuthenticationResult!.IdToken, { audience: 'ianodedemoclient0000000001' });
      expect(id).toMatchObject({
        email: 'admin@ianode.local',
        email_verified: true,
        'cognito:groups': ['ianode_admin', 'ianode_read'],
        'custom:org': 'ianode',
      });
      const user = await signIn(idp, 'ianodedemoclient0000000001', 'user@ianode.local', 'Ianode-demo-1');
      const uid = await verifyWithJwks(idp, 'local_ianode01', user.body.AuthenticationResult!.IdToken);
      expect(uid['cognito:groups']).toEqual(['ianode_read']);
    } finally {
      await idp.close();
    }
  });

  it('takes the password from IDP_ADMIN_PASSWORD and is idempotent across restarts', async () => {
    const dir = await mkdtemp(join(scratchDir(), 'ianode-idp-seed-'));
    dirs.push(dir);
    const first = await startIdp({ keepDir: dir, seed: await loadSeedFile(DEMO, { IDP_ADMIN_PASSWORD: 'Env-Pass-word-1' }) });
    const sub = (await first.ok<{ UserAttributes: { Name: string; Value: string }[] }>('AdminGetUser', { UserPoolId: 'local_ianode01', Username: 'admin@ianode.local' }))
      .UserAttributes.find((a) => a.Name === 'sub')?.Value;
    expect((await signIn(first, 'ianodedemoclient0000000001', 'admin@ianode.local', 'Env-Pass-word-1')).status).toBe(200);
    expect(first.server.seedReport?.pools[0]).toMatchObject({ id: 'local_ianode01', created: true });
    await first.close();

    const second = await startIdp({ keepDir: dir, seed: await loadSeedFile(DEMO, { IDP_ADMIN_PASSWORD: 'Env-Pass-word-1' }) });
    try {
      expect(second.server.seedReport?.pools[0]).toMatchObject({ created: false, users: [{ created: false }, { created: false }] });
      const users = await second.ok<{ Users: unknown[] }>('ListUsers', { UserPoolId: 'local_ianode01' });
      expect(users.Users).toHaveLength(2);
      const again = (await second.ok<{ UserAttributes: { Name: string; Value: string }[] }>('AdminGetUser', { UserPoolId: 'local_ianode01', Username: 'admin@ianode.local' }))
        .UserAttributes.find((a) => a.Name === 'sub')?.Value;
      expect(again).toBe(sub);
      const pools = await second.ok<{ UserPools: unknown[] }>('ListUserPools', { MaxResults: 60 });
      expect(pools.UserPools).toHaveLength(1);
      expect((await second.ok<{ Groups: unknown[] }>('ListGroups', { UserPoolId: 'local_ianode01' })).Groups).toHaveLength(2);
    } finally {
      await second.close();
    }
    // A changed password in the environment converges on the next start.
    const third = await startIdp({ keepDir: dir, seed: await loadSeedFile(DEMO, { IDP_ADMIN_PASSWORD: 'Changed-Pass-2' }) });
    try {
      expect((await signIn(third, 'ianodedemoclient0000000001', 'user@ianode.local', 'Changed-Pass-2')).status).toBe(200);
      expect((await signIn(third, 'ianodedemoclient0000000001', 'user@ianode.local', 'Env-Pass-word-1')).status).toBe(400);
    } finally {
      await third.close();
    }
  });
});

describe('seed file format', () => {
  it('substitutes ${VAR} and ${VAR:-default} after parsing (values cannot change the structure)', () => {
    const doc = parseSeed('pools:\n  - id: local_abcdefgh\n    name: ${NAME:-fallback}\n    users:\n      - { username: u, password: "${PW}" }\n', 'yaml', {
      PW: 'a: b\n- c',
    });
    expect(doc.pools[0]!.name).toBe('fallback');
    expect(doc.pools[0]!.users![0]!.password).toBe('a: b\n- c');
  });

  it('reads JSON too', () => {
    const doc = parseSeed(JSON.stringify({ pools: [{ id: 'local_abcdefgh', name: 'n' }] }), 'json', {});
    expect(doc.pools[0]!.id).toBe('local_abcdefgh');
  });

  it('names the path of a bad field', () => {
    const bad = (text: string, env: Record<string, string> = {}) => () => parseSeed(text, 'yaml', env);
    expect(bad('pools:\n  - id: nope\n    name: x\n')).toThrow(/seed.pools\[0\].id/);
    expect(bad('pools:\n  - id: local_abcdefgh\n    name: x\n    users:\n      - username: u\n')).toThrow(/users\[0\].password: is required/);
    expect(bad('pools:\n  - id: local_abcdefgh\n    name: x\n    colour: red\n')).toThrow(/colour: is not a known field/);
    expect(bad('pools:\n  - id: local_abcdefgh\n    name: ${MISSING}\n')).toThrow(SeedError);
    expect(bad('pools: [')).toThrow(/not valid YAML/);
  });

  it('a seed whose password breaks the policy stops the start with a clear error', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'ianode-idp-seedfile-')), 'seed.yaml');
    dirs.push(join(path, '..'));
    await writeFile(path, 'pools:\n  - id: local_abcdefgh\n    name: x\n    users:\n      - { username: u, password: short }\n');
    await expect(startIdp({ seed: path })).rejects.toThrow(/Password did not conform with policy/);
  });
});

describe('persistence', () => {
  let idp: TestIdp | undefined;
  afterAll(async () => {
    await idp?.close();
  });

  it('pools, users, keys and sessions survive a restart', async () => {
    const dir = await mkdtemp(join(scratchDir(), 'ianode-idp-restart-'));
    dirs.push(dir);
    // The issuer must not change across the restart (the port does): fix the public URL.
    const publicUrl = 'http://localhost:9229';
    const before = await startIdp({ keepDir: dir, publicUrl, seed: await loadSeedFile(DEMO, {}) });
    const admin = before.server.admin;
    const r = (await signIn(before, 'ianodedemoclient0000000001', 'admin@ianode.local', 'Ianode-demo-1')).body.AuthenticationResult!;
    const jwksBefore = await (await fetch(`${before.base}/local_ianode01/.well-known/jwks.json`)).json();
    await before.close();

    idp = await startIdp({ keepDir: dir, publicUrl });
    expect(idp.server.admin).toEqual({ ...admin, generated: false });
    expect(await (await fetch(`${idp.base}/local_ianode01/.well-known/jwks.json`)).json()).toEqual(jwksBefore);
    const refreshed = await idp.call('InitiateAuth', {
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      ClientId: 'ianodedemoclient0000000001',
      AuthParameters: { REFRESH_TOKEN: r.RefreshToken },
    });
    expect(refreshed.status).toBe(200);
    expect((await idp.call('GetUser', { AccessToken: r.AccessToken })).status).toBe(200);
  });
});
