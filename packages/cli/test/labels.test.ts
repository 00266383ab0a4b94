/**
 * `ianode labels stats|quads|relabel` against a real graph server (secure mode, started here on a
 * free port) through the command line: the administrator's token from $IDP_ID_TOKEN, the answers
 * printed, the server's refusals (401, 403, 400) reported with exit 1, usage mistakes exit 2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphServer, type GraphServer } from '@ianode/graph-server';
import { accessStub, CLIENT, ISSUER, jwksServer, makeKey, sign } from '../../graph-server/test/helpers.js';
import { runCli, type Actions } from '../src/cli.js';
import { labelsQuads, labelsRelabel, labelsStats } from '../src/labels.js';

const DIRECTORY = {
  'user@test': ['ianode_read', 'manager'],
  'admin@test': ['ianode_read', 'ianode_admin', 'manager', 'engineer'],
};
const EX = 'http://example.org/ns#';
const DATA = `PREFIX authz: <http://telicent.io/security#>
PREFIX ex: <${EX}>
ex:Alice ex:knows ex:Bob .
ex:Bob ex:knows ex:Alice .
ex:Alice ex:name "Alice" .
GRAPH ex:g { ex:Carol ex:name "Carol" . }
GRAPH authz:labels {
  [ authz:pattern '<${EX}Alice> <${EX}knows> <${EX}Bob>' ; authz:label "manager" ] .
  [ authz:pattern '<${EX}Bob> <${EX}knows> <${EX}Alice>' ; authz:label "manager" ] .
  [ authz:pattern '<${EX}g> <${EX}Carol> <${EX}name> "Carol"' ; authz:label "engineer" ] .
}
`;

let server: GraphServer;
let base: string;
let jwks: Awaited<ReturnType<typeof jwksServer>>;
let access: Awaited<ReturnType<typeof accessStub>>;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  const key = await makeKey('k1');
  jwks = await jwksServer([key]);
  access = await accessStub(DIRECTORY);
  for (const user of Object.keys(DIRECTORY)) tokens[user.split('@')[0]!] = await sign(key, { email: user });
  const security = { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] };
  server = await createGraphServer({ security, dataset: { name: 'ds', defaultLabel: '*' } }, { logger: false, jwksCooldownMs: 0 });
  base = await server.listen({ port: 0 });
  const r = await fetch(`${base}/ds/upload`, { method: 'POST', headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/trig' }, body: DATA });
  expect(r.status, await r.text()).toBe(200);
});

afterAll(async () => {
  await server?.close();
  await jwks?.close();
  await access?.close();
});

/** `ianode ARGV…` with the real label actions (the others are not called here). */
async function ianode(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
  const unused = async (): Promise<number> => {
    throw new Error('not a labels command');
  };
  const actions: Actions = {
    up: unused, service: unused, load: unused, query: unused, token: unused, storeVerify: unused, storeRecover: unused,
    kafkaSend: unused, kafkaStatus: unused, backup: unused, dump: unused, loadOffline: unused, restore: unused, compact: unused,
    queryOffline: unused, updateOffline: unused,
    labelsStats: (opts) => labelsStats(opts, out),
    labelsQuads: (opts) => labelsQuads(opts, out),
    labelsRelabel: (opts) => labelsRelabel(opts, out),
  };
  const code = await runCli(argv, { env, ...out }, actions);
  return { code, stdout, stderr };
}

const asAdmin = () => ({ IDP_ID_TOKEN: tokens.admin });

describe('ianode labels', () => {
  it('stats: a table of the labels in use with their counts, or the server JSON; the server from $IANODE_URL too', async () => {
    const r = await ianode(['labels', 'stats', '--server', base], asAdmin());
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
    expect(rows[0]).toEqual(['label', 'quads']);
    expect(Object.fromEntries(rows.slice(1))).toEqual({ '* (the default label)': '1', engineer: '1', manager: '2', '(all)': '4' });
    const j = await ianode(['labels', 'stats', '--json'], { ...asAdmin(), IANODE_URL: `${base}/ds` });
    expect(j.code, j.stderr).toBe(0);
    const body = JSON.parse(j.stdout) as { quads: number; labels: { label: string; quads: number }[] };
    expect(body.quads).toBe(4);
    expect(body.labels.map((l) => [l.label, l.quads])).toEqual([['*', 1], ['engineer', 1], ['manager', 2]]);
  });

  it('quads: the quads carrying a label as N-Quads, JSON with --json and --limit', async () => {
    const r = await ianode(['labels', 'quads', '--label', 'manager', '--server', base], asAdmin());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual([`<${EX}Alice> <${EX}knows> <${EX}Bob> .`, `<${EX}Bob> <${EX}knows> <${EX}Alice> .`]);
    const j = await ianode(['labels', 'quads', '--label', 'manager', '--limit', '1', '--json', '--server', base], asAdmin());
    expect(j.code, j.stderr).toBe(0);
    const body = JSON.parse(j.stdout) as { label: string; quads: unknown[]; truncated: boolean };
    expect(body.label).toBe('manager');
    expect(body.quads).toHaveLength(1);
    expect(body.truncated).toBe(true);
  });

  it('relabel: one transaction on the server, its counts printed; stats follow', async () => {
    const r = await ianode(['labels', 'relabel', '--p', `<${EX}knows>`, '--from', 'manager', '--to', 'engineer', '--server', base], asAdmin());
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ matched: 2, relabelled: 2 });
    const s = JSON.parse((await ianode(['labels', 'stats', '--json', '--server', base], asAdmin())).stdout) as { labels: { label: string; quads: number }[] };
    expect(s.labels.map((l) => [l.label, l.quads])).toEqual([['*', 1], ['engineer', 3]]);
  });

  it('the server refuses: no token 401, a non-administrator 403, a bad label 400 — exit 1 with the reason, nothing changed', async () => {
    const none = await ianode(['labels', 'stats', '--server', base], {});
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/401 .*set \$IDP_ID_TOKEN/);
    const user = await ianode(['labels', 'relabel', '--to', 'manager', '--server', base], { IDP_ID_TOKEN: tokens.user });
    expect(user.code).toBe(1);
    expect(user.stderr).toMatch(/403 .*admin permission/);
    expect(user.stderr).not.toContain(tokens.user!);
    const bad = await ianode(['labels', 'relabel', '--to', 'manager & (', '--server', base], asAdmin());
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/400 /);
    const s = JSON.parse((await ianode(['labels', 'stats', '--json', '--server', base], asAdmin())).stdout) as { labels: { label: string; quads: number }[] };
    expect(s.labels.map((l) => [l.label, l.quads])).toEqual([['*', 1], ['engineer', 3]]);
  });

  it('an unreachable server is exit 1 naming the URL; usage mistakes are exit 2', async () => {
    const down = await ianode(['labels', 'stats', '--server', 'http://127.0.0.1:1'], asAdmin());
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('http://127.0.0.1:1/ds/labels/stats did not answer');
    expect((await ianode(['labels', 'quads', '--server', base], asAdmin())).code).toBe(2);
    expect((await ianode(['labels', 'quads', '--label', 'x', '--limit', '0', '--server', base], asAdmin())).code).toBe(2);
    expect((await ianode(['labels', 'relabel', '--server', base], asAdmin())).code).toBe(2);
    expect((await ianode(['labels', 'stats', '--server', 'ftp://x'], asAdmin())).code).toBe(2);
    expect((await ianode(['labels', 'bogus'], asAdmin())).code).toBe(2);
    const help = await ianode(['labels', 'relabel', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: ianode labels relabel');
  });
});
