/**
 * `packages/access-service/idp-local/fetch_id_token.sh` (SPEC §8) against a seeded IdP: sourced
 * in POSIX sh and bash, it exports a token that verifies; on failure it prints the IdP's error,
 * returns non-zero, and the shell that sourced it stays alive.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../src/index.js';
import { startIdp, verifyWithJwks, type TestIdp } from './support/harness.js';

const run = promisify(execFile);
const SCRIPT_DIR = fileURLToPath(new URL('../../access-service/idp-local/', import.meta.url));
const DEMO = fileURLToPath(new URL('../seed/demo.yaml', import.meta.url));
const POOL = 'local_ianode01';
const CLIENT = 'ianodedemoclient0000000001';

let idp: TestIdp;
beforeAll(async () => {
  idp = await startIdp({ seed: await loadSeedFile(DEMO, {}), log: false });
});
afterAll(() => idp.close());

async function source(shell: 'sh' | 'bash', script: string, env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(shell, ['-c', script], {
      cwd: SCRIPT_DIR,
      env: { PATH: process.env.PATH, IDP_URL: idp.base, USER_POOL_ID: POOL, CLIENT_ID: CLIENT, ...env },
      timeout: 30_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

const tokenOf = (stdout: string) => /^token=(.*)$/m.exec(stdout)?.[1] ?? '';

describe('fetch_id_token.sh', () => {
  it('sourced in POSIX sh: exports a token that verifies, prints one line, returns 0', async () => {
    const r = await source('sh', '. ./fetch_id_token.sh user@ianode.local; echo rc=$?; echo alive; echo "token=$IDP_ID_TOKEN"; sh -c \'test -n "$IDP_ID_TOKEN" && echo exported\'');
    expect(r.stdout).toMatch(/^IDP_ID_TOKEN set for user@ianode\.local \(pool local_ianode01, client ianodedemoclient0000000001, valid 3600 s\)$/m);
    expect(r.stdout).toContain('rc=0\nalive\n');
    expect(r.stdout).toContain('exported');
    expect(r.stderr).toBe('');
    const claims = await verifyWithJwks(idp, POOL, tokenOf(r.stdout), { audience: CLIENT });
    expect(claims).toMatchObject({ email: 'user@ianode.local', 'cognito:groups': ['ianode_read'], token_use: 'id' });
  });

  it('sourced in bash with the admin user: the token carries the admin group; no helper variables are left', async () => {
    const r = await source('bash', 'source ./fetch_id_token.sh admin@ianode.local; echo rc=$?; echo "token=$IDP_ID_TOKEN"; set | grep -c "^_fit_" || true');
    expect(r.stdout).toContain('rc=0');
    expect(r.stdout).toMatch(/^0$/m);
    const claims = await verifyWithJwks(idp, POOL, tokenOf(r.stdout));
    expect(claims['cognito:groups']).toEqual(['ianode_admin', 'ianode_read']);
  });

  it('in dash, where `.` takes no arguments, the user comes from the positional parameters or IDP_USER', async () => {
    const viaSet = await source('sh', 'set -- admin@ianode.local; . ./fetch_id_token.sh; echo "token=$IDP_ID_TOKEN"');
    expect(viaSet.stdout).toContain('IDP_ID_TOKEN set for admin@ianode.local');
    const viaEnv = await source('sh', '. ./fetch_id_token.sh; echo "token=$IDP_ID_TOKEN"', { IDP_USER: 'admin@ianode.local' });
    expect((await verifyWithJwks(idp, POOL, tokenOf(viaEnv.stdout))).email).toBe('admin@ianode.local');
  });

  it('with a wrong password: prints the IdP error, returns non-zero, the shell stays alive', async () => {
    const r = await source('sh', '. ./fetch_id_token.sh user@ianode.local; echo rc=$?; echo alive', { IDP_ADMIN_PASSWORD: 'Wrong-password-1' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('rc=1\nalive\n');
    expect(r.stderr).toContain('NotAuthorizedException: Incorrect username or password.');
  });

  it('with the IdP unreachable: says so, returns non-zero, the shell stays alive', async () => {
    const r = await source('sh', '. ./fetch_id_token.sh; echo rc=$?; echo alive', { IDP_URL: 'http://127.0.0.1:1' });
    expect(r.stdout).toBe('rc=2\nalive\n');
    expect(r.stderr).toMatch(/cannot reach the identity provider at http:\/\/127\.0\.0\.1:1/);
  });

  it('run as a program (not sourced) it exits with the same status', async () => {
    const r = await source('sh', 'sh ./fetch_id_token.sh user@ianode.local; echo rc=$?', {
      IDP_ADMIN_PASSWORD: 'Wrong-password-1',
    });
    expect(r.stdout).toContain('rc=1');
  });

  it('needs only curl and POSIX tools: no jq, no AWS CLI, no exit in the sourced path, no password on a command line', async () => {
    const text = await readFile(`${SCRIPT_DIR}fetch_id_token.sh`, 'utf8');
    const code = text
      .split('\n')
      .filter((l) => !/^\s*#/.test(l))
      .join('\n');
    expect(code).not.toMatch(/\bjq\b/);
    expect(code).not.toMatch(/\baws\b/);
    expect(code).not.toMatch(/\bbash\b|\[\[|^\s*local\s/m);
    expect(code).toMatch(/--data-binary @-/);
    expect(code.match(/\bexit\b/g)).toHaveLength(1); // only after `return` failed, i.e. when not sourced
  });
});
