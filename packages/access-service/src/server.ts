import swagger from '@fastify/swagger';
import { AuthError, createRevocationList, createTokenVerifier, type TokenVerifier } from '@ianode/auth';
import { createServiceApp } from '@ianode/service';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_ADMIN_GROUP, type AccessServerConfig } from './config.js';
import { Directory } from './directory/directory.js';
import { handleError } from './http/errors.js';
import './http/context.js';
import { registerAttributeRoutes } from './http/routes/attributes.js';
import { checkListenHost, trustedClients } from './compat.js';
import { registerCompatRoutes } from './http/routes/compat.js';
import { registerGroupRoutes } from './http/routes/groups.js';
import { registerHierarchyRoutes } from './http/routes/hierarchies.js';
import { registerMetaRoutes } from './http/routes/meta.js';
import { registerSelfRoutes, sightingOf } from './http/routes/self.js';
import { registerUserRoutes } from './http/routes/users.js';
import { registerAudienceRoutes } from './http/routes/audience.js';
import { registerProvisioningRoutes } from './http/routes/provisioning.js';
import { createProvisioner, type Provisioner } from './provisioning.js';
import { applySeed, readSeedFile, type SeedReport } from './seed.js';

/** A registered route (method and Fastify path, e.g. `GET /users/:id`). */
export interface RouteEntry {
  method: string;
  url: string;
}

export interface AccessServer {
  app: FastifyInstance;
  directory: Directory;
  verifier: TokenVerifier;
  /** Every route registered (HEAD twins of GET routes left out). */
  routes: RouteEntry[];
  /** What the seed created (empty lists without a seed). */
  seeded: SeedReport;
  /** The provisioning rules in force. */
  provisioner: Provisioner;
  /** Starts listening; resolves to the base URL. */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  /** Stops the server and closes the database. */
  close(): Promise<void>;
}

/**
 * Builds the access service (SPEC §6): opens the directory in `dataDir`, applies the seed, builds
 * the token verifier, and registers the routes with their schemas. Tests call `app.inject()` or
 * `listen({ port: 0 })`; `main.ts` listens on 8091.
 */
export async function createAccessServer(config: AccessServerConfig): Promise<AccessServer> {
  const clock = config.now;
  const directory = Directory.open(config.dataDir, clock === undefined ? undefined : () => new Date(clock()));
  let seeded: SeedReport = { created: { hierarchies: [], attributes: [], groups: [], users: [] } };
  let verifier: TokenVerifier;
  try {
    if (config.seed !== undefined) {
      const source = typeof config.seed === 'string' ? config.seed : 'seed';
      seeded = applySeed(directory, typeof config.seed === 'string' ? readSeedFile(config.seed) : config.seed, source);
    }
    const revocations =
      config.revocationUrl === undefined
        ? undefined
        : createRevocationList({
            url: config.revocationUrl,
            ...(config.fetch === undefined ? {} : { fetch: config.fetch }),
            ...(clock === undefined ? {} : { now: clock }),
          });
    verifier =
      config.verifier ??
      createTokenVerifier({
        ...(revocations === undefined ? {} : { isRevoked: (claims) => revocations.isRevoked(claims) }),
        ...(config.jwksUrl === undefined ? {} : { jwksUrl: config.jwksUrl }),
        ...(config.openIdProviderUrl === undefined ? {} : { openIdProviderUrl: config.openIdProviderUrl }),
        ...(config.audience === undefined ? {} : { audience: config.audience }),
        ...(config.clientIds === undefined ? {} : { clientIds: config.clientIds }),
        tokenUses: config.acceptAccessTokens === true ? ['id', 'access'] : ['id'],
        ...(config.userClaims === undefined ? {} : { userClaims: config.userClaims }),
        groupsClaim: config.groupsClaim ?? 'cognito:groups',
        ...(config.fetch === undefined ? {} : { fetch: config.fetch }),
        ...(clock === undefined ? {} : { now: clock }),
      });
  } catch (error) {
    directory.close();
    throw error;
  }
  const adminGroup = config.adminGroup ?? DEFAULT_ADMIN_GROUP;
  const compat = config.compat;
  const trusted = compat === undefined ? () => false : trustedClients(compat);
  const linkByEmail = config.linkByEmail === true;

  // Request ids (`x-request-id`) and log redaction come with the service skeleton.
  const app = createServiceApp({
    logger: config.logger,
    bodyLimit: config.bodyLimit ?? 1024 * 1024,
    // OPTIONS answered before authentication; CORS for `corsOrigins` (none by default).
    cors: { origins: config.corsOrigins ?? [] },
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false, allowUnionTypes: true } },
  });
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, url: route.url });
    }
  });

  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ code: 'NOT_FOUND', message: `no route ${request.method} ${request.url.split('?')[0]}` }),
  );

  app.addHook('onRequest', async (request) => {
    const auth = request.routeOptions.config.auth ?? 'public';
    if (auth === 'public') return;
    // compat.unauthenticatedLookup: a lookup WITHOUT a token from a trusted address (the socket's
    // own, never a forwarded-for header) is served anonymously; a token, when sent, is verified.
    if (auth === 'lookup' && request.headers.authorization === undefined && trusted(request.socket.remoteAddress)) {
      request.anonymousLookup = true;
      return;
    }
    const token = await verifier.authenticate(request.headers.authorization);
    const resolution = directory.resolveSubject(sightingOf(token), { linkByEmail, create: false });
    if (resolution.user === undefined && resolution.conflict !== undefined) {
      request.log.warn({ issuer: token.issuer, subject: token.subject, conflict: resolution.conflict }, 'identity refused: its e-mail address belongs to another identity');
    } else if (resolution.user !== undefined && resolution.linkedBy === 'email') {
      request.log.info({ issuer: token.issuer, subject: token.subject, entry: resolution.user.id }, 'identity linked to a directory entry by verified e-mail');
    }
    request.caller = {
      user: resolution.user?.id ?? token.user,
      issuer: token.issuer,
      subject: token.subject,
      groups: token.groups,
      isAdmin: token.groups.includes(adminGroup),
      token,
      resolution,
    };
    if (auth === 'admin' && !request.caller.isAdmin) throw new AuthError('FORBIDDEN', `this needs the ${adminGroup} group`);
  });

  const audit = app.log.child({ audit: true });
  app.addHook('onResponse', async (request, reply) => {
    const event = request.routeOptions.config.audit;
    if (event === undefined) return;
    const params = (request.params ?? {}) as Record<string, string>;
    const detail = request.auditDetail ?? {};
    const status = reply.statusCode;
    const outcome = outcomeOf(status);
    audit[status >= 500 ? 'error' : 'info'](
      {
        reqId: request.id,
        event,
        actor: request.caller?.user ?? null,
        actorIss: request.caller?.issuer ?? null,
        actorSub: request.caller?.subject ?? null,
        admin: request.caller?.isAdmin ?? false,
        target: detail.target ?? params.id ?? params.user ?? params.name ?? null,
        outcome,
        status,
        ...detail,
      },
      `audit ${event} ${outcome}`,
    );
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'ianode access service',
        version: '0.1.0',
        description: 'The user directory of ianode: who a token names, their attributes and groups, attribute hierarchies, and the admin API (SPEC §6).',
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      tags: [
        { name: 'self', description: 'Identity and attribute resolution' },
        { name: 'admin', description: `Directory administration (callers in the ${adminGroup} group)` },
        { name: 'meta', description: 'Health and this document' },
        { name: 'provisioning', description: 'User-creation notifications from the identity provider (when configured)' },
      ],
    },
  });
  let provisioner: Provisioner;
  try {
    provisioner = createProvisioner(directory, config.provisioning?.autoActivate ?? [], app.log);
  } catch (error) {
    directory.close();
    throw error;
  }
  registerMetaRoutes(app, directory);
  // compat: reference answers /users/lookup and /hierarchies/lookup in the reference's shapes instead.
  registerSelfRoutes(app, directory, { linkByEmail, provisioner, lookup: compat === undefined });
  if (compat !== undefined) registerCompatRoutes(app, directory, compat, { linkByEmail, provisioner });
  const notifications = config.provisioning?.notifications;
  if (notifications !== undefined) {
    // Verified against the user tokens' issuer and key cache (the verifier's), not a second JWKS client.
    const issuer = verifier.issuer;
    if (issuer === undefined) {
      directory.close();
      throw new Error('provisioning.notifications needs OPENID_PROVIDER_URL: the issuer the IdP signs notifications as');
    }
    registerProvisioningRoutes(app, directory, provisioner, {
      settings: notifications,
      issuer,
      keys: verifier.keys,
      linkByEmail,
      groupsClaim: config.groupsClaim ?? 'cognito:groups',
      now: clock,
    });
  }
  registerHierarchyRoutes(app, directory, { lookup: compat === undefined });
  registerUserRoutes(app, directory);
  registerAudienceRoutes(app, directory);
  registerGroupRoutes(app, directory);
  registerAttributeRoutes(app, directory);
  app.addHook('onClose', async () => directory.close());
  try {
    await app.ready();
  } catch (error) {
    directory.close();
    throw error;
  }

  return {
    app,
    directory,
    verifier,
    routes,
    seeded,
    provisioner,
    async listen(options = {}) {
      const host = options.host ?? '127.0.0.1';
      checkListenHost(compat, host);
      return app.listen({ port: options.port ?? 0, host });
    },
    close: () => app.close(),
  };
}

function outcomeOf(status: number): string {
  if (status < 400) return 'ok';
  if (status === 401) return 'unauthenticated';
  if (status === 403) return 'denied';
  if (status === 404) return 'not_found';
  if (status < 500) return 'rejected';
  return 'error';
}
