/**
 * `createIdpServer(config)`: the IdP as a Fastify 5 application over its database. The entry point
 * (`main.ts`) and the tests both build it here; tests listen on port 0.
 */
import { createServiceApp } from '@ianode/service';
import type { FastifyInstance } from 'fastify';
import { cognitoApi, rewriteCognitoUrl } from './cognito/api.js';
import type { AdminCredentials, IdpConfig } from './config.js';
import { createContext, type IdpContext } from './context.js';
import { createUserCreatedNotifier } from './events/user-created.js';
import { openDatabase } from './db/database.js';
import { pruneSessions } from './model/sessions.js';
import { authorizeRoutes } from './oidc/authorize.js';
import { discoveryRoutes } from './oidc/discovery.js';
import { logoutRoutes } from './oidc/logout.js';
import { tokenRoutes } from './oidc/token.js';
import { userInfoRoutes } from './oidc/userinfo.js';
import { applySeed, type SeedReport } from './seed/apply-seed.js';
import { loadSeedFile } from './seed/load-seed.js';

export interface IdpServer {
  readonly app: FastifyInstance;
  readonly context: IdpContext;
  /** The admin key; `generated` is true only on the start that created it (print it then). */
  readonly admin: AdminCredentials & { generated: boolean };
  readonly seedReport?: SeedReport;
  /** Starts listening; returns the public base URL (derived from the port unless configured). */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  close(): Promise<void>;
}

/** Log lines carry the path only: query strings can hold codes, states or tokens. */
/** Something shaped like a compact JWS/JWE (`eyJ…` base64url segments separated by dots). */
const JWT_LIKE = /eyJ[A-Za-z0-9_-]{2,}(?:\.[A-Za-z0-9_-]*){1,4}/g;

export const requestSerializer = (req: { method: string; url: string; id: string; ip?: string }) => ({
  method: req.method,
  // Never a credential in the log: no query string, and nothing shaped like a JWT in the path
  // (`/x;access_token=eyJ…`, `/x/%3Fid_token=eyJ…`).
  path: req.url.split('?')[0]!.replace(JWT_LIKE, '<token>'),
  id: req.id,
  remoteAddress: req.ip,
});

function formParser(_req: unknown, body: string, done: (err: Error | null, value?: unknown) => void): void {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    const prev = out[k];
    // A repeated parameter fails the schema (RFC 6749 §3.1: parameters must not repeat).
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  done(null, out);
}

export async function createIdpServer(config: IdpConfig): Promise<IdpServer> {
  const db = openDatabase(config.dataDir);
  const ctx = createContext(db, config);
  /** Notifications on their way (awaited at close, so none outlives the server). */
  const notifications = new Set<Promise<void>>();
  // The service skeleton: log redaction (the IdP adds passwords and logs the path only) and
  // request ids, always generated here and echoed as AWS does (`x-amzn-requestid`).
  const app = createServiceApp({
    logger: config.log === false ? false : { level: config.log?.level ?? 'info', ...(config.log?.stream ? { stream: config.log.stream } : {}) },
    redactPaths: ['*.password', '*.Password'],
    requestSerializer,
    requestIds: { header: 'x-amzn-requestid', fromClient: false },
    bodyLimit: config.bodyLimit ?? 1024 * 1024,
    // OPTIONS answered before any route; CORS for `corsOrigins` (none by default).
    cors: { origins: config.corsOrigins ?? [] },
    rewriteUrl: rewriteCognitoUrl,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    routerOptions: { ignoreTrailingSlash: true },
  });

  if (config.userCreatedWebhook !== undefined) {
    const notify = createUserCreatedNotifier(ctx, config.userCreatedWebhook, app.log.child({ component: 'user-created-webhook' }));
    ctx.notifyUserCreated = (poolId, user) => {
      const delivery = notify(poolId, user);
      notifications.add(delivery);
      void delivery.finally(() => notifications.delete(delivery));
    };
  }

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: 'not_found', message: `No route for ${request.method} ${request.url.split('?')[0]}` }),
  );

  await app.register(async (scope) => cognitoApi(scope, ctx));
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, formParser);
    await scope.register(async (s) => authorizeRoutes(s, ctx));
    await scope.register(async (s) => tokenRoutes(s, ctx));
    await scope.register(async (s) => userInfoRoutes(s, ctx));
    await scope.register(async (s) => logoutRoutes(s, ctx));
  });
  await app.register(async (scope) => discoveryRoutes(scope, ctx));
  app.get(
    '/health',
    { schema: { response: { 200: { type: 'object', properties: { status: { type: 'string' } } } } } },
    async () => {
      db.get('SELECT 1');
      return { status: 'ok' };
    },
  );

  let seedReport: SeedReport | undefined;
  try {
    if (config.seed !== undefined) {
      const doc = typeof config.seed === 'string' ? await loadSeedFile(config.seed) : config.seed;
      seedReport = await applySeed(ctx, doc);
    }
    pruneSessions(db, ctx.now());
  } catch (err) {
    db.close();
    throw err;
  }
  const prune = setInterval(() => pruneSessions(db, ctx.now()), 3_600_000);
  prune.unref();

  app.addHook('onClose', async () => {
    clearInterval(prune);
    await Promise.all([...notifications]);
    db.close();
  });

  return {
    app,
    context: ctx,
    admin: ctx.admin,
    ...(seedReport ? { seedReport } : {}),
    async listen(options = {}) {
      await app.listen({ port: options.port ?? 9229, host: options.host ?? '127.0.0.1' });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : options.port;
      if (!config.publicUrl) ctx.set(`http://localhost:${port}`);
      return ctx.publicUrl();
    },
    close: () => app.close(),
  };
}
