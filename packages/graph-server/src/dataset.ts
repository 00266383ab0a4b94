/**
 * One dataset of the server (docs/operations.md "Several datasets"): its store, query workers,
 * write boundary, Kafka connector and routes, as a Fastify app of its own that the server's front
 * app (server.ts) hands every request under `/{name}` to. Datasets share the server's token
 * verification and attribute caches, metrics, request figures and audit log; each has its own
 * permissions, default label, limits, GraphQL switch and storage, and answers only under its own
 * name, so one dataset's routes can never reach another's store.
 */
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import multipart from '@fastify/multipart';
import { createServiceApp } from '@ianode/service';
import { openStore, type QuadStore } from '@ianode/store';
import { availableParallelism } from 'node:os';
import { decodeUtf8Body, parseForm } from './body.js';
import { storeTuning, type GraphServerConfig } from './config.js';
import { GraphServerError, installErrorHandling } from './errors.js';
import type { Metrics } from './metrics.js';
import type { RouteContext } from './routes/context.js';
import { registerGraphql } from './routes/graphql.js';
import { registerGraphStore } from './routes/gsp.js';
import { registerLabelsAndShacl } from './routes/labels-shacl.js';
import { registerLabelAdmin } from './routes/labels-admin.js';
import { closeAfterReply } from './routes/respond.js';
import { registerSparql } from './routes/sparql.js';
import { registerPatch } from './routes/patch.js';
import { registerUpload } from './routes/upload.js';
import { createRateLimiter, type Caller, type Security } from './security.js';
import { BodyDeadline, spoolBody, type SpoolArea, type Timers } from './body-reader.js';
import { auditRequest } from './request-audit.js';
import { createWriter, type Writer } from './writes.js';
import type { AuditLog } from './audit.js';
import { KafkaConnector } from './kafka/connector.js';
import { QueryPool, type PoolTimers } from './pool/pool.js';
import { endpointOf, type RequestStats } from './stats.js';

/** How long past its deadline a query may run before its worker is terminated: the engine's own
 * checks end most queries at the deadline; this bounds the rest (a regex, a parse, a long step). */
const QUERY_KILL_GRACE_MS = 20;

/** What the server shares with each of its datasets. */
export interface DatasetShared {
  /** The server's security; each dataset judges its own permissions with it (`forDataset`). */
  security: Security;
  metrics: Metrics;
  stats: RequestStats;
  auditLog: AuditLog;
  timers: Timers;
  spoolArea: SpoolArea;
  logger: FastifyServerOptions['logger'];
  baseIRI: string | undefined;
  now?: (() => number) | undefined;
  /** The query workers' deadline timers (tests; default the system's). */
  queryTimers?: PoolTimers | undefined;
  /** When query workers start (GraphServerOptions.queryWorkerStart; default lazy). */
  queryWorkerStart?: 'eager' | 'lazy' | undefined;
}

/** Where a dataset's store comes from. */
export interface DatasetStoreSource {
  /** An already open store (tests, or a restore that built it); the dataset does not close it
   * unless `own` is set. */
  store?: QuadStore | undefined;
  own?: boolean;
}

export interface StoreStatus {
  state: 'open' | 'closed' | 'failed';
  reason?: string | undefined;
  checkpoint?: string | undefined;
}

export interface Dataset {
  readonly name: string;
  /** The configuration as this dataset's routes see it (config.ts `datasetView`). */
  readonly config: GraphServerConfig;
  readonly app: FastifyInstance;
  readonly store: QuadStore;
  readonly security: Security;
  readonly pool: QueryPool;
  readonly writer: Writer;
  readonly kafka: KafkaConnector | undefined;
  /** Requests handed to this dataset and not yet answered. */
  readonly inFlight: number;
  /** Resolves once no request handed to this dataset is left unanswered. */
  idle(): Promise<void>;
  /** Readiness: open, closed, or failed (a commit could not be logged); a failing checkpoint. */
  storeStatus(): StoreStatus;
  /** The request was handed to this dataset: counted until its reply has gone (or its connection has). */
  track(response: import('node:http').ServerResponse): void;
  /** A graceful stop began: replies from now on close their connection. */
  beginStop(): void;
  /** The grace is over: write bodies still arriving are refused (503, nothing stored). */
  endGrace(): void;
  /** Write bodies being read. */
  readonly openBodies: number;
  /** The connector, the query workers and (when it owns it) the store, in that order. */
  close(): Promise<void>;
}

/**
 * Opens one dataset: its store (unless given), its query workers and connector, and its routes.
 * `config` is the dataset's view (`datasetView`). Throws (nothing left open) when the store cannot
 * be opened or the connector cannot catch up.
 */
export async function openDataset(config: GraphServerConfig, shared: DatasetShared, source: DatasetStoreSource = {}): Promise<Dataset> {
  const name = config.dataset.name;
  const security = shared.security.forDataset(config.dataset.permissions, name);
  const { metrics, auditLog, timers } = shared;
  const app = createServiceApp({
    logger: shared.logger,
    bodyLimit: config.limits.requestBytes,
    // OPTIONS answered before authentication; CORS for `cors.origins` (none by default).
    cors: config.cors,
  });
  app.decorate('auditLog', auditLog);
  app.decorate('auditDataset', name);

  // The store reports its open (torn tail cut, damaged checkpoint passed over) through the server's
  // log; a damaged folder makes this throw STORE_CORRUPT, so the dataset does not open.
  const ownsStore = source.store === undefined || source.own === true;
  const store =
    source.store ??
    (await openStore({
      dir: config.dataset.storage,
      defaultLabel: config.dataset.defaultLabel,
      lockPurpose: 'graph server',
      ...storeTuning(config.dataset),
      log: (level, message, fields) => app.log[level]({ dataset: name, ...(fields ?? {}) }, message),
    }));

  app.removeAllContentTypeParsers();
  // SPARQL protocol bodies: UTF-8 only (415 for another charset, 400 for bytes that are not UTF-8).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (req, body, done) => {
    try {
      done(null, parseForm(decodeUtf8Body(body as Buffer, req.headers['content-type'])));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser(['application/sparql-query', 'application/sparql-update'], { parseAs: 'buffer' }, (req, body, done) => {
    try {
      done(null, decodeUtf8Body(body as Buffer, req.headers['content-type']));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new GraphServerError('BAD_REQUEST', 'the body is not JSON'), undefined);
    }
  });
  // Everything else (RDF for uploads) is passed on as a stream: uploads are streamed into the store.
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
  await app.register(multipart, { limits: { fileSize: config.limits.uploadBytes, files: 1 } });

  const rateLimit = createRateLimiter(config.limits.requestsPerMinute);
  const ds = `/${name}`;

  // Fail closed: every request the server hands to a dataset is authenticated first, whatever its
  // route (an unknown path under the dataset answers 401 to a caller without a token, 404 after).
  app.addHook('onRequest', async (request) => {
    try {
      const caller = await security.authenticate(request.headers);
      rateLimit(caller.id);
      request.caller = caller;
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'INTERNAL';
      metrics.authFailures.inc({ code });
      throw error;
    }
    const viewAs = request.headers['ianode-view-as'];
    if (viewAs !== undefined) request.caller = await viewingAs(request, Array.isArray(viewAs) ? viewAs.join(',') : viewAs);
    // Read your writes across replicas (docs/kafka.md): wait until the log position asked for is applied here.
    const wanted = request.headers['ianode-offset'];
    if (wanted !== undefined) await waitForOffset(kafka, wanted);
  });
  /**
   * "View as" (docs/graph-server.md): an administrator of the dataset reads as another user. Reads
   * only (GET and HEAD, and POST to the query and GraphQL endpoints); the answer is that user's
   * view and that user's read permission; every such request leaves an audit record.
   */
  const READ_POSTS = new Set([`${ds}/query`, `${ds}/sparql`, `${ds}/graphql`, `${ds}/ianode/graphql`, `${ds}/traversal/graphql`, `${ds}/dataset/graphql`]);
  const viewingAs = async (request: FastifyRequest, user: string): Promise<Caller> => {
    const caller = request.caller!;
    const name = user.trim();
    if (name === '' || name.length > 256) throw new GraphServerError('BAD_REQUEST', 'Ianode-View-As must name a user (their id in the access service)');
    const route = request.routeOptions.url;
    const isRead = request.method === 'GET' || request.method === 'HEAD' || (request.method === 'POST' && route !== undefined && READ_POSTS.has(route));
    if (!isRead) throw new GraphServerError('BAD_REQUEST', 'Ianode-View-As is for reads (queries, GraphQL, graph reads), never for writes');
    security.require(caller, 'admin');
    const viewed = await security.viewAs(request.headers, caller, name);
    auditRequest(request, 'admin', 'view-as', { outcome: 'ok', viewAs: name });
    return viewed;
  };
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    // Writes and admin actions were recorded by their routes; refusals (401/403) and, with
    // audit.reads, every other dataset request are recorded here (docs/graph-server.md, "Audit log").
    if (request.audited !== true && request.method !== 'OPTIONS') {
      const status = reply.statusCode;
      if (status === 401 || status === 403) auditRequest(request, 'denied', 'request', { outcome: 'refused', status, code: request.auditCode });
      else if (isWriteAttempt(request)) auditRequest(request, 'write', writeOperation(request), { outcome: 'failed', status, code: request.auditCode });
      else if (config.audit.reads) {
        auditRequest(request, 'read', 'read', {
          outcome: status < 400 ? 'ok' : 'failed', status, code: request.auditCode,
          ...(config.audit.queryText ? { query: queryText(request) } : {}),
        });
      }
    }
    metrics.observe(request.method, route, reply.statusCode, reply.elapsedTime);
    shared.stats.record(name, endpointOf(request.routeOptions.url, name), reply.statusCode, reply.elapsedTime);
  });

  // A write refused before it reached the write boundary (bad body, syntax error, wrong method):
  // the routes record writes from there on, this records the rest.
  const writeRoutes = new Set([`${ds}/upload`, `${ds}/update`, `${ds}/patch`, `${ds}/data`, `${ds}/data/*`, `${ds}/labels/relabel`]);
  const isWriteAttempt = (request: FastifyRequest): boolean => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return false;
    const route = request.routeOptions.url;
    if (route !== undefined && writeRoutes.has(route)) return true;
    const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const body = request.body as Record<string, unknown> | undefined;
    return type === 'application/sparql-update' || (type === 'application/x-www-form-urlencoded' && body !== null && typeof body === 'object' && 'update' in body);
  };
  const writeOperation = (request: FastifyRequest): string => {
    const route = request.routeOptions.url ?? '';
    if (route === `${ds}/upload`) return 'upload';
    if (route === `${ds}/patch`) return 'patch';
    if (route.startsWith(`${ds}/data`)) return `gsp-${request.method.toLowerCase()}`;
    if (route === `${ds}/labels/relabel`) return 'relabel';
    return 'sparql-update';
  };

  installErrorHandling(app, { queryTimeoutMs: config.limits.queryTimeoutMs });
  app.setNotFoundHandler(async (request) => {
    throw new GraphServerError('NOT_FOUND', `no endpoint ${request.method} ${request.url.split('?')[0]}`);
  });

  const { bodyIdleTimeoutMs, bodyTimeoutMs, spoolMemoryBytes } = config.limits;
  const openBodies = new Set<BodyDeadline>();
  /** Set by beginStop(): replies from then on close their connection (no keep-alive past the stop). */
  let stopping = false;
  /** Set by endGrace(): bodies still to be read are refused (503). */
  let graceOver = false;
  let storeClosed = false;
  let inFlight = 0;
  let idleWaiters: (() => void)[] = [];
  const pool = new QueryPool({
    size: config.limits.queryWorkers > 0 ? config.limits.queryWorkers : availableParallelism(),
    queueLimit: config.limits.queryQueue,
    killGraceMs: QUERY_KILL_GRACE_MS,
    start: shared.queryWorkerStart ?? 'lazy',
    state: store,
    log: (level, fields, message) => app.log[level]({ dataset: name, ...fields }, message),
    ...(shared.queryTimers ? { timers: shared.queryTimers } : {}),
  });
  // Workers take a moment to start (they load the query engine): an eager pool (the service's
  // main) starts them with the dataset; a lazy one (the library's default) when queries come.
  if (shared.queryWorkerStart === 'eager') pool.warm();
  metrics.watchPool(name, () => pool.stats());
  /** The caller as the workers need it (the pool refuses a secure-mode caller without a grant). */
  const jobCaller = (caller: Caller) => ({ open: caller.visible === undefined, grant: caller.grant });
  const writer = createWriter(store, { defaultLabel: config.dataset.defaultLabel, allowUnreadableLabels: config.writes.allowUnreadableLabels });
  // The dataset's Kafka connector (docs/kafka.md): started below, before the dataset is returned.
  const kafka = config.dataset.kafka === undefined
    ? undefined
    : new KafkaConnector({
      config: config.dataset.kafka,
      dataset: name,
      store,
      apply: { config, writer, baseIRI: shared.baseIRI, secure: security.secure },
      log: app.log,
      count: (outcome) => metrics.kafkaMessages.inc({ outcome }),
      // One audit record per message applied, refused or malformed (with its offset).
      audit: ({ kind, ...event }) => auditLog.record({ ...event, kind: 'kafka', operation: kind ?? 'message', dataset: name }),
    });
  if (kafka) metrics.watchKafka(name, () => kafka.status());
  const storeStatus = (): StoreStatus => {
    if (storeClosed) return { state: 'closed' };
    const written = writer.status();
    if (written.state !== 'ok') return { state: written.state === 'closed' ? 'closed' : 'failed', reason: written.reason };
    const checkpointError = (store as { lastCheckpointError?: Error }).lastCheckpointError as NodeJS.ErrnoException | undefined;
    return { state: 'open', checkpoint: checkpointError === undefined ? undefined : `the last checkpoint failed (${checkpointError.code ?? 'error'}); commits go on to the log` };
  };
  const ctx: RouteContext = {
    config,
    security,
    metrics,
    baseIRI: shared.baseIRI,
    queries: {
      pool,
      sparql: (caller, job) => pool.sparql(job, jobCaller(caller)),
      graphql: (caller, job) => pool.graphql(job, jobCaller(caller)),
      graph: (caller, job) => pool.graph(job, jobCaller(caller)),
      labels: (caller, job) => pool.labels(job, jobCaller(caller)),
      shacl: (caller, job) => pool.shacl(job, jobCaller(caller)),
    },
    writer,
    bodies: {
      deadline: (what) => {
        const deadline = new BodyDeadline({ idleMs: bodyIdleTimeoutMs, totalMs: bodyTimeoutMs }, timers, what, (d) => openBodies.delete(d));
        if (graceOver) deadline.fail(shuttingDown());
        else openBodies.add(deadline);
        return deadline;
      },
      spool: (body, deadline, limit) => spoolBody(body, { limit, memoryBytes: spoolMemoryBytes, area: shared.spoolArea, deadline }),
    },
    storeOpen: () => !storeClosed,
    storeStatus,
    auditFailure: () => auditLog.lastError,
    kafka,
  };
  app.addHook('onSend', async (_request, reply) => {
    if (stopping) closeAfterReply(reply);
  });
  registerSparql(app, ctx);
  registerUpload(app, ctx);
  registerPatch(app, ctx);
  registerGraphStore(app, ctx);
  registerGraphql(app, ctx);
  registerLabelsAndShacl(app, ctx);
  registerLabelAdmin(app, ctx);

  let closing: Promise<void> | undefined;
  const closeAll = async (): Promise<void> => {
    await kafka?.close();
    await pool.close();
    storeClosed = true;
    metrics.unwatch(name);
    await app.close();
    if (ownsStore) await store.close();
  };
  try {
    await app.ready();
    // On start the dataset catches up to the end of its topic before it serves HTTP (as the reference).
    if (kafka) await kafka.start();
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw error;
  }

  return {
    name,
    config,
    app,
    store,
    security,
    pool,
    writer,
    kafka,
    get inFlight() {
      return inFlight;
    },
    get openBodies() {
      return openBodies.size;
    },
    storeStatus,
    track(response) {
      inFlight += 1;
      response.once('close', () => {
        inFlight -= 1;
        if (inFlight > 0) return;
        for (const resolve of idleWaiters) resolve();
        idleWaiters = [];
      });
    },
    idle() {
      return inFlight === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve));
    },
    beginStop() {
      stopping = true;
    },
    endGrace() {
      graceOver = true;
      for (const deadline of [...openBodies]) deadline.fail(shuttingDown());
    },
    close() {
      closing ??= closeAll();
      return closing;
    },
  };
}

/** `Ianode-Offset: N` (or `0:N`, partition 0): wait up to `kafka.readWaitMs` until offset N is
 * applied here; 503 KAFKA_BEHIND (Retry-After) when it is not. */
async function waitForOffset(kafka: KafkaConnector | undefined, header: string | string[]): Promise<void> {
  const text = Array.isArray(header) ? header.join(',') : header;
  const match = /^\s*(?:0:)?(\d{1,19})\s*$/.exec(text);
  if (match === null) throw new GraphServerError('BAD_REQUEST', `Ianode-Offset must be a log offset (N, or 0:N for partition 0), got ${JSON.stringify(text.slice(0, 40))}`);
  if (kafka === undefined) throw new GraphServerError('BAD_REQUEST', 'Ianode-Offset: this dataset has no Kafka connector (dataset.kafka)');
  const offset = BigInt(match[1]!);
  const status = kafka.status();
  if (await kafka.waitApplied(offset, status.state === 'running' || status.state === 'catching-up' ? kafka.waitMs : 0)) return;
  throw new GraphServerError('KAFKA_BEHIND', `this replica has not applied log offset ${offset} yet (applied: ${kafka.status().partitions[0]!.applied ?? 'none'}, connector ${kafka.status().state}); retry, or ask another replica`, { headers: { 'retry-after': '1' } });
}

/** The query text of a SPARQL or GraphQL read, for `audit.queryText` (at most 64 KiB). */
function queryText(request: { query: unknown; body: unknown }): string | undefined {
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.query;
  const body = request.body;
  const text = typeof fromQuery === 'string' ? fromQuery
    : typeof body === 'string' ? body
      : body !== null && typeof body === 'object' && typeof (body as Record<string, unknown>).query === 'string' ? (body as Record<string, string>).query
        : undefined;
  return text === undefined ? undefined : text.slice(0, 64 * 1024);
}

export function shuttingDown(): GraphServerError {
  return new GraphServerError('SHUTTING_DOWN', 'the server is stopping: the request body was not read in time; nothing was stored. Retry against a running server');
}
