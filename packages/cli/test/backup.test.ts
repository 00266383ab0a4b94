/**
 * Online backups end to end (docs/operations.md "Backups"): a backup taken by the graph server's
 * backupDataset while writes go on restores, with `ianode restore`, to the state of exactly one
 * commit (every write adds a numbered pair of triples: the restored store holds whole pairs
 * 1..k and nothing after, k = the writes committed before the backup), with the same ABAC views
 * for three users; and `ianode backup --server URL --dataset NAME --wait` against a real Fastify
 * app with the backup routes, listening on a port of its own.
 */
import { DataFactory } from 'n3';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AttributeSet, Hierarchy, LabelEvaluator } from '@ianode/abac';
import { AuthError } from '@ianode/auth';
import { backupDataset, errorReply, registerBackupRoutes, resolveBackupConfig, Tasks, type BackupTarget, type TaskInfo, type TaskRun } from '@ianode/graph-server';
import type { Dataset } from '@ianode/rdf';
import { executeQuery, serialiseResultToString } from '@ianode/sparql';
import { openStore, type QuadStore } from '@ianode/store';
import { backupOnline } from '../src/backup.js';
import { restore, type OfflineIo } from '../src/offline.js';
import { run } from './support/run-cli.js';

let root: string;
let n = 0;
const fresh = (name: string) => path.join(root, `${name}-${++n}`);

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ianode-backup-cli-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function quietIo(): OfflineIo & { out: string; err: string } {
  const io = { out: '', err: '', stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t), progress: undefined };
  return io;
}

const DEFAULT_LABEL = 'employee';
const HIERARCHY: [string, string[]][] = [['clearance', ['O', 'OS', 'S', 'TS']]];
/** Three users: an employee cleared S, a contractor cleared O, a TS analyst without employee. */
const USERS = [['employee', 'clearance=S'], ['contractor', 'clearance=O'], ['clearance=TS']];
const ALL_QUADS = 'SELECT ?g ?s ?p ?o WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } } ORDER BY ?g ?s ?p ?o';

function answer(dataset: Dataset & { view(visible: (label: string) => boolean): Dataset }, attributes: string[]): string {
  const hierarchies = new Map(HIERARCHY.map(([name, tiers]) => [name, new Hierarchy(name, tiers)] as const));
  const evaluator = new LabelEvaluator(AttributeSet.from(attributes), (name) => hierarchies.get(name));
  return serialiseResultToString(executeQuery(dataset.view((label) => evaluator.isVisible(label)), ALL_QUADS), 'application/sparql-results+json');
}

/** Labelled data: label-less, S, TS and a disjunction, in the default and a named graph, and a
 * bulk of label-less quads so the backup streams many chunks while the writes go on. */
async function seed(store: QuadStore): Promise<void> {
  await store.load(`@prefix ex: <http://ex/> .
ex:plain ex:p "no label of its own" .
ex:g1 { ex:gs ex:p "secret in g1"@en . }
ex:top ex:p "top secret" .
ex:either ex:p "contractor or employee" .
<http://ndtp.co.uk/security#labels> {
  [ <http://ndtp.co.uk/security#pattern> '<http://ex/g1> <http://ex/gs> <http://ex/p> "secret in g1"@en' ; <http://ndtp.co.uk/security#label> "clearance=S" ] .
  [ <http://ndtp.co.uk/security#pattern> '<http://ex/top> <http://ex/p> "top secret"' ; <http://ndtp.co.uk/security#label> "clearance=TS" ] .
  [ <http://ndtp.co.uk/security#pattern> '<http://ex/either> <http://ex/p> "contractor or employee"' ; <http://ndtp.co.uk/security#label> "contractor || employee" ] .
}`, { format: 'application/trig' });
  const bulk = Array.from({ length: 30_000 }, (_, i) => `<http://ex/bulk${i}> <http://ex/n> "${i}" .`).join('\n');
  await store.load(bulk, { format: 'application/n-triples', label: 'clearance=O' });
}

describe('a backup during concurrent writes', () => {
  it('restores to the state of exactly one commit, with the same views for three users', async () => {
    const source = await openStore({ dir: fresh('source'), defaultLabel: DEFAULT_LABEL });
    await seed(source);
    // Writer: write i adds the pair (w_i first i) (w_i second i), one transaction each, labelled
    // alternately; commits[i] = its txId.
    const commits: number[] = [];
    let stop = false;
    let backingUp = false;
    let duringBackup = 0;
    const writer = (async () => {
      for (let i = 1; !stop; i++) {
        const w = `<http://ex/w${i}`;
        const { txId } = await source.write((tx) => {
          const label = i % 2 === 0 ? 'clearance=S' : undefined;
          tx.add({ s: w, p: '<http://ex/first', o: `"${i}"`, g: '' }, label);
          tx.add({ s: w, p: '<http://ex/second', o: `"${i}"`, g: '' }, label);
        });
        commits[i] = txId;
        if (backingUp) duringBackup++;
      }
    })();
    while (commits.length < 4) await new Promise((resolve) => setTimeout(resolve, 5));

    // The state the backup is of: taken in the same synchronous step as the backup's own.
    const snapshot = source.snapshot();
    const backup = backupDataset({ name: 'ds', store: source }, fresh('backups'));
    backingUp = true;
    const result = await backup;
    backingUp = false;
    const afterBackup = commits.length;
    while (commits.length < afterBackup + 2) await new Promise((resolve) => setTimeout(resolve, 5));
    stop = true;
    await writer;

    expect(duringBackup, 'writes committed while the backup was written').toBeGreaterThan(0);
    expect(result.txId).toBe((snapshot as unknown as { state: { txId: number } }).state.txId);
    const k = commits.filter((txId) => txId <= result.txId).length;
    expect(k).toBeGreaterThan(0);
    expect(k).toBeLessThan(commits.length - 1);

    const to = fresh('restored');
    const io = quietIo();
    expect(await restore(result.file, to, io)).toBe(0);
    expect(io.out).toMatch(/^restored 1 file/);
    const restored = await openStore({ dir: to, defaultLabel: DEFAULT_LABEL });
    try {
      // Whole pairs 1..k, nothing after: the state of one commit.
      const numbers = (p: string) =>
        [...restored.snapshot().match({ p: restored.lookup(DataFactory.namedNode(`http://ex/${p}`)) ?? -1 })].length;
      expect(numbers('first')).toBe(k);
      expect(numbers('second')).toBe(k);
      const pairs = executeQuery(restored.snapshot(), 'SELECT ?s WHERE { ?s <http://ex/first> ?n . ?s <http://ex/second> ?n }');
      if (pairs.type !== 'bindings') throw new Error('expected bindings');
      const got = [...pairs.solutions].map((s) => Number((s.get('s') as { value: string }).value.slice('http://ex/w'.length))).sort((a, b) => a - b);
      expect(got).toEqual(Array.from({ length: k }, (_, i) => i + 1));
      expect(restored.stats().quads).toBe(snapshot.count({}));
      // Labels: the same answers for three users as the state the backup is of.
      const views = USERS.map((u) => answer(restored.snapshot(), u));
      expect(new Set(views).size).toBe(3);
      expect(views).toEqual(USERS.map((u) => answer(snapshot, u)));
    } finally {
      await restored.close();
      await source.close();
    }
  }, 120_000);
});

describe('ianode backup --server', () => {
  let app: FastifyInstance;
  let url: string;
  let store: QuadStore;
  let backupDir: string;

  // The served store is seeded once (backups only read it); the server, its task registry and its
  // backup folder are new for every test, so no test sees the tasks or files of another.
  beforeAll(async () => {
    store = await openStore({ dir: fresh('served'), defaultLabel: DEFAULT_LABEL });
    await seed(store);
  });
  afterAll(() => store.close());
  beforeEach(async () => {
    backupDir = fresh('server-backups');
    const datasets = new Map<string, BackupTarget>([['ds', { name: 'ds', store }]]);
    app = Fastify({ logger: false });
    app.setErrorHandler((error, _request, reply) => {
      const out = errorReply(error);
      return reply.code(out.status).headers(out.headers).send(out.body);
    });
    registerBackupRoutes(app, {
      datasets: () => datasets,
      authorizeAdmin: async (request: FastifyRequest) => {
        if (request.headers.authorization === undefined) throw new AuthError('MISSING_TOKEN', 'no bearer token');
        if (request.headers.authorization !== 'Bearer admin-token') throw new AuthError('FORBIDDEN', 'administrators only');
      },
      tasks: new Tasks(),
      backup: resolveBackupConfig({ dir: backupDir, keep: 1 }),
      audit: () => undefined,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterEach(() => app.close());

  const capture = () => {
    const io = { out: '', err: '', stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t), progress: undefined, pollMs: 20 };
    return io;
  };

  it('--wait: starts the task, follows it to the end and names the file; a restore gives the views back', async () => {
    const io = capture();
    expect(await backupOnline({ server: `${url}/ds`, dataset: 'ds', token: 'admin-token', wait: true }, io)).toBe(0);
    expect(io.err).toBe('');
    expect(io.out).toMatch(new RegExp(`^backup of ds started: task [0-9a-f-]{36} \\(${url.replace(/[.]/g, '\\.')}/\\$/tasks/[0-9a-f-]{36}\\)\n`));
    const file = /to (ds_\S+\.trig\.gz) \(in the server's backup\.dir\)/.exec(io.out)?.[1];
    expect(file, io.out).toBeDefined();
    expect(io.out).toContain(`at transaction ${store.stats().txId}: ${store.stats().quads} quads (30003 with a label of their own), 0 pending labels`);
    expect(await readdir(backupDir)).toEqual([file]);

    const to = fresh('restored');
    expect(await restore(path.join(backupDir, file!), to, quietIo())).toBe(0);
    const restored = await openStore({ dir: to, defaultLabel: DEFAULT_LABEL });
    try {
      expect(USERS.map((u) => answer(restored.snapshot(), u))).toEqual(USERS.map((u) => answer(store.snapshot(), u)));
    } finally {
      await restored.close();
    }
  }, 60_000);

  it('without --wait: prints the task and returns; keep: 1 leaves the newest file only', async () => {
    const io = capture();
    expect(await backupOnline({ server: url, dataset: 'ds', token: 'admin-token', wait: false }, io)).toBe(0);
    expect(io.out).toMatch(/^backup of ds (started|already under way): task /);
    const waited = capture();
    expect(await backupOnline({ server: url, dataset: 'ds', token: 'admin-token', wait: true }, waited)).toBe(0);
    expect(await readdir(backupDir)).toHaveLength(1);
  }, 60_000);

  it('--wait shows the progress of a running task on stderr', async () => {
    // A server whose backup tasks wait, once they have reported 5 of 10, until the client has
    // shown that progress (a real Tasks registry, gated: no timing in the test).
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    class GatedTasks extends Tasks {
      override start(kind: string, dataset: string, run: TaskRun): TaskInfo {
        return super.start(kind, dataset, async (progress) => {
          progress(5, 10);
          await gate;
          return run(progress);
        });
      }
    }
    const gated = Fastify({ logger: false });
    registerBackupRoutes(gated, {
      datasets: () => new Map([['ds', { name: 'ds', store }]]),
      authorizeAdmin: async () => undefined,
      tasks: new GatedTasks(),
      backup: resolveBackupConfig({ dir: fresh('gated-backups') }),
      audit: () => undefined,
    });
    await gated.listen({ port: 0, host: '127.0.0.1' });
    try {
      let clock = 0;
      const lines: string[] = [];
      const progress = {
        isTTY: false,
        now: () => (clock += 10_000),
        write: (text: string) => {
          lines.push(text);
          open();
        },
      };
      const captured = capture();
      const io = { ...captured, progress };
      const server = `http://127.0.0.1:${(gated.server.address() as AddressInfo).port}`;
      expect(await backupOnline({ server, dataset: 'ds', token: undefined, wait: true }, io)).toBe(0);
      expect(lines[0]).toMatch(/^backup ds: 5\/10 quads 50\.0%, .* ETA \d+s\n$/);
      expect(captured.out).toMatch(/backed up ds at transaction \d+/);
    } finally {
      await gated.close();
    }
  });

  it('refusals: no token (401, with the hint), not an administrator (403), an unknown dataset (404): exit 1', async () => {
    const none = capture();
    expect(await backupOnline({ server: url, dataset: 'ds', token: undefined, wait: true }, none)).toBe(1);
    expect(none.err).toMatch(/refused the backup of ds: 401 MISSING_TOKEN: no bearer token \(set \$IDP_ID_TOKEN/);
    const user = capture();
    expect(await backupOnline({ server: url, dataset: 'ds', token: 'user-token', wait: true }, user)).toBe(1);
    expect(user.err).toContain('403 FORBIDDEN: administrators only');
    const unknown = capture();
    expect(await backupOnline({ server: url, dataset: 'nope', token: 'admin-token', wait: true }, unknown)).toBe(1);
    expect(unknown.err).toContain('404 NOT_FOUND: no dataset "nope"');
    expect(none.out + user.out + unknown.out).toBe('');
  });

  it('the command line: --server (or $IANODE_URL\'s origin), --dataset, --wait, $IDP_ID_TOKEN', async () => {
    const r = await run(['backup', '--dataset', 'ds', '--wait'], { IANODE_URL: 'http://graph.example:8080/ds', IDP_ID_TOKEN: 'tok' });
    expect(r.code).toBe(0);
    expect(r.calls).toEqual([['backup', { server: 'http://graph.example:8080', dataset: 'ds', token: 'tok', wait: true, quiet: false }]]);
    const s = await run(['backup', '--server', 'http://h:1', '--dataset', 'x', '-q'], {});
    expect(s.calls).toEqual([['backup', { server: 'http://h:1', dataset: 'x', token: undefined, wait: false, quiet: true }]]);
    const missing = await run(['backup'], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('needs --dataset NAME');
    const bad = await run(['backup', '--server', 'ftp://x', '--dataset', 'ds'], {});
    expect(bad.code).toBe(2);
    const help = await run(['backup', '--help'], {});
    expect(help.stdout).toContain('POST URL/$/backup/NAME');
    expect(help.calls).toEqual([]);
  });
});
