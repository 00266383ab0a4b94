/**
 * The entry point `dist/main.js` (run `tsc -b` first): serve, print the admin key once, rotate-keys,
 * env settings. Each test has its own data folder and child processes, so the tests run at the same
 * time (`concurrent`): they mostly wait for Node processes to start, which a second core shortens.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodeProtectedHeader } from 'jose';
import { afterAll, describe, it } from 'vitest';
import { signRequestV4 } from '../src/index.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const DEMO = fileURLToPath(new URL('../seed/demo.yaml', import.meta.url));
const run = promisify(execFile);
const dirs: string[] = [];
const children = new Set<ChildProcess>();

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  url: string;
  issuerBase: string;
  output: () => string;
}

/** Starts `main.js` on a free port and waits for its ready line. */
function start(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /ianode-idp: listening on (http:\/\/[\d.]+:\d+), issuer base (\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]!, issuerBase: m[2]!, output: () => out });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`main.js exited with ${code}: ${out}`)));
  });
}

function stop(s: Started): Promise<number | null> {
  return new Promise((resolve) => {
    s.child.on('exit', (code) => resolve(code));
    s.child.kill('SIGTERM');
  });
}

async function initiateAuth(url: string, username: string) {
  const res = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
    body: JSON.stringify({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: 'ianodedemoclient0000000001',
      AuthParameters: { USERNAME: username, PASSWORD: 'Ianode-demo-1' },
    }),
  });
  return (await res.json()) as { AuthenticationResult: { IdToken: string } };
}

describe.runIf(existsSync(MAIN))('main.js', { concurrent: true }, () => {
  it('serves a seeded pool, prints a generated admin key once, rotates keys from the CLI', async ({ expect }) => {
    const data = await mkdtemp(join(tmpdir(), 'ianode-idp-main-'));
    dirs.push(data);
    const first = await start(['--port', '0', '--data', data, '--seed', DEMO]);
    const creds = /AWS_ACCESS_KEY_ID=(AKIA[A-Z0-9]{16})\n\s+export AWS_SECRET_ACCESS_KEY=(\S+)/.exec(first.output());
    expect(creds).not.toBeNull();
    const [, keyId, secret] = creds!;
    expect(first.output().split(secret!)).toHaveLength(2); // exactly once

    expect((await fetch(`${first.url}/health`)).status).toBe(200);
    const before = await initiateAuth(first.url, 'admin@ianode.local');
    const oldKid = decodeProtectedHeader(before.AuthenticationResult.IdToken).kid;

    // rotate-keys while the server runs (another process writing the same WAL database)
    const rotated = await run(process.execPath, [MAIN, 'rotate-keys', '--pool', 'local_ianode01', '--data', data]);
    expect(rotated.stdout).toMatch(/new signing key \S+; \S+ stays published/);
    const jwks = (await (await fetch(`${first.url}/local_ianode01/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys).toHaveLength(2);
    const after = await initiateAuth(first.url, 'admin@ianode.local');
    const newKid = decodeProtectedHeader(after.AuthenticationResult.IdToken).kid;
    expect(newKid).not.toBe(oldKid);
    expect(jwks.keys.map((k) => k.kid)).toEqual([newKid, oldKid]);

    // The printed key signs admin calls.
    const body = JSON.stringify({ MaxResults: 10 });
    const host = new URL(first.url).host;
    const headers = signRequestV4(
      { method: 'POST', url: '/', headers: { host, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.ListUserPools' }, body },
      { accessKeyId: keyId!, secretAccessKey: secret!, region: 'us-east-1', service: 'cognito-idp', now: Date.now() },
    );
    const listed = await fetch(`${first.url}/`, { method: 'POST', headers, body });
    expect(listed.status).toBe(200);
    expect(await stop(first)).toBe(0);

    // Second start: same key kept, nothing printed, the seed changes nothing.
    const second = await start(['--port', '0', '--data', data, '--seed', DEMO]);
    expect(second.output()).not.toContain(secret!);
    expect(second.output()).not.toContain('AWS_SECRET_ACCESS_KEY');
    const printed = await run(process.execPath, [MAIN, 'admin-key', '--data', data]);
    expect(printed.stdout).toContain(`AWS_SECRET_ACCESS_KEY=${secret}`);
    await stop(second);
  }, 120_000); // started together with the others, it shares the CPU with them

  it('takes its settings from the environment', async ({ expect }) => {
    const data = await mkdtemp(join(tmpdir(), 'ianode-idp-main-env-'));
    dirs.push(data);
    const s = await start([], {
      IDP_PORT: '0',
      IDP_DATA_DIR: data,
      IDP_SEED: DEMO,
      IDP_PUBLIC_URL: 'https://idp.example.org',
      IDP_ADMIN_ACCESS_KEY_ID: 'AKIAENVENVENVENV0001',
      IDP_ADMIN_SECRET_ACCESS_KEY: 'env-secret',
      IDP_ADMIN_PASSWORD: 'From-env-pass-1',
      IDP_LOG_LEVEL: 'warn',
    });
    expect(s.issuerBase).toBe('https://idp.example.org');
    const doc = (await (await fetch(`${s.url}/local_ianode01/.well-known/openid-configuration`)).json()) as { issuer: string };
    expect(doc.issuer).toBe('https://idp.example.org/local_ianode01');
    const res = await fetch(`${s.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
      body: JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: 'ianodedemoclient0000000001', AuthParameters: { USERNAME: 'user@ianode.local', PASSWORD: 'From-env-pass-1' } }),
    });
    expect(res.status).toBe(200);
    const body = JSON.stringify({ MaxResults: 10 });
    const headers = signRequestV4(
      { method: 'POST', url: '/', headers: { host: new URL(s.url).host, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.ListUserPools' }, body },
      { accessKeyId: 'AKIAENVENVENVENV0001', secretAccessKey: 'env-secret', region: 'us-east-1', service: 'cognito-idp', now: Date.now() },
    );
    expect((await fetch(`${s.url}/`, { method: 'POST', headers, body })).status).toBe(200);
    expect(s.output()).not.toMatch(/"level":30/); // IDP_LOG_LEVEL=warn
    expect(s.output()).not.toContain('AWS_SECRET_ACCESS_KEY');
    await stop(s);
  }, 120_000);

  it('prints usage and fails on an unknown command', async ({ expect }) => {
    // Three independent processes, at the same time.
    const [help, unknown, noPool] = await Promise.allSettled([
      run(process.execPath, [MAIN, '--help']),
      run(process.execPath, [MAIN, 'frobnicate']),
      run(process.execPath, [MAIN, 'rotate-keys', '--data', join(tmpdir(), 'none-such')]),
    ]);
    expect(help.status).toBe('fulfilled');
    expect((help as PromiseFulfilledResult<{ stdout: string }>).value.stdout).toMatch(/rotate-keys --pool POOL_ID/);
    expect(unknown).toMatchObject({ status: 'rejected', reason: { code: 1, stderr: expect.stringContaining('unknown command frobnicate') } });
    expect(noPool).toMatchObject({ status: 'rejected', reason: { code: 1 } });
  });
});
