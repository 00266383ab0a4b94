/**
 * The backup and task routes (../src/routes/backups.ts) on a real Fastify app over a real store:
 * non-administrators are refused before anything else (the same reply whatever they ask about),
 * unknown datasets and tasks are 404, a backup is a task whose file is then listed, and without
 * `backup.dir` the server says how to configure it.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthError } from '@ianode/auth';
import { openStore, type QuadStore } from '@ianode/store';
import { resolveBackupConfig, type BackupTarget } from '../src/backup.js';
import { errorReply } from '../src/errors.js';
import { registerBackupRoutes } from '../src/routes/backups.js';
import { Tasks, type TaskInfo } from '../src/tasks.js';

let root: string;
let store: QuadStore;
let datasets: Map<string, BackupTarget>;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ianode-backup-routes-'));
  store = await openStore({ dir: path.join(root, 'store') });
  await store.load('<http://ex/a> <http://ex/p> "a" .\n<http://ex/b> <http://ex/p> "b" .\n', { format: 'application/n-triples', label: 'clearance=S' });
  datasets = new Map([['ds', { name: 'ds', store }]]);
});
afterAll(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

/** Bearer admin: an administrator; Bearer user: a valid caller who is not; none: no token. */
async function authorizeAdmin(request: FastifyRequest): Promise<void> {
  const auth = request.headers.authorization;
  if (auth === undefined) throw new AuthError('MISSING_TOKEN', 'no bearer token');
  if (auth !== 'Bearer admin') throw new AuthError('FORBIDDEN', 'administrators only');
}

function build(backupDir: string | undefined) {
  const app: FastifyInstance = Fastify({ logger: false });
  app.setErrorHandler((error, _request, reply) => {
    const out = errorReply(error);
    return reply.code(out.status).headers(out.headers).send(out.body);
  });
  const tasks = new Tasks();
  const audits: [string, Record<string, unknown>][] = [];
  registerBackupRoutes(app, {
    datasets: () => datasets,
    authorizeAdmin,
    tasks,
    backup: backupDir === undefined ? undefined : resolveBackupConfig({ dir: backupDir }),
    audit: (_request, operation, fields) => audits.push([operation, fields]),
  });
  return { app, tasks, audits };
}

const ROUTES: [string, string][] = [
  ['POST', '/$/backup/ds'],
  ['POST', '/$/backup/nope'],
  ['GET', '/$/backups'],
  ['GET', '/$/backups-list'],
  ['GET', '/$/tasks'],
  ['GET', '/$/tasks/00000000-0000-4000-8000-000000000000'],
];

describe('backup routes', () => {
  it('refuse callers who are not administrators, the same way whatever they ask (401 without a token, 403 with one)', async () => {
    for (const configured of [true, false]) {
      const dir = path.join(root, `refused-${configured}`);
      const { app, tasks, audits } = build(configured ? dir : undefined);
      for (const [who, status, code] of [[undefined, 401, 'MISSING_TOKEN'], ['Bearer user', 403, 'FORBIDDEN']] as const) {
        const bodies = new Set<string>();
        for (const [method, url] of ROUTES) {
          const r = await app.inject({ method, url, headers: who === undefined ? {} : { authorization: who } });
          expect(r.statusCode, `${method} ${url}`).toBe(status);
          expect(r.json().code).toBe(code);
          bodies.add(r.body);
        }
        expect(bodies.size).toBe(1); // nothing tells ds from nope, or a task from none
      }
      expect(tasks.list()).toEqual([]);
      expect(audits).toEqual([]);
      expect(await readdir(dir).catch(() => [])).toEqual([]);
      await app.close();
    }
  });

  it('POST /$/backup/{name}: 202 with the task; the task ends with the file; /$/backups lists it', async () => {
    const dir = path.join(root, 'backups');
    const { app, tasks, audits } = build(dir);
    const admin = { authorization: 'Bearer admin' };
    const r = await app.inject({ method: 'POST', url: '/$/backup/ds', headers: admin });
    expect(r.statusCode).toBe(202);
    const { taskId, requestId, started } = r.json() as { taskId: string; requestId: string; started: boolean };
    expect(started).toBe(true);
    expect(typeof requestId).toBe('string');
    expect(r.headers.location).toBe(`/$/tasks/${taskId}`);
    expect(audits).toEqual([['backup', { outcome: 'started', backupDataset: 'ds', taskId }]]);

    let task!: TaskInfo;
    await vi.waitFor(async () => {
      const t = await app.inject({ method: 'GET', url: r.headers.location as string, headers: admin });
      expect(t.statusCode).toBe(200);
      task = t.json() as TaskInfo;
      expect(task.state).toBe('succeeded');
    });
    expect(task).toMatchObject({ id: taskId, kind: 'backup', dataset: 'ds', progress: { done: 2, total: 2 }, result: { quads: 2, labelled: 2, txId: store.stats().txId } });
    const file = (task.result as { file: string }).file;
    expect(file).toMatch(/^ds_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}-\d{3}Z\.trig\.gz$/);
    expect(await readdir(dir)).toEqual([file]);

    for (const url of ['/$/backups', '/$/backups-list']) {
      const list = await app.inject({ method: 'GET', url, headers: admin });
      expect(list.statusCode).toBe(200);
      expect(list.json()).toEqual({ backups: [{ file, dataset: 'ds', takenAt: expect.any(String), bytes: (task.result as { bytes: number }).bytes }] });
    }
    const all = await app.inject({ method: 'GET', url: '/$/tasks', headers: admin });
    expect((all.json() as { tasks: TaskInfo[] }).tasks.map((t) => t.id)).toEqual([taskId]);
    expect(tasks.get(taskId)?.state).toBe('succeeded');
    await app.close();
  });

  it('404 for an unknown dataset or task; 503 NOT_CONFIGURED, saying how, without backup.dir', async () => {
    const { app, tasks } = build(path.join(root, 'unused'));
    const admin = { authorization: 'Bearer admin' };
    const nope = await app.inject({ method: 'POST', url: '/$/backup/nope', headers: admin });
    expect(nope.statusCode).toBe(404);
    expect(nope.json()).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('"nope"') });
    const task = await app.inject({ method: 'GET', url: '/$/tasks/00000000-0000-4000-8000-000000000000', headers: admin });
    expect(task.statusCode).toBe(404);
    expect(tasks.list()).toEqual([]);
    await app.close();

    const off = build(undefined);
    for (const [method, url] of [['POST', '/$/backup/ds'], ['GET', '/$/backups']] as const) {
      const r = await off.app.inject({ method, url, headers: admin });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toMatchObject({ code: 'NOT_CONFIGURED', message: expect.stringContaining('backup.dir') });
    }
    expect((await off.app.inject({ method: 'POST', url: '/$/backup/nope', headers: admin })).statusCode).toBe(404);
    expect(off.tasks.list()).toEqual([]);
    expect((await off.app.inject({ method: 'GET', url: '/$/tasks', headers: admin })).json()).toEqual({ tasks: [] });
    await off.app.close();
  });
});
