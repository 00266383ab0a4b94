/**
 * Backups and tasks of the admin API (docs/operations.md "Backups"), as Fuseki's admin protocol
 * names them, for administrators only:
 *
 * - `POST /$/backup/{name}`: starts an online backup of dataset `name` (../backup.ts) as a task;
 *   202 `{ taskId, requestId, started }` with `Location: /$/tasks/{taskId}`. A backup of that
 *   dataset already under way is not started twice: its task is answered (`started: false`).
 *   404 for an unknown dataset; 503 NOT_CONFIGURED without `backup.dir`.
 * - `GET /$/backups` (and `/$/backups-list`): the backup files, the newest first, with dataset,
 *   time and size.
 * - `GET /$/tasks`, `GET /$/tasks/{id}`: the long operations, running and recently finished.
 *
 * Every route asks `authorizeAdmin` before it reads anything else (parameters included), so a
 * caller who is not an administrator learns nothing of datasets, files or tasks: they all get the
 * same 401/403.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { listBackups, startBackupTask, type BackupTarget, type ResolvedBackupConfig } from '../backup.js';
import { GraphServerError } from '../errors.js';
import type { Tasks } from '../tasks.js';

export interface BackupRouteDeps {
  /** The datasets of the server, by name (read at each request: datasets come and go). */
  datasets: () => ReadonlyMap<string, BackupTarget>;
  /** Throws a 401/403 GraphServerError (or AuthError) unless the caller is an administrator. */
  authorizeAdmin: (request: FastifyRequest) => Promise<void>;
  tasks: Tasks;
  /** `backup:` of the configuration; undefined: backups are off (503). */
  backup: ResolvedBackupConfig | undefined;
  /** One audit record of an admin action. */
  audit: (request: FastifyRequest, operation: string, fields: Record<string, unknown>) => void;
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number;
}

const NOT_CONFIGURED =
  'backups are not configured on this server: set backup.dir in the configuration file (e.g. backup: { dir: /var/lib/ianode/backups, every: 24h, keep: 7 }) and restart (docs/operations.md "Backups")';

export function registerBackupRoutes(app: FastifyInstance, deps: BackupRouteDeps): void {
  const config = (): ResolvedBackupConfig => {
    if (deps.backup === undefined) throw new GraphServerError('NOT_CONFIGURED', NOT_CONFIGURED);
    return deps.backup;
  };

  app.post('/$/backup/:name', async (request, reply) => {
    await deps.authorizeAdmin(request);
    const { name } = request.params as { name: string };
    const target = deps.datasets().get(name);
    if (target === undefined) throw new GraphServerError('NOT_FOUND', `no dataset ${JSON.stringify(name)} on this server (GET /$/datasets lists them)`);
    const { task, started } = startBackupTask(deps.tasks, target, config(), deps.now);
    deps.audit(request, 'backup', { outcome: started ? 'started' : 'running', backupDataset: name, taskId: task.id });
    return reply
      .code(202)
      .header('location', `/$/tasks/${task.id}`)
      .send({ taskId: task.id, requestId: request.id, started });
  });

  const list = async (request: FastifyRequest) => {
    await deps.authorizeAdmin(request);
    const backups = await listBackups(config().dir);
    return { backups: backups.map(({ file, dataset, takenAt, bytes }) => ({ file, dataset, takenAt, bytes })) };
  };
  app.get('/$/backups', list);
  app.get('/$/backups-list', list);

  app.get('/$/tasks', async (request) => {
    await deps.authorizeAdmin(request);
    return { tasks: deps.tasks.list() };
  });

  app.get('/$/tasks/:id', async (request) => {
    await deps.authorizeAdmin(request);
    const { id } = request.params as { id: string };
    const task = deps.tasks.get(id);
    if (task === undefined) throw new GraphServerError('NOT_FOUND', 'no such task (finished tasks are kept for a day, the last 100)');
    return task;
  });
}
