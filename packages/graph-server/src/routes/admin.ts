/**
 * The server's admin API (docs/operations.md "Admin API"), for callers that satisfy `server.admin`
 * (401/403 before anything else, as Fuseki's admin protocol is for its administrators):
 *
 * - `GET /$/datasets`, `GET /$/datasets/{name}`: the datasets with their settings and state;
 * - `POST /$/datasets`: add one (JSON settings, or Fuseki's form `dbName` + `dbType`);
 * - `DELETE /$/datasets/{name}`: remove one added over the API (its folder is kept);
 * - `GET /$/server`: the server (version, start, uptime, mode, datasets and their endpoints);
 * - `GET /$/stats`, `GET /$/stats/{name}`: requests, good, bad, errors and timing per dataset and endpoint.
 *
 * Every call is recorded in the audit log. Nothing here reads a store's data: no figure depends on
 * quads (quad counts are the labels administration's, over the administrator's own view).
 */
import { createReadStream, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { openStore } from '@ianode/store';
import { parseBackupFileName, type ResolvedBackupConfig } from '../backup.js';
import { storeTuning } from '../config.js';
import type { Tasks } from '../tasks.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DatasetConfig, DatasetConfigInput, GraphServerConfig } from '../config.js';
import { resolveDatasetConfig } from '../config.js';
import type { Dataset, DatasetStoreSource } from '../dataset.js';
import { GraphServerError } from '../errors.js';
import type { DatasetRegistry } from '../registry.js';
import type { Caller } from '../security.js';
import type { RequestStats } from '../stats.js';
import type { Timers } from '../body-reader.js';
import { auditRequest } from '../request-audit.js';

export interface AdminContext {
  config: GraphServerConfig;
  /** The open datasets (this module adds and removes entries). */
  datasets: Map<string, Dataset>;
  registry: DatasetRegistry;
  stats: RequestStats;
  /** 401/403 unless the caller satisfies `server.admin`. */
  authorizeAdmin(request: FastifyRequest): Promise<Caller>;
  /** Opens a dataset with the server's shared parts. */
  open(config: DatasetConfig, source?: DatasetStoreSource): Promise<Dataset>;
  now: () => number;
  /** How long a removed dataset's requests in flight may finish before they are cut. */
  graceMs: number;
  timers: Timers;
  /** Long operations (a restore into a new dataset is one). */
  tasks: Tasks;
  /** `backup:` of the configuration: where `restore` files are read from. */
  backup: ResolvedBackupConfig | undefined;
}

const VERSION = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
})();

/** Settings `POST /$/datasets` takes (the rest of a dataset's configuration is the file's business:
 * a folder path, for one, is never taken from a request). */
const SETTINGS = ['restore', 'defaultLabel', 'permissions', 'labels', 'limits', 'graphql', 'checkpointBytes', 'checkpointIntervalMs', 'compactDeletedFraction', 'compactMinDeleted'] as const;

export function registerAdmin(parent: FastifyInstance, ctx: AdminContext): void {
  const startedAt = ctx.now();
  void parent.register(async (app) => {
    // Authorisation before anything of the request is read (a body that does not parse, a dataset
    // that does not exist: a non-administrator learns neither).
    app.addHook('onRequest', async (request) => {
      await ctx.authorizeAdmin(request);
    });
    // Fuseki's admin forms (dbName=…&dbType=…).
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    registerAdminRoutes(app, ctx, startedAt);
  });
}

function registerAdminRoutes(app: FastifyInstance, ctx: AdminContext, startedAt: number): void {
  /** Datasets being opened or removed: a second add or remove of the same name waits its turn (409). */
  const busy = new Set<string>();

  const describe = (dataset: Dataset) => {
    const { dataset: settings, limits, graphql } = dataset.config;
    const status = dataset.storeStatus();
    return {
      name: dataset.name,
      path: `/${dataset.name}`,
      state: status.state,
      storage: settings.storage === undefined ? 'memory' : 'persistent',
      source: ctx.registry.has(dataset.name) ? 'api' : 'configuration',
      defaultLabel: settings.defaultLabel,
      permissions: settings.permissions,
      graphql,
      kafka: dataset.kafka === undefined ? undefined : { topic: settings.kafka!.topic, state: dataset.kafka.status().state },
      limits: { queryTimeoutMs: limits.queryTimeoutMs, uploadBytes: limits.uploadBytes, resultRows: limits.resultRows, queryWorkers: dataset.pool.stats().ready },
      endpoints: endpointsOf(dataset),
    };
  };

  app.get('/$/datasets', async (request) => {
    auditRequest(request, 'admin', 'datasets-list', { outcome: 'ok' });
    return { datasets: [...ctx.datasets.values()].map(describe) };
  });

  app.get<{ Params: { name: string } }>('/$/datasets/:name', async (request) => {
    const dataset = ctx.datasets.get(request.params.name);
    if (dataset === undefined) throw new GraphServerError('NOT_FOUND', `no dataset /${request.params.name} on this server`);
    auditRequest(request, 'admin', 'datasets-get', { outcome: 'ok', target: dataset.name });
    return describe(dataset);
  });

  app.post('/$/datasets', async (request, reply) => {
    const { name, persistent, settings } = readAddRequest(request, ctx.registry.dataDir !== undefined);
    try {
      if (ctx.datasets.has(name) || busy.has(name)) throw new GraphServerError('CONFLICT', `dataset /${name} exists already`);
      if (persistent && ctx.registry.dataDir === undefined) {
        throw new GraphServerError('BAD_REQUEST', 'a persistent dataset needs server.dataDir in the configuration (the folder of datasets added over the API); add it, or ask for dbType=mem');
      }
      // `existing` and `restore` are requests, not dataset settings.
      const { existing: _existing, restore, ...kept } = settings as DatasetConfigInput & { existing?: unknown; restore?: unknown };
      let config: DatasetConfig;
      try {
        config = resolveDatasetConfig({ ...kept, name, storage: persistent ? ctx.registry.folderOf(name) : undefined }, 'the dataset');
      } catch (error) {
        throw new GraphServerError('BAD_REQUEST', (error as Error).message);
      }
      if (persistent && existsSync(config.storage!) && readdirSync(config.storage!).length > 0 && (settings as { existing?: unknown }).existing !== true) {
        throw new GraphServerError('CONFLICT', `the folder of dataset /${name} holds data already (a dataset of that name was removed earlier): add it with "existing": true to open that data again, or move the folder away`);
      }
      if (restore !== undefined) {
        if (_existing === true) throw new GraphServerError('BAD_REQUEST', 'restore goes into a new, empty dataset: leave out "existing"');
        const task = startRestore(ctx, busy, config, restore, { name, persistent, kept, request });
        auditRequest(request, 'admin', 'datasets-restore', { outcome: 'started', target: name, persistent, file: task.file, task: task.id });
        return reply.code(202).header('location', `/$/tasks/${task.id}`).send({ taskId: task.id, requestId: request.id, dataset: name, file: task.file });
      }
      busy.add(name);
      let opened: Dataset;
      try {
        opened = await ctx.open(config);
      } finally {
        busy.delete(name);
      }
      try {
        await ctx.registry.add({ name, persistent, config: kept, added: new Date(ctx.now()).toISOString() });
      } catch (error) {
        await opened.close().catch(() => undefined);
        throw error;
      }
      ctx.datasets.set(name, opened);
      auditRequest(request, 'admin', 'datasets-add', { outcome: 'ok', target: name, persistent });
      request.log.info({ dataset: name, persistent }, 'dataset added');
      return reply.code(201).header('location', `/$/datasets/${name}`).send(describe(opened));
    } catch (error) {
      auditRequest(request, 'admin', 'datasets-add', { outcome: 'failed', target: name, code: (error as { code?: string }).code ?? 'INTERNAL' });
      throw error;
    }
  });

  app.delete<{ Params: { name: string } }>('/$/datasets/:name', async (request) => {
    const { name } = request.params;
    const dataset = ctx.datasets.get(name);
    if (dataset === undefined || busy.has(name)) throw new GraphServerError('NOT_FOUND', `no dataset /${name} on this server`);
    if (!ctx.registry.has(name)) {
      throw new GraphServerError('CONFLICT', `dataset /${name} comes from the configuration file: remove it there and restart (only datasets added over /$/datasets are removed here)`);
    }
    busy.add(name);
    try {
      // New requests for it answer 404 from now on; those in flight get the grace to finish.
      ctx.datasets.delete(name);
      await drain(dataset, ctx.graceMs, ctx.timers);
      await dataset.close();
      await ctx.registry.remove(name);
      ctx.stats.remove(name);
    } finally {
      busy.delete(name);
    }
    auditRequest(request, 'admin', 'datasets-remove', { outcome: 'ok', target: name });
    request.log.info({ dataset: name }, 'dataset removed');
    const storage = dataset.config.dataset.storage;
    return { removed: name, ...(storage === undefined ? {} : { kept: 'the data folder is kept: add the dataset again with "existing": true to open it, or delete the folder' }) };
  });

  app.get('/$/server', async (request) => {
    auditRequest(request, 'admin', 'server', { outcome: 'ok' });
    const now = ctx.now();
    return {
      name: 'ianode graph server',
      version: VERSION,
      node: process.version,
      startedAt: new Date(startedAt).toISOString(),
      uptimeSeconds: Math.round((now - startedAt) / 1000),
      mode: request.caller?.visible === undefined ? 'open' : 'secure',
      datasets: [...ctx.datasets.values()].map((dataset) => ({ name: dataset.name, path: `/${dataset.name}`, state: dataset.storeStatus().state, endpoints: endpointsOf(dataset) })),
    };
  });

  app.get('/$/stats', async (request) => {
    auditRequest(request, 'admin', 'stats', { outcome: 'ok' });
    return { datasets: ctx.stats.snapshot() };
  });

  app.get<{ Params: { name: string } }>('/$/stats/:name', async (request) => {
    const figures = ctx.stats.snapshot()[request.params.name];
    if (figures === undefined || !ctx.datasets.has(request.params.name)) throw new GraphServerError('NOT_FOUND', `no dataset /${request.params.name} on this server`);
    auditRequest(request, 'admin', 'stats', { outcome: 'ok', target: request.params.name });
    return { datasets: { [request.params.name]: figures } };
  });
}

/** The dataset's endpoints, as `/$/server` lists them (Fuseki lists its services the same way). */
function endpointsOf(dataset: Dataset): Record<string, string> {
  const ds = `/${dataset.name}`;
  return {
    query: `${ds}/query`,
    sparql: `${ds}/sparql`,
    update: `${ds}/update`,
    upload: `${ds}/upload`,
    patch: `${ds}/patch`,
    data: `${ds}/data`,
    labels: `${ds}/labels`,
    shacl: `${ds}/shacl`,
    ...(dataset.config.graphql ? { graphql: `${ds}/graphql` } : {}),
  };
}

/** A body of `POST /$/datasets`: JSON `{ name, persistent?, ...settings }` or Fuseki's form
 * (`dbName=/name&dbType=mem|tdb|tdb2|persistent`). Unknown keys are refused, naming them. */
function readAddRequest(request: FastifyRequest, hasDataDir: boolean): { name: string; persistent: boolean; settings: DatasetConfigInput } {
  const query = request.query as Record<string, unknown>;
  const body = (request.body ?? {}) as Record<string, unknown>;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new GraphServerError('BAD_REQUEST', 'the body must be a JSON object {"name": …} or a form dbName=…&dbType=…');
  const fuseki = body.dbName ?? query.dbName;
  if (fuseki !== undefined) {
    const type = String(body.dbType ?? query.dbType ?? (hasDataDir ? 'tdb2' : 'mem')).toLowerCase();
    if (!['mem', 'tdb', 'tdb2', 'persistent'].includes(type)) throw new GraphServerError('BAD_REQUEST', `dbType must be mem, tdb2 (or tdb, persistent), got ${JSON.stringify(type)}`);
    return { name: String(fuseki).replace(/^\//, ''), persistent: type !== 'mem', settings: {} };
  }
  const { name, persistent, existing, ...settings } = body;
  if (typeof name !== 'string') throw new GraphServerError('BAD_REQUEST', 'name: the dataset name is missing (a word of letters, digits, _ or -)');
  if (persistent !== undefined && typeof persistent !== 'boolean') throw new GraphServerError('BAD_REQUEST', 'persistent must be true or false');
  for (const key of Object.keys(settings)) {
    if (!(SETTINGS as readonly string[]).includes(key)) {
      throw new GraphServerError('BAD_REQUEST', `${key}: not a setting of POST /$/datasets (it takes name, persistent, existing, ${SETTINGS.join(', ')}); folders and Kafka connectors are set in the configuration file`);
    }
  }
  return { name, persistent: persistent ?? hasDataDir, settings: { ...settings, ...(existing === true ? { existing: true } : {}) } as DatasetConfigInput };
}

/** Waits until the dataset has no request in flight, or `graceMs`; then refuses bodies still arriving. */
async function drain(dataset: Dataset, graceMs: number, timers: Timers): Promise<void> {
  dataset.beginStop();
  let handle: unknown;
  const grace = new Promise<void>((resolve) => {
    handle = timers.setTimeout(resolve, graceMs);
  });
  await Promise.race([dataset.idle(), grace]);
  timers.clearTimeout(handle);
  if (dataset.inFlight > 0) dataset.endGrace();
}

/**
 * `POST /$/datasets` with `"restore": FILE`: a task that loads a backup of `backup.dir` (its file
 * name as `GET /$/backups` lists it) into the new dataset's empty store, and adds the dataset once
 * the whole file is in (all or nothing: a failure leaves no dataset and no folder). Until then the
 * name is taken (409) and its routes answer 404.
 */
function startRestore(
  ctx: AdminContext,
  busy: Set<string>,
  config: DatasetConfig,
  restore: unknown,
  what: { name: string; persistent: boolean; kept: DatasetConfigInput; request: FastifyRequest },
): { id: string; file: string } {
  if (ctx.backup === undefined) throw new GraphServerError('NOT_CONFIGURED', 'restore: backups are off (no backup.dir in the configuration); restore a file offline with ianode restore FILE --to DIR');
  if (typeof restore !== 'string' || restore !== path.basename(restore) || parseBackupFileName(restore) === undefined) {
    throw new GraphServerError('BAD_REQUEST', `restore must be the name of a backup file as GET /$/backups lists it (e.g. ds_2026-11-26_09-56-01-123Z.trig.gz), got ${JSON.stringify(restore).slice(0, 80)}`);
  }
  const file = path.join(ctx.backup.dir, restore);
  if (!existsSync(file) || !statSync(file).isFile()) throw new GraphServerError('NOT_FOUND', `no backup ${restore} in the backup folder`);
  const { name, persistent, kept, request } = what;
  const folder = config.storage;
  const existed = folder !== undefined && existsSync(folder);
  busy.add(name);
  const task = ctx.tasks.start('restore', name, async (progress) => {
    const total = statSync(file).size;
    let read = 0;
    const store = await openStore({ dir: folder, defaultLabel: config.defaultLabel, lockPurpose: 'graph server (restore)', ...storeTuning(config) });
    let opened: Dataset | undefined;
    try {
      async function* counted(): AsyncGenerator<Buffer> {
        for await (const chunk of createReadStream(file)) {
          read += (chunk as Buffer).length;
          progress(read, total);
          yield chunk as Buffer;
        }
      }
      let input: AsyncIterable<Uint8Array> = counted();
      if (file.endsWith('.gz')) {
        const gunzip = createGunzip();
        pipeline(counted(), gunzip, () => undefined);
        input = gunzip;
      }
      const result = await store.load(input, { format: 'application/trig' });
      await store.checkpoint();
      opened = await ctx.open(config, { store, own: true });
      await ctx.registry.add({ name, persistent, config: kept, added: new Date(ctx.now()).toISOString() });
      ctx.datasets.set(name, opened);
      request.log.info({ dataset: name, file: restore, quads: result.quads }, 'dataset restored');
      return { dataset: name, file: restore, quads: result.quads, labels: result.labels, txId: store.stats().txId };
    } catch (error) {
      if (opened !== undefined) await opened.close().catch(() => undefined);
      else await store.close().catch(() => undefined);
      // All or nothing: the folder goes back to absent (or empty).
      if (folder !== undefined) {
        if (existed) for (const entry of readdirSync(folder)) rmSync(path.join(folder, entry), { recursive: true, force: true });
        else rmSync(folder, { recursive: true, force: true });
      }
      throw error;
    } finally {
      busy.delete(name);
    }
  });
  return { id: task.id, file: restore };
}
