/**
 * `ianode labels stats|quads|relabel` against a real graph server (secure mode, started here on a
 * free port) through the command line: the administrator's token from $IDP_ID_TOKEN, the answers
 * printed, the server's refusals (401, 403, 400) reported with exit 1, usage mistakes exit 2.
 */
import { describe, expect, it } from 'vitest';
import { LABELS_ADMIN_DIRECTORY, LABELS_ADMIN_EX as EX, LABELS_ADMIN_TRIG } from '@ianode/testkit';
import { useSecureServer } from '../../graph-server/test/helpers.js';
import { runCli, type Actions } from '../src/cli.js';
import { labelsQuads, labelsRelabel, labelsStats } from '../src/labels.js';

// `loader` is the administrator holding every label, `u1` a reader; every test starts from the
// same six quads (`reset`), so each passes alone and in any order.
const fx = useSecureServer(LABELS_ADMIN_DIRECTORY, { data: LABELS_ADMIN_TRIG, reset: true });

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

const asAdmin = () => ({ IDP_ID_TOKEN: fx.tokens.loader });

describe('ianode labels', () => {
  it('stats: a table of the labels in use with their counts, or the server JSON; the server from $IANODE_URL too', async () => {
    const r = await ianode(['labels', 'stats', '--server', fx.base], asAdmin());
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
    expect(rows[0]).toEqual(['label', 'quads']);
    expect(Object.fromEntries(rows.slice(1))).toEqual({ '* (the default label)': '3', engineer: '1', manager: '2', '(all)': '6' });
    const j = await ianode(['labels', 'stats', '--json'], { ...asAdmin(), IANODE_URL: `${fx.base}/ds` });
    expect(j.code, j.stderr).toBe(0);
    const body = JSON.parse(j.stdout) as { quads: number; labels: { label: string; quads: number }[] };
    expect(body.quads).toBe(6);
    expect(body.labels.map((l) => [l.label, l.quads])).toEqual([['*', 3], ['engineer', 1], ['manager', 2]]);
  });

  it('quads: the quads carrying a label as N-Quads, JSON with --json and --limit', async () => {
    const r = await ianode(['labels', 'quads', '--label', 'manager', '--server', fx.base], asAdmin());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual([`<${EX}Alice> <${EX}knows> <${EX}Bob> .`, `<${EX}Bob> <${EX}knows> <${EX}Alice> .`]);
    const j = await ianode(['labels', 'quads', '--label', 'manager', '--limit', '1', '--json', '--server', fx.base], asAdmin());
    expect(j.code, j.stderr).toBe(0);
    const body = JSON.parse(j.stdout) as { label: string; quads: unknown[]; truncated: boolean };
    expect(body.label).toBe('manager');
    expect(body.quads).toHaveLength(1);
    expect(body.truncated).toBe(true);
  });

  it('relabel: one transaction on the server, its counts printed; stats follow', async () => {
    const r = await ianode(['labels', 'relabel', '--p', `<${EX}knows>`, '--from', 'manager', '--to', 'engineer', '--server', fx.base], asAdmin());
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ matched: 2, relabelled: 2 });
    const s = JSON.parse((await ianode(['labels', 'stats', '--json', '--server', fx.base], asAdmin())).stdout) as { labels: { label: string; quads: number }[] };
    expect(s.labels.map((l) => [l.label, l.quads])).toEqual([['*', 3], ['engineer', 3]]);
  });

  it('the server refuses: no token 401, a non-administrator 403, a bad label 400 — exit 1 with the reason, nothing changed', async () => {
    const none = await ianode(['labels', 'stats', '--server', fx.base], {});
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/401 .*set \$IDP_ID_TOKEN/);
    const user = await ianode(['labels', 'relabel', '--to', 'manager', '--server', fx.base], { IDP_ID_TOKEN: fx.tokens.u1 });
    expect(user.code).toBe(1);
    expect(user.stderr).toMatch(/403 .*admin permission/);
    expect(user.stderr).not.toContain(fx.tokens.u1!);
    const bad = await ianode(['labels', 'relabel', '--to', 'manager & (', '--server', fx.base], asAdmin());
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/400 /);
    const s = JSON.parse((await ianode(['labels', 'stats', '--json', '--server', fx.base], asAdmin())).stdout) as { labels: { label: string; quads: number }[] };
    expect(s.labels.map((l) => [l.label, l.quads])).toEqual([['*', 3], ['engineer', 1], ['manager', 2]]);
  });

  it('an unreachable server is exit 1 naming the URL; usage mistakes are exit 2', async () => {
    const down = await ianode(['labels', 'stats', '--server', 'http://127.0.0.1:1'], asAdmin());
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('http://127.0.0.1:1/ds/labels/stats did not answer');
    expect((await ianode(['labels', 'quads', '--server', fx.base], asAdmin())).code).toBe(2);
    expect((await ianode(['labels', 'quads', '--label', 'x', '--limit', '0', '--server', fx.base], asAdmin())).code).toBe(2);
    expect((await ianode(['labels', 'relabel', '--server', fx.base], asAdmin())).code).toBe(2);
    expect((await ianode(['labels', 'stats', '--server', 'ftp://x'], asAdmin())).code).toBe(2);
    expect((await ianode(['labels', 'bogus'], asAdmin())).code).toBe(2);
    const help = await ianode(['labels', 'relabel', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: ianode labels relabel');
  });
});
