/**
 * The web console (packages/console, docs/console.md), served without a token: it is a static
 * shell holding no data; every page's data comes from the dataset routes and the access service
 * with the signed-in user's own token.
 *
 * - `GET /`: the console's page (`index.html`), `Cache-Control: no-cache`.
 * - `GET /console/assets/*`: its bundled scripts, styles, fonts and editor workers (content-hashed
 *   names: cached for a year, immutable), by @fastify/static (content types, ETag, ranges).
 * - `GET /console/config.json`: what the page needs to sign in and call the services (issuer,
 *   client id, access-service URL, dataset, label rules), from the server's configuration.
 *
 * Every answer carries a strict Content-Security-Policy: scripts and styles of this origin only
 * (no inline script, no eval), network calls only to this origin, the OpenID provider and the
 * access service, no framing. Without a build (`npm run build` makes packages/console/dist), `/`
 * answers 404 saying so; other unknown paths keep the server's JSON 404.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { GraphServerConfig } from '../config.js';
import type { ConsoleClientConfig } from '../console-config.js';
import { GraphServerError } from '../errors.js';

/** The console's build, beside this package in the workspace (packages/console/dist). */
export const DEFAULT_CONSOLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../console/dist');

export const ASSETS_PREFIX = '/console/assets/';
export const CONFIG_PATH = '/console/config.json';

/** The routes of the console: no token needed (server.ts `needsCaller`). */
export function isConsoleRoute(route: string): boolean {
  return route === '/' || route === CONFIG_PATH || route.startsWith(ASSETS_PREFIX);
}

export type { ConsoleClientConfig };

export interface ConsoleOptions {
  /** The console's build folder (default DEFAULT_CONSOLE_DIR; env `CONSOLE_DIR`). */
  dir?: string | undefined;
  /** The page's configuration; without it the config route answers 404 and the page says so. */
  client?: ConsoleClientConfig | undefined;
}

/** The base URL of the access service from `USER_ATTRIBUTES_URL`, which may be a `{user}` template. */
function accessServiceBase(url: string): string {
  if (!url.includes('{user}')) return url.replace(/\/+$/, '');
  const parsed = new URL(url.replace('{user}', 'x'));
  return parsed.origin;
}

/**
 * The console's options from the server's configuration: `console.issuer` (env `CONSOLE_ISSUER`;
 * default `security.openIdProviderUrl`), `console.clientId` (`CONSOLE_CLIENT_ID`; default the first
 * of `security.clientIds`), `console.accessServiceUrl` (`CONSOLE_ACCESS_SERVICE_URL`; default
 * `security.userAttributesUrl`), `console.dir` (`CONSOLE_DIR`; default the workspace's
 * packages/console/dist), for when the browser reaches a service at another address than the
 * server does (a container network, a proxy). A secure server missing any of the three gets no
 * config route: the page says it cannot sign in.
 */
export function consoleOptions(config: GraphServerConfig): ConsoleOptions {
  const own = config.console ?? {};
  const { security } = config;
  const secure = security.jwksUrl !== undefined && security.jwksUrl !== '' && security.jwksUrl.toLowerCase() !== 'disabled';
  const issuer = own.issuer ?? security.openIdProviderUrl;
  const clientId = own.clientId ?? security.clientIds?.[0];
  const access = own.accessServiceUrl ?? security.userAttributesUrl;
  const dir = own.dir;
  const base = { dataset: config.dataset.name, labelsLegacy: config.dataset.labels.legacy, graphql: config.graphql };
  let client: ConsoleClientConfig | undefined;
  if (!secure) client = { ...base, issuer: '', clientId: '', accessServiceUrl: '', mode: 'open' };
  else if (issuer !== undefined && clientId !== undefined && access !== undefined) {
    client = { ...base, issuer: issuer.replace(/\/+$/, ''), clientId, accessServiceUrl: accessServiceBase(access), mode: 'secure' };
  }
  return { ...(dir === undefined ? {} : { dir }), client };
}

/** The origin of `url`, or undefined when it is not an absolute http(s) URL. */
function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The Content-Security-Policy of every console answer. */
export function contentSecurityPolicy(client: ConsoleClientConfig | undefined): string {
  const connect = new Set(["'self'"]);
  for (const url of [client?.issuer, client?.accessServiceUrl]) {
    const origin = url === undefined || url === '' ? undefined : originOf(url);
    if (origin !== undefined) connect.add(origin);
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    // CodeMirror and GraphiQL's Monaco editor add <style> elements and style attributes at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${[...connect].join(' ')}`,
    // GraphiQL's editor workers (bundled, same origin).
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function registerConsole(app: FastifyInstance, options: ConsoleOptions = {}): void {
  const dir = path.resolve(options.dir ?? DEFAULT_CONSOLE_DIR);
  const csp = contentSecurityPolicy(options.client);
  const secureHeaders = (reply: FastifyReply) =>
    reply
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('cross-origin-opener-policy', 'same-origin');

  const index = path.join(dir, 'index.html');
  app.get('/', async (_request, reply) => {
    // Read at each request (small): a rebuild is served without a restart.
    if (!existsSync(index)) throw new GraphServerError('NOT_FOUND', 'the web console is not built: run `npm run build` (it builds packages/console)');
    secureHeaders(reply).header('cache-control', 'no-cache').type('text/html; charset=utf-8');
    return readFileSync(index);
  });

  app.get(CONFIG_PATH, async (_request, reply) => {
    if (options.client === undefined) {
      throw new GraphServerError('NOT_FOUND', 'the console has no sign-in configuration: set security.openIdProviderUrl, security.clientIds and security.userAttributesUrl (or console.issuer, console.clientId, console.accessServiceUrl: CONSOLE_ISSUER, CONSOLE_CLIENT_ID, CONSOLE_ACCESS_SERVICE_URL)');
    }
    secureHeaders(reply).header('cache-control', 'no-cache');
    return options.client;
  });

  const assets = path.join(dir, 'assets');
  if (!existsSync(assets)) return;
  void app.register(async (scope) => {
    await scope.register(fastifyStatic, {
      root: assets,
      prefix: ASSETS_PREFIX,
      // Only files: no folder listings, no index files, no dotfiles.
      index: false,
      list: false,
      dotfiles: 'deny',
      // Names carry a content hash (vite): a name never changes content.
      immutable: true,
      maxAge: '365d',
      decorateReply: false,
      // Called with the reply, after the plugin's own headers (so these win).
      setHeaders: (reply) => {
        reply.header('content-security-policy', csp);
        reply.header('x-content-type-options', 'nosniff');
        reply.header('referrer-policy', 'no-referrer');
      },
    });
  });
}
