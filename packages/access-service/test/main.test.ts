import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { ADMIN, CLIENT, DEMO_SEED, MAIN, spawnMain, startIdp, tempDir, type TestIdp } from './helpers.js';

let idp: TestIdp;
beforeAll(async () => {
  idp = await startIdp();
});
afterAll(() => idp.close());

interface Run {
  lines: Record<string, unknown>[];
  stderr: string;
  exit: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
  waitFor(msg: string): Promise<Record<string, unknown>>;
}

function run(args: string[], env: Record<string, string>): Run {
  const waiters: { msg: string; resolve: (line: Record<string, unknown>) => void }[] = [];
  const main = spawnMain(args, env, (line) => {
    for (const waiter of waiters.filter((w) => w.msg === line.msg)) waiter.resolve(line);
  });
  const { child, lines } = main;
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    lines,
    get stderr() {
      return main.stderr;
    },
    exit,
    kill: (signal) => child.kill(signal),
    waitFor: (msg) => {
      const seen = lines.find((line) => line.msg === msg);
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ msg, resolve }));
    },
  };
}

// Each test starts its own dist/main.js (its own folder or none): they run at the same time, so the
// Node starts they mostly wait for use a second core.
describe.skipIf(!existsSync(MAIN))('main (dist/main.js)', { concurrent: true }, () => {
  it('starts with a seed, serves, and stops cleanly on SIGTERM', async ({ expect }) => {
    const data = tempDir();
    try {
      const proc = run(['--port', '0', '--data', data.dir, '--seed', DEMO_SEED], {
        OPENID_PROVIDER_URL: idp.issuer,
        JWKS_URL: idp.jwksUrl,
        TOKEN_CLIENT_IDS: CLIENT,
        LINK_BY_EMAIL: 'true',
      });
      const listening = await proc.waitFor('access service listening');
      const url = listening.url as string;
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const token = await idp.token(ADMIN, ['ianode_admin']);
      const whoami = await fetch(`${url}/whoami`, { headers: { authorization: `bearer ${token}` } });
      expect(await whoami.json()).toMatchObject({ userId: ADMIN, active: true, attributes: { clearance: 'TS' } });
      expect(proc.lines.some((line) => line.msg === 'seed applied')).toBe(true);
      // A token of another client of the pool is refused.
      const other = await idp.token(ADMIN, ['ianode_admin'], { aud: 'another-client' });
      expect((await fetch(`${url}/whoami`, { headers: { authorization: `bearer ${other}` } })).status).toBe(401);
      await vi.waitFor(() => expect(proc.lines.some((line) => line.audit === true && line.event === 'whoami' && line.actor === ADMIN)).toBe(true));
      expect(JSON.stringify(proc.lines)).not.toContain(token);
      proc.kill('SIGTERM');
      expect(await proc.exit).toBe(0);
    } finally {
      data.remove();
    }
  });

  it('refuses to start without a key source, saying what to set', async ({ expect }) => {
    const proc = run(['--port', '0', '--data', ':memory:'], {});
    expect(await proc.exit).toBe(2);
    expect(proc.stderr).toContain('set OPENID_PROVIDER_URL');
  });

  it('refuses to start without the accepted client ids, saying what to set', async ({ expect }) => {
    const proc = run(['--port', '0', '--data', ':memory:'], { JWKS_URL: idp.jwksUrl });
    expect(await proc.exit).toBe(2);
    expect(proc.stderr).toContain('set TOKEN_CLIENT_IDS');
  });

  it('refuses to start with a broken seed, naming it', async ({ expect }) => {
    const data = tempDir();
    try {
      const proc = run(['--port', '0', '--data', data.dir, '--seed', `${data.dir}/missing.yaml`], { JWKS_URL: idp.jwksUrl, TOKEN_CLIENT_IDS: CLIENT });
      expect(await proc.exit).toBe(2);
      expect(proc.stderr).toContain('cannot read seed file');
    } finally {
      data.remove();
    }
  });
});
