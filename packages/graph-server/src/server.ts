/**
 * `createGraphServer(config)`: the graph server as a library (STYLE.md "HTTP"). Opens every
 * dataset of the configuration (dataset.ts), builds the shared security pipeline, and answers the
 * server's own endpoints (`/$/…`: health, metrics, the admin API) on a front app that hands every
 * request under `/{dataset}` to that dataset's app; `main.ts` is the thin entry point.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LogController, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { createServiceApp } from '@ianode/service';
import type { QuadStore } from '@ianode/store';
import { resolveConfig, datasetView, isReservedName, type GraphServerConfig, type GraphServerConfigInput } from './config.js';
import { GraphServerError, installErrorHandling } from './errors.js';
import { createMetrics, type Metrics } from './metrics.js';
import { registerHealth } from './routes/health.js';
import { consoleOptions, registerConsole } from './routes/console.js';
import { registerAdmin } from './routes/admin.js';
import { createRateLimiter, createSecurity, type Caller, type Security } from './security.js';
import { realTimers, SpoolArea, type Timers } from './body-reader.js';
import { AuditLog } from './audit.js';
import { openDataset, type Dataset, type DatasetShared } from './dataset.js';
import { RequestStats } from './stats.js';
import { DatasetRegistry } from './registry.js';
import type { PoolTimers, QueryPool } from './pool/pool.js';
import { Tasks } from './tasks.js';
import { BackupScheduler } from './backup.js';
import { registerBackupRoutes } from './routes/backups.js';
import { auditRequest } from './request-audit.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The audit log (./audit.ts), when the server made one. */
    auditLog?: AuditLog;
    /** The dataset named in audit records. */
    auditDataset?: string;
  }
  interface FastifyRequest {
    /** The authenticated caller (set for dataset routes before the body is read). */
    caller?: Caller;
    /** The error code of a refused request (its audit record). */
    auditCode?: string;
    /** Set once the request has its audit record (request-audit.ts; dataset.ts's onResponse hook adds none then). */
    audited?: boolean;
  }
}

export interface GraphServerOptions {
  /** Pino options (`false` = silent); `authorization` and cookies are always redacted. */
  logger?: FastifyServerOptions['logger'];
  /** An already open store for the first dataset (tests); otherwise opened from `dataset.storage`. */
  store?: QuadStore;
  /** Injectable fetch for JWKS and the access service (tests). */
  fetch?: typeof globalThis.fetch;
  now?: () => number;
  /** Unknown-`kid` JWKS refetch cool-down (default 30 s). */
  jwksCooldownMs?: number;
  /** `JWKS_URL=aws:<region>`: the URL of a load-balancer key by region and kid (tests point it at a
   * local key server; default AWS's). */
  awsKeyUrl?: (region: string, kid: string) => string;
  /** Secure mode: check the access service at start (default true). */
  checkAccessService?: boolean;
  /** Secure mode: keep retrying the access-service check for this long (ms; default 0 = once). */
  waitForAccessServiceMs?: number;
  /** Base IRI for relative IRIs in queries and uploads. */
  baseIRI?: string;
  /** Timers of the body timeouts and the graceful stop (tests drive them by hand). */
  timers?: Timers;
  /** Timers of the query workers' deadlines (tests hold a deadline until they let it pass;
   * default the system's). */
  queryTimers?: PoolTimers;
  /** When each dataset's query worker threads start (../pool/pool.ts `start`): 'eager' at open,
   * with a spare, so the first query never waits for a thread (the service's main.ts); 'lazy'
   * (default) when queries come, no spare: a server that is never queried starts no thread. */
  queryWorkerStart?: 'eager' | 'lazy';
  /** Folder under which write bodies are spooled (a 0700 folder is made in it; default the OS temp). */
  spoolDir?: string;
}

export interface GraphServer {
  /** The front app: `/$/…` endpoints, and every dataset's requests handed to its own app. */
  app: FastifyInstance;
  config: GraphServerConfig;
  /** The first configured dataset's store, security and query workers (a one-dataset server's). */
  store: QuadStore;
  security: Security;
  metrics: Metrics;
  /** The query workers (pool/pool.ts). */
  pool: QueryPool;
  /** Every open dataset by name (datasets added and removed over `/$/datasets` included). */
  datasets: ReadonlyMap<string, Dataset>;
  listen(options?: { port?: number; host?: string }): Promise<string>;
  /** Graceful stop: stop accepting, let in-flight requests finish for up to
   * `limits.shutdownGraceMs`, then end the rest (write bodies still arriving: 503) and close the
   * stores. Returns within the grace plus a short margin. */
  close(): Promise<void>;
}

/** After the grace: time for 503 replies to go out before sockets are cut, and for the stores to close. */
const CLOSE_MARGIN_MS = 1_000;

export async function createGraphServer(input: GraphServerConfigInput | GraphServerConfig, options: GraphServerOptions = {}): Promise<GraphServer> {
  const config = resolveConfig(input as GraphServerConfigInput);
  // The server's security judges the admin API (`server.admin`); each dataset derives its own
  // permissions from it, sharing the key set, the revocation list and the attribute cache.
  const adminPermission = config.server.admin;
  const security = createSecurity({
    security: config.security,
    permissions: { read: adminPermission, write: adminPermission, admin: adminPermission },
    datasetName: '$',
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.jwksCooldownMs === undefined ? {} : { jwksCooldownMs: options.jwksCooldownMs }),
    ...(options.awsKeyUrl ? { awsKeyUrl: options.awsKeyUrl } : {}),
  });
  if (security.secure && options.checkAccessService !== false) await waitForAccessService(security, options.waitForAccessServiceMs ?? 0);

  const metrics = createMetrics();
  const stats = new RequestStats();
  const datasets = new Map<string, Dataset>();
  /** The dataset each request was handed to (null: the front app's own), decided once per request
   * for the dispatch, the request logs and the metrics alike. */
  const routedTo = new WeakMap<IncomingMessage, Dataset | null>();
  const datasetOf = (raw: IncomingMessage): Dataset | undefined => {
    let hit = routedTo.get(raw);
    if (hit === undefined) {
      const name = firstSegment(raw.url ?? '/');
      hit = (name === undefined ? undefined : datasets.get(name)) ?? null;
      routedTo.set(raw, hit);
    }
    return hit ?? undefined;
  };
  // Request ids (`x-request-id`, echoed on every reply) and log redaction: the service skeleton.
  const app = createServiceApp({
    logger: options.logger,
    bodyLimit: config.limits.requestBytes,
    // Bodies Fastify reads itself (SPARQL query, update and form bodies) get the same total bound
    // as uploads (Node answers 408 and closes); upload and GSP bodies have their own idle and
    // total timers (body-reader.ts). None of these bodies is read under the writer lock.
    requestTimeout: config.limits.bodyTimeoutMs,
    // OPTIONS answered before authentication; CORS for `cors.origins` (none by default).
    cors: config.cors,
    // Each dataset's app logs the requests handed to it; the front app logs only its own.
    logController: new LogController({ disableRequestLogging: (request: { raw?: IncomingMessage } & Partial<IncomingMessage>) => datasetOf(request.raw ?? (request as IncomingMessage)) !== undefined }),
  });
  // The audit log (audit.ts): the file is opened now, so a path that cannot be written stops the start
  // (before any store is opened, so nothing is left open).
  const auditLog = new AuditLog(config.audit, { info: (fields, message) => app.log.info(fields, message), error: (fields, message) => app.log.error(fields, message) }, options.now);
  app.decorate('auditLog', auditLog);
  if (security.secure && security.revocations === undefined) {
    app.log.warn('no revocationUrl (REVOCATION_URL): tokens of signed-out, disabled or deleted users are accepted until they expire');
  }
  if (!security.secure) {
    app.log.warn('OPEN MODE: JWKS_URL is unset or "disabled" — no authentication, no ABAC, every triple is visible to every caller. For local experiments only.');
  }

  const timers = options.timers ?? realTimers;
  const spoolArea = new SpoolArea(options.spoolDir);
  const shared: DatasetShared = { security, metrics, stats, auditLog, timers, spoolArea, logger: options.logger, baseIRI: options.baseIRI, now: options.now, queryTimers: options.queryTimers, queryWorkerStart: options.queryWorkerStart };
  const registry = new DatasetRegistry(config.server.dataDir);
  const closeDatasets = async () => {
    for (const dataset of [...datasets.values()].reverse()) await dataset.close().catch((error: unknown) => app.log.error({ err: error, dataset: dataset.name }, 'closing a dataset failed'));
  };
  try {
    for (const [i, dataset] of config.datasets.entries()) {
      const opened = await openDataset(datasetView(config, dataset), shared, i === 0 && options.store !== undefined ? { store: options.store } : {});
      datasets.set(opened.name, opened);
      stats.add(opened.name);
    }
    // Datasets added over the admin API in earlier runs (server.dataDir/datasets.json).
    for (const entry of await registry.read()) {
      if (datasets.has(entry.name)) throw new Error(`${registry.file}: dataset ${entry.name} is also in the configuration file; remove it from one of them`);
      const opened = await openDataset(datasetView(config, registry.resolve(entry)), shared);
      datasets.set(opened.name, opened);
      stats.add(opened.name);
    }
  } catch (error) {
    await closeDatasets();
    auditLog.close();
    await spoolArea.remove();
    throw error;
  }
  const first = datasets.get(config.dataset.name)!;

  // Requests under `/{dataset}` go to that dataset's app before the front app reads anything of
  // them (no body parsing here); everything else is the front app's own.
  app.addHook('onRequest', async (request, reply) => {
    const dataset = datasetOf(request.raw);
    if (dataset === undefined) return;
    // One request id in both apps' log lines and in the reply's x-request-id.
    request.raw.headers['x-request-id'] = request.id;
    reply.hijack();
    dataset.track(reply.raw);
    if (stopping) dataset.beginStop();
    dataset.app.routing(request.raw, reply.raw);
  });
  app.addHook('onResponse', async (request, reply) => {
    // A dataset's app logs and counts the requests handed to it.
    if (datasetOf(request.raw) !== undefined) return;
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observe(request.method, route, reply.statusCode, reply.elapsedTime);
  });
  installErrorHandling(app);
  app.setNotFoundHandler(async (request) => {
    const name = firstSegment(request.url);
    if (name !== undefined && !isReservedName(name) && /^[A-Za-z0-9_-]+$/.test(name)) {
      throw new GraphServerError('NOT_FOUND', `no dataset /${name} on this server${datasets.size > 0 ? '' : ' (it has none)'}`);
    }
    throw new GraphServerError('NOT_FOUND', `no endpoint ${request.method} ${request.url.split('?')[0]}`);
  });

  const rateLimit = createRateLimiter(config.limits.requestsPerMinute);
  /** The admin API's gate: a token whose caller satisfies `server.admin` (401/403 otherwise). */
  const authorizeAdmin = async (request: FastifyRequest): Promise<Caller> => {
    try {
      const caller = await security.authenticate(request.headers);
      rateLimit(caller.id);
      request.caller = caller;
      security.require(caller, 'admin');
      return caller;
    } catch (error) {
      metrics.authFailures.inc({ code: (error as { code?: string }).code ?? 'INTERNAL' });
      throw error;
    }
  };

  /** Set by close(): replies from then on close their connection (no keep-alive past the stop). */
  let stopping = false;
  // A reply that had started before the stop keeps its connection alive when it ends, and the
  // server's close waits for every connection: once such a reply is over, its now idle connection
  // is closed, so the stop waits for requests in flight, not for clients to hang up.
  app.server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    response.once('finish', () => {
      if (stopping) setImmediate(() => app.server.closeIdleConnections());
    });
  });
  // Long operations (backups) as tasks (`/$/tasks`); scheduled backups (`backup.every`).
  const tasks = new Tasks({
    ...(options.now ? { now: options.now } : {}),
    onFailure: (task, error) => app.log.error({ task: task.id, kind: task.kind, dataset: task.dataset, err: error }, 'task failed'),
  });
  registerHealth(app, { datasets: () => [...datasets.values()], security, metrics, auditFailure: () => auditLog.lastError });
  // The web console (docs/console.md): `/`, `/console/config.json`, `/console/assets/*`, no token
  // (a static page; every dataset and admin call it makes carries the signed-in user's token).
  registerConsole(app, consoleOptions(config));
  registerAdmin(app, {
    config,
    datasets,
    registry,
    stats,
    authorizeAdmin,
    now: options.now ?? Date.now,
    open: async (datasetConfig, source) => {
      const opened = await openDataset(datasetView(config, datasetConfig), shared, source);
      // Answers at once when the reply says it is there: its query workers are started first.
      try {
        await opened.pool.ready();
      } catch (error) {
        await opened.close().catch(() => undefined);
        throw error;
      }
      stats.add(opened.name);
      return opened;
    },
    graceMs: config.limits.shutdownGraceMs,
    timers,
    tasks,
    backup: config.backup,
  });
  registerBackupRoutes(app, {
    datasets: () => datasets,
    authorizeAdmin: async (request) => {
      await authorizeAdmin(request);
    },
    tasks,
    backup: config.backup,
    audit: (request, operation, fields) => auditRequest(request, 'admin', operation, fields),
    ...(options.now ? { now: options.now } : {}),
  });
  const scheduler = config.backup === undefined ? undefined : new BackupScheduler({ config: config.backup, datasets: () => datasets, tasks, timers, ...(options.now ? { now: options.now } : {}) });
  scheduler?.start();
  app.addHook('onClose', async () => {
    // A backup under way finishes (its file is whole or absent) before the stores close.
    await scheduler?.stop();
    await tasks.idle();
    await closeDatasets();
    await spoolArea.remove();
    auditLog.close();
  });
  await app.ready();

  const sleep = (ms: number) => {
    let handle: unknown;
    const promise = new Promise<void>((resolve) => {
      handle = timers.setTimeout(resolve, ms);
    });
    return { promise, cancel: () => timers.clearTimeout(handle) };
  };
  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    stopping = true;
    for (const dataset of datasets.values()) dataset.beginStop();
    // Stops accepting now; Fastify answers 503 to new requests on open connections, and closes
    // the datasets (onClose) once the last connection has ended.
    const closed = app.close().then(() => true, (error: unknown) => {
      app.log.error({ err: error }, 'close failed');
      return true;
    });
    const grace = sleep(config.limits.shutdownGraceMs);
    const done = await Promise.race([closed, grace.promise.then(() => false)]);
    grace.cancel();
    if (done) return;
    // Past the grace: write bodies still arriving end with 503 (nothing stored), then every
    // connection left is cut; a commit already under way finishes within the margin.
    const open = [...datasets.values()].reduce((n, d) => n + d.openBodies, 0);
    app.log.warn({ writes: open, graceMs: config.limits.shutdownGraceMs }, 'stopping: grace over, ending requests still open');
    for (const dataset of datasets.values()) dataset.endGrace();
    const margin = sleep(CLOSE_MARGIN_MS / 2);
    await Promise.race([closed, margin.promise]);
    margin.cancel();
    app.server.closeAllConnections();
    const last = sleep(CLOSE_MARGIN_MS / 2);
    const finished = await Promise.race([closed, last.promise.then(() => false)]);
    last.cancel();
    if (!finished) app.log.error('stopping: the stores did not close within the margin');
  };

  return {
    app,
    config,
    store: first.store,
    security: first.security,
    metrics,
    pool: first.pool,
    datasets,
    async listen({ port = 3030, host = '127.0.0.1' } = {}) {
      // Queries are answered by the workers: the server takes requests once every dataset's are ready.
      await Promise.all([...datasets.values()].map((dataset) => dataset.pool.ready()));
      return app.listen({ port, host });
    },
    close() {
      closing ??= close();
      return closing;
    },
  };
}

/** The first path segment of a request URL, percent-decoded (`/d%73/query` → `ds`); undefined for
 * `/`, for `/$/…` and for a segment that does not decode. */
export function firstSegment(url: string): string | undefined {
  const path = url.split('?')[0]!;
  const match = /^\/([^/]+)/.exec(path);
  if (match === null) return undefined;
  let segment: string;
  try {
    segment = decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
  return segment === '$' ? undefined : segment;
}

/** Secure mode start-up check (SPEC §1): the access service must answer; retried up to `waitMs`. */
export async function waitForAccessService(security: Security, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  let delay = 250;
  while (true) {
    try {
      await security.checkAccessService();
      return;
    } catch (error) {
      if (Date.now() + delay > deadline) {
        throw new Error(
          `secure mode: ${(error as Error).message}. Start the access service (USER_ATTRIBUTES_URL) first, or pass --wait <seconds> to retry`,
          { cause: error },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 2_000);
    }
  }
}
