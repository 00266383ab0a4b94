/**
 * CORS and `OPTIONS`, the same way in every service (docs/operations.md, "Browsers and CORS").
 *
 * - Every `OPTIONS` request to a path that has routes is answered here, in the first `onRequest`
 *   hook, before any authentication: `204 No Content` with `Allow` naming the path's methods (as
 *   Fuseki answers `OPTIONS` with `Allow` and no body). A route registered only to answer 405
 *   (`config: { notAllowed: true }`) is not listed. A path with no route is left to the service
 *   (its usual 404, or 401 where the service authenticates unknown paths).
 * - Which methods a path has is read from a copy of the routing table: every route the service
 *   registers is entered into a find-my-way router (Fastify's own router, with the same options)
 *   as it is added, so a path matches here exactly as it does in Fastify.
 * - A CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an allowed
 *   origin gets, in that same 204, `Access-Control-Allow-Origin`, `-Allow-Methods` (the path's
 *   methods), `-Allow-Headers` (the fixed list below) and `-Max-Age`.
 * - Any other request from an allowed origin gets `Access-Control-Allow-Origin` and
 *   `Access-Control-Expose-Headers` on every reply, errors included (set in `onRequest`, so a 401
 *   or a 503 is readable by the page too).
 * - An origin not allowed gets no CORS header at all (the browser then blocks the page); the
 *   status is what it would be without CORS. With no origins configured nothing CORS is ever sent.
 * - Never `Access-Control-Allow-Credentials`: the services take bearer tokens in `Authorization`,
 *   not cookies, so a page must hold the token itself.
 *
 * Why not @fastify/cors: it answers preflights from its own `OPTIONS *` route, which a service's
 * authenticating `onRequest` hook (graph server, access service) reaches first unless the plugin
 * runs its hook before them; with an origin function that refuses, it hands the preflight on to
 * that authentication (401); with a static list it still sends the `Allow-Methods`/`Allow-Headers`
 * headers to refused origins; and it has no `Allow` header for a plain `OPTIONS`. What is left of
 * CORS for credential-less requests is the few headers below, so this hook does it by hand.
 */
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route only answers 405 Method Not Allowed: its method is left out of `Allow` (cors.ts). */
    notAllowed?: boolean;
  }
}

/** Request headers a page may send (beyond the CORS-safelisted ones). */
export const CORS_ALLOWED_HEADERS: readonly string[] = [
  'Authorization',
  'Content-Type',
  'Accept',
  'Security-Label',
  // Read your writes across replicas (docs/kafka.md): the log offset a read waits for.
  'Ianode-Offset',
  'Ianode-View-As',
  'X-Request-Id',
  'X-Requested-With',
  'Cache-Control',
  'If-Match',
  'If-None-Match',
  // The AWS SDK v3 in a browser (Cognito JSON API): the target, its user agent, retry bookkeeping;
  // and the SigV4 headers of signed (admin) calls. Amplify adds `Cache-Control: no-store`.
  'X-Amz-Target',
  'X-Amz-User-Agent',
  'amz-sdk-invocation-id',
  'amz-sdk-request',
  'X-Amz-Date',
  'X-Amz-Security-Token',
  'X-Amz-Content-Sha256',
];

/** Reply headers a page may read (beyond the CORS-safelisted ones); the request-id header is added per service. */
export const CORS_EXPOSED_HEADERS: readonly string[] = ['Retry-After', 'Location', 'Content-Disposition', 'WWW-Authenticate', 'ETag', 'Allow', 'X-Amzn-ErrorType', 'Ianode-Offset'];

/** How long a browser may cache a preflight answer (seconds; Chromium caps it at 7200). */
export const CORS_MAX_AGE_SECONDS = 600;

/** Methods listed in `Allow`, in this order. */
const METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'];

/** The router options that change which path a route matches (as given to Fastify). */
export interface RouteMatching {
  ignoreTrailingSlash?: boolean;
  ignoreDuplicateSlashes?: boolean;
  caseSensitive?: boolean;
  useSemicolonDelimiter?: boolean;
}

export interface CorsOptions {
  /**
   * Origins whose pages may call the service (`https://app.example.org`, `http://localhost:5173`),
   * or `['*']` for every origin. Empty or absent: none (no CORS header is ever sent).
   */
  origins?: readonly string[];
}

/**
 * Reads an origins setting: a list, or a comma-separated text (`CORS_ORIGINS=a, b`); `*` alone
 * means every origin. Each origin must be `scheme://host[:port]` exactly as browsers send it (no
 * path, no trailing slash); anything else throws a `TypeError` naming `where` and the value.
 */
export function parseCorsOrigins(value: unknown, where = 'cors.origins'): string[] {
  if (value === undefined || value === null) return [];
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (items === undefined) throw new TypeError(`${where} must be a list of origins or a comma-separated text, got ${JSON.stringify(value)}`);
  const origins: string[] = [];
  for (const [i, raw] of items.entries()) {
    if (typeof raw !== 'string') throw new TypeError(`${where}[${i}] must be an origin text, got ${JSON.stringify(raw)}`);
    const item = raw.trim();
    if (item === '') continue;
    if (item === '*') {
      origins.push(item);
      continue;
    }
    let origin: string | undefined;
    try {
      origin = new URL(item).origin;
    } catch {
      origin = undefined;
    }
    // Browsers send the origin serialised: lower-case scheme and host, no default port, no path.
    if (origin === undefined || origin === 'null' || origin !== item) {
      const hint = origin !== undefined && origin !== 'null' ? ` (as a browser sends it: ${origin})` : '';
      throw new TypeError(`${where}: ${JSON.stringify(item)} is not an origin${hint}: write scheme://host[:port] with no path and no trailing slash, or * for every origin`);
    }
    origins.push(origin);
  }
  if (origins.includes('*') && origins.length > 1) throw new TypeError(`${where}: * already means every origin; give it alone or list the origins`);
  return [...new Set(origins)];
}

/** Adds `value` to the reply's `Vary` unless it is there already (or `Vary: *`): use it instead of setting `Vary` outright. */
export function addVary(reply: FastifyReply, value: string): void {
  const current = reply.getHeader('vary');
  const text = Array.isArray(current) ? current.join(', ') : current === undefined ? '' : String(current);
  const names = text.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
  if (names.includes('*') || names.includes(value.toLowerCase())) return;
  void reply.header('vary', text === '' ? value : `${text}, ${value}`);
}

/**
 * Installs the `OPTIONS` answer and the CORS headers on `app` (see the module comment); called by
 * `createServiceApp`, before any hook of the service. `requestIdHeader` is exposed to pages.
 */
export function installCors(app: FastifyInstance, options: CorsOptions & { requestIdHeader?: string; routing?: RouteMatching } = {}): void {
  const origins = parseCorsOrigins(options.origins ?? []);
  const any = origins.includes('*');
  const allowed = new Set(origins);
  const exposed = [...CORS_EXPOSED_HEADERS, ...(options.requestIdHeader ? [options.requestIdHeader] : [])].join(', ');
  const allowHeaders = CORS_ALLOWED_HEADERS.join(', ');
  /** The value of `Access-Control-Allow-Origin` for this request, or undefined: no CORS headers. */
  const allowOrigin = (request: FastifyRequest): string | undefined => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string' || origins.length === 0) return undefined;
    if (any) return '*';
    return allowed.has(origin) ? origin : undefined;
  };
  // The copy of the routing table: each route with whether its method is listed in `Allow`.
  const routes = FindMyWay({ ...options.routing });
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      const m = method as HTTPMethod;
      if (routes.hasRoute(m, route.url)) continue;
      routes.on(m, route.url, () => undefined, { listed: route.config?.notAllowed !== true });
    }
  });
  const routed = (method: string, path: string): { listed: boolean } | undefined => (routes.find(method as HTTPMethod, path)?.store as { listed: boolean } | undefined) ?? undefined;

  app.addHook('onRequest', async (request, reply) => {
    const origin = allowOrigin(request);
    if (origin !== undefined) {
      void reply.header('access-control-allow-origin', origin);
      void reply.header('access-control-expose-headers', exposed);
    }
    if (request.method !== 'OPTIONS') return;
    const path = request.url;
    if (routed('OPTIONS', path) !== undefined) return; // a service's own OPTIONS route
    const found = METHODS.map((method) => [method, routed(method, path)] as const).filter(([, route]) => route !== undefined);
    if (found.length === 0) return; // no such path: the service's own answer (404, or 401 before it)
    const methods = found.filter(([, route]) => route!.listed).map(([method]) => method);
    const allow = [...methods, 'OPTIONS'].join(', ');
    void reply.header('allow', allow);
    if (origin !== undefined && typeof request.headers['access-control-request-method'] === 'string') {
      void reply.header('access-control-allow-methods', allow);
      void reply.header('access-control-allow-headers', allowHeaders);
      void reply.header('access-control-max-age', String(CORS_MAX_AGE_SECONDS));
    } else {
      void reply.removeHeader('access-control-expose-headers');
    }
    return reply.code(204).send();
  });
  if (origins.length > 0 && !any) {
    // The answer depends on Origin: caches must keep one copy per origin. Set last, so that a
    // route's own `Vary: Accept` is kept.
    app.addHook('onSend', async (_request, reply, payload) => {
      addVary(reply, 'Origin');
      return payload;
    });
  }
}
