/**
 * `createGraphServer(config)`: the graph server as a library (STYLE.md "HTTP"). Opens the store,
 * builds the security pipeline, registers the routes; `main.ts` is the thin entry point.
 */
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import multipart from '@fastify/multipart';
import { createErrorHandler, createServiceApp } from '@ianode/service';
import { openStore, type QuadStore } from '@ianode/store';
import { decodeUtf8Body, parseForm } from './body.js';
import { resolveConfig, storeTuning, type GraphServerConfig, type GraphServerConfigInput } from './config.js';
import { errorReply, GraphServerError } from './errors.js';
import { createMetrics, type Metrics } from './metrics.js';
import type { RouteContext } from './routes/context.js';
import { registerGraphql } from './routes/graphql.js';
import { registerGraphStore } from './routes/gsp.js';
import { registerHealth } from './routes/health.js';
import { consoleOptions, isConsoleRoute, registerConsole } from './routes/console.js';
import { registerLabelsAndShacl } from './routes/labels-shacl.js';
import { registerLabelAdmin } from './routes/labels-admin.js';
import { closeAfterReply } from './routes/respond.js';
import { registerSparql } from './routes/sparql.js';
import { registerPatch } from './routes/patch.js';
import { registerUpload } from './routes/upload.js';
import { createRateLimiter, createSecurity, type Caller, type Security } from './security.js';
import { BodyDeadline, realTimers, SpoolArea, spoolBody, type Timers } from './body-reader.js';
import { auditRequest, createWriter } from './writes.js';
import { AuditLog } from './audit.js';
import { KafkaConnector } from './kafka/connector.js';
import { availableParallelism } from 'node:os';
import { QueryPool } from './pool/pool.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller (set for dataset routes before the body is read). */
    caller?: Caller;
    /** The error code of a refused request (its audit record). */
    auditCode?: string;
  }
}

export interface GraphServerOptions {
  /** Pino options (`false` = silent); `authorization` and cookies are always redacted. */
  logger?: FastifyServerOptions['logger'];
  /** An already open store (tests); otherwise opened from `dataset.storage`. */
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
  /** Folder under which write bodies are spooled (a 0700 folder is made in it; default the OS temp). */
  spoolDir?: string;
}

export interface GraphServer {
  app: FastifyInstance;
  config: GraphServerConfig;
  store: QuadStore;
  security: Security;
  metrics: Metrics;
  /** The query workers (pool/pool.ts). */
  pool: QueryPool;
  listen(options?: { port?: number; host?: string }): Promise<string>;
  /** Graceful stop: stop accepting, let in-flight requests finish for up to
   * `limits.shutdownGraceMs`, then end the rest (write bodies still arriving: 503) and close the
   * store. Returns within the grace plus a short margin. */
  close(): Promise<void>;
}

/** How long past its deadline a query may run before its worker is terminated: the engine's own
 * checks end most queries at the deadline; this bounds the rest (a regex, a parse, a long step). */
const QUERY_KILL_GRACE_MS = 20;

/** After the grace: time for 503 replies to go out before sockets are cut, and for the store to close. */
const CLOSE_MARGIN_MS = 1_000;

export async function createGraphServer(input: GraphServerConfigInput | GraphServerConfig, options: GraphServerOptions = {}): Promise<GraphServer> {
  const config = resolveConfig(input as GraphServerConfigInput);
  const security = createSecurity({
    security: config.security,
    permissions: config.dataset.permissions,
    datasetName: config.dataset.name,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.jwksCooldownMs === undefined ? {} : { jwksCooldownMs: options.jwksCooldownMs }),
    ...(options.awsKeyUrl ? { awsKeyUrl: options.awsKeyUrl } : {}),
  });
  if (security.secure && options.checkAccessService !== false) await waitForAccessService(security, options.waitForAccessServiceMs ?? 0);

  const metrics = createMetrics();
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
  });
  // The audit log (audit.ts): the file is opened now, so a path that cannot be written stops the start
  // (before the store is opened, so nothing is left open).
  const auditLog = new AuditLog(config.audit, { info: (fields, message) => app.log.info(fields, message), error: (fields, message) => app.log.error(fields, message) }, options.now);
  app.decorate('auditLog', auditLog);
  app.decorate('auditDataset', config.dataset.name);

  // The store reports its open (torn tail cut, damaged checkpoint passed over) through the server's
  // log; a damaged folder makes this throw STORE_CORRUPT, so the server does not start.
  const store =
    options.store ??
    (await openStore({
      dir: config.dataset.storage,
      defaultLabel: config.dataset.defaultLabel,
      lockPurpose: 'graph server',
      ...storeTuning(config.dataset),
      log: (level, message, fields) => app.log[level](fields ?? {}, message),
    }));
  if (security.secure && security.revocations === undefined) {
    app.log.warn('no revocationUrl (REVOCATION_URL): tokens of signed-out, disabled or deleted users are accepted until they expire');
  }
  if (!security.secure) {
    app.log.warn('OPEN MODE: JWKS_URL is unset or "disabled" — no authentication, no ABAC, every triple is visible to every caller. For local experiments only.');
  }

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
  const ds = `/${config.dataset.name}`;
  const isDatasetRoute = (url: string) => url === ds || url.startsWith(`${ds}/`) || url.startsWith(`${ds}?`);
  // Fail closed: a request the router sent to any route but the health ones is authenticated,
  // whatever its raw URL looks like (the router decodes `/%64s/query` to `/ds/query`).
  const needsCaller = (url: string, route: string | undefined) => isDatasetRoute(url) || (route !== undefined && !route.startsWith('/$/') && !isConsoleRoute(route));

  app.addHook('onRequest', async (request) => {
    if (!needsCaller(request.url, request.routeOptions.url)) return;
    try {
      const caller = await security.authenticate(request.headers);
      rateLimit(caller.id);
      request.caller = caller;
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'INTERNAL';
      metrics.authFailures.inc({ code });
      throw error;
    }
    // Read your writes across replicas (docs/kafka.md): wait until the log position asked for is applied here.
    const wanted = request.headers['ianode-offset'];
    if (wanted !== undefined) await waitForOffset(kafka, wanted);
  });
  // The code of a refused request, for its audit record.
  app.addHook('onError', async (request, _reply, error) => {
    request.auditCode = errorReply(error).body.code;
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    // Writes and admin actions were recorded by their routes; refusals (401/403) and, with
    // audit.reads, every other dataset request are recorded here (docs/graph-server.md, "Audit log").
    if (request.audited !== true && needsCaller(request.url, request.routeOptions.url)) {
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
    metrics.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
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

  app.setErrorHandler(createErrorHandler({
    reply: (error) => {
      const out = errorReply(error);
      const retryAfter = (error as { retryAfter?: number }).retryAfter;
      if (retryAfter !== undefined) out.headers['retry-after'] = String(retryAfter);
      if (out.status === 503 && out.body.code === 'QUERY_TIMEOUT') out.body.message = `query cancelled: over the time limit of ${config.limits.queryTimeoutMs} ms (${out.body.message})`;
      return out;
    },
    isInternal: (out) => out.status >= 500 && out.body.code === 'INTERNAL',
    logFields: (_error, request, out) => ({ code: out.body.code, user: request.caller?.user, identity: request.caller?.id }),
    // The message can echo what the caller sent (a graph IRI, a path, a query): the handler redacts it.
    logMessage: (_error, out) => out.body.message,
  }));
  app.setNotFoundHandler(async (request) => {
    throw new GraphServerError('NOT_FOUND', `no endpoint ${request.method} ${request.url.split('?')[0]}`);
  });

  const timers = options.timers ?? realTimers;
  const { bodyIdleTimeoutMs, bodyTimeoutMs, spoolMemoryBytes } = config.limits;
  const openBodies = new Set<BodyDeadline>();
  const spoolArea = new SpoolArea(options.spoolDir);
  /** Set by close(): replies from then on close their connection (no keep-alive past the stop). */
  let stopping = false;
  /** Set when a graceful stop's grace is over: bodies still to be read are refused (503). */
  let graceOver = false;
  let storeClosed = false;
  const pool = new QueryPool({
    size: config.limits.queryWorkers > 0 ? config.limits.queryWorkers : availableParallelism(),
    queueLimit: config.limits.queryQueue,
    killGraceMs: QUERY_KILL_GRACE_MS,
    state: store,
    log: (level, fields, message) => app.log[level](fields, message),
  });
  // Workers take a moment to start (they load the query engine): start them with the server.
  pool.warm();
  metrics.watchPool(() => pool.stats());
  /** The caller as the workers need it (the pool refuses a secure-mode caller without a grant). */
  const jobCaller = (caller: Caller) => ({ open: caller.visible === undefined, grant: caller.grant });
  const writer = createWriter(store, { defaultLabel: config.dataset.defaultLabel, allowUnreadableLabels: config.writes.allowUnreadableLabels });
  // The dataset's Kafka connector (docs/kafka.md): started below, before the server is returned.
  const kafka = config.dataset.kafka === undefined
    ? undefined
    : new KafkaConnector({
      config: config.dataset.kafka,
      dataset: config.dataset.name,
      store,
      apply: { config, writer, baseIRI: options.baseIRI, secure: security.secure },
      log: app.log,
      count: (outcome) => metrics.kafkaMessages.inc({ outcome }),
      // One audit record per message applied, refused or malformed (with its offset).
      audit: ({ kind, ...event }) => auditLog.record({ ...event, kind: 'kafka', operation: kind ?? 'message', dataset: config.dataset.name }),
    });
  if (kafka) metrics.watchKafka(() => kafka.status());
  const ctx: RouteContext = {
    config,
    security,
    metrics,
    baseIRI: options.baseIRI,
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
      spool: (source, deadline, limit) => spoolBody(source, { limit, memoryBytes: spoolMemoryBytes, area: spoolArea, deadline }),
    },
    storeOpen: () => !storeClosed,
    storeStatus: () => {
      if (storeClosed) return { state: 'closed' };
      const written = writer.status();
      if (written.state !== 'ok') return { state: written.state === 'closed' ? 'closed' : 'failed', reason: written.reason };
      const checkpointError = (store as { lastCheckpointError?: Error }).lastCheckpointError as NodeJS.ErrnoException | undefined;
      return { state: 'open', checkpoint: checkpointError === undefined ? undefined : `the last checkpoint failed (${checkpointError.code ?? 'error'}); commits go on to the log` };
    },
    auditFailure: () => auditLog.lastError,
    kafka,
  };
  app.addHook('onSend', async (_request, reply) => {
    if (stopping) closeAfterReply(reply);
  });
  registerHealth(app, ctx);
  registerConsole(app, consoleOptions(config));
  registerSparql(app, ctx);
  registerUpload(app, ctx);
  registerPatch(app, ctx);
  registerGraphStore(app, ctx);
  registerGraphql(app, ctx);
  registerLabelsAndShacl(app, ctx);
  registerLabelAdmin(app, ctx);
  app.addHook('onClose', async () => {
    await kafka?.close();
    await pool.close();
    storeClosed = true;
    await spoolArea.remove();
    auditLog.close();
    if (options.store === undefined) await store.close();
  });
  await app.ready();
  if (kafka) {
    // On start the server catches up to the end of its topic before it serves HTTP (as the reference).
    try {
      await kafka.start();
    } catch (error) {
      await app.close().catch(() => undefined);
      throw error;
    }
  }

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
    // Stops accepting now; Fastify answers 503 to new requests on open connections, and closes
    // the store (onClose) once the last connection has ended.
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
    graceOver = true;
    app.log.warn({ writes: openBodies.size, graceMs: config.limits.shutdownGraceMs }, 'stopping: grace over, ending requests still open');
    for (const deadline of [...openBodies]) deadline.fail(shuttingDown());
    const margin = sleep(CLOSE_MARGIN_MS / 2);
    await Promise.race([closed, margin.promise]);
    margin.cancel();
    app.server.closeAllConnections();
    const last = sleep(CLOSE_MARGIN_MS / 2);
    const finished = await Promise.race([closed, last.promise.then(() => false)]);
    last.cancel();
    if (!finished) app.log.error('stopping: the store did not close within the margin');
  };

  return {
    app,
    config,
    store,
    security,
    metrics,
    pool,
    async listen({ port = 3030, host = '127.0.0.1' } = {}) {
      // Queries are answered by the workers: the server takes requests once one is ready.
      await pool.ready();
      return app.listen({ port, host });
    },
    close() {
      closing ??= close();
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

function shuttingDown(): GraphServerError {
  return new GraphServerError('SHUTTING_DOWN', 'the server is stopping: the request body was not read in time; nothing was stored. Retry against a running server');
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
