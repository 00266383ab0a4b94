/**
 * `createServiceApp(options)`: the Fastify instance every service starts from. It has
 *
 * - a pino logger that never writes a credential: the `authorization` and `cookie` headers are
 *   censored wherever a header object is logged, and the request line is logged through
 *   `requestLogFields` of @ianode/auth (credential query parameters and JWT-shaped text redacted)
 *   unless the service gives a stricter serializer;
 * - request ids (request-id.ts): a caller's safe `x-request-id` is kept, else a random UUID; the
 *   id is echoed in a reply header (set in `onRequest`, so error replies carry it too);
 * - `OPTIONS` answered before any hook of the service (no token needed), and CORS for the
 *   configured origins (cors.ts; none by default);
 * - one validator compiler for the whole process (`SHARED_VALIDATORS` below) instead of Fastify's
 *   one per instance, so a route schema is compiled once per process, not once per app.
 *
 * Everything else (body limits, parsers, routes, the error handler) stays with the service.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { requestLogFields } from '@ianode/auth';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { installCors, type CorsOptions, type RouteMatching } from './cors.js';
import { REQUEST_ID_HEADER, requestIdOf, type RequestIdOptions } from './request-id.js';

/** Header paths censored in every service's log (`[redacted]`). */
export const LOG_REDACT_PATHS: readonly string[] = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie', 'authorization'];

/** The censor written in place of a redacted value. */
export const LOG_CENSOR = '[redacted]';

/** What a log line keeps of a request (pino `req` serializer). */
export type RequestSerializer = (req: { method: string; url: string; id: string; ip?: string; hostname?: string }) => Record<string, unknown>;

export interface ServiceLogOptions {
  /** More pino redact paths for this service (the IdP adds `*.password`). */
  redactPaths?: readonly string[];
  /** The request serializer (default `requestLogFields`). */
  requestSerializer?: RequestSerializer;
}

/**
 * Fastify logger options with the service redaction in force. `false` stays silent; `undefined`
 * or `true` is level `info` to stdout; an object is pino options (`level`, `stream`, …) to which
 * the redaction and the request serializer are added: a caller cannot switch them off.
 */
export function serviceLoggerOptions(logger: FastifyServerOptions['logger'], options: ServiceLogOptions = {}): FastifyServerOptions['logger'] {
  if (logger === false) return false;
  const given = (typeof logger === 'object' && logger !== null ? logger : { level: 'info' }) as {
    serializers?: Record<string, unknown>;
    redact?: string[] | { paths?: string[] };
  };
  const givenPaths = Array.isArray(given.redact) ? given.redact : (given.redact?.paths ?? []);
  const paths = [...new Set([...LOG_REDACT_PATHS, ...(options.redactPaths ?? []), ...givenPaths])];
  return {
    ...given,
    serializers: { ...given.serializers, req: options.requestSerializer ?? requestLogFields },
    redact: { paths, censor: LOG_CENSOR },
  } as FastifyServerOptions['logger'];
}

export interface ServiceAppOptions extends ServiceLogOptions, Omit<FastifyServerOptions, 'logger' | 'loggerInstance' | 'genReqId' | 'requestIdHeader'> {
  /** pino options or a boolean (see `serviceLoggerOptions`); default level `info`. */
  logger?: FastifyServerOptions['logger'];
  /** Which header carries the request id, and whether a caller's id is kept (default `x-request-id`, kept when safe). */
  requestIds?: RequestIdOptions;
  /** Origins whose browser pages may call the service (cors.ts); default none. */
  cors?: CorsOptions;
}

/** The router options that decide which path a route matches (top level, or in `routerOptions`). */
function pickRouting(options: Record<string, unknown>): RouteMatching {
  const out: Record<string, boolean> = {};
  for (const name of ['ignoreTrailingSlash', 'ignoreDuplicateSlashes', 'caseSensitive', 'useSemicolonDelimiter']) {
    if (typeof options[name] === 'boolean') out[name] = options[name];
  }
  return out;
}

/**
 * Fastify's own validator compiler (@fastify/ajv-compiler), made once per process: it keeps one Ajv
 * per set of Ajv options, and Ajv keeps each compiled schema by its object. A service's route
 * schemas are module constants, so an app after the first compiles none of them again; that
 * compiling was most of the time to build an app (half a second for the IdP's ~60 routes), and
 * a test file builds an app per test. A compiled validator is a pure function of its schema and
 * the Ajv options, so sharing it between apps changes no answer.
 *
 * Fastify lower-cases the header names of a `headers` schema only for its default compiler, not for
 * one given in `compilersFactory` (as this one is); no service declares a headers schema, and
 * `createServiceApp` refuses one that names a header in upper case rather than let it never match.
 */
const SHARED_VALIDATORS = AjvCompiler();

function refuseUpperCaseHeaders(route: { method: string | string[]; url: string; schema?: { headers?: unknown } }): void {
  const headers = route.schema?.headers as { properties?: Record<string, unknown>; required?: unknown } | undefined;
  if (headers === undefined || headers === null || typeof headers !== 'object') return;
  const names = [...Object.keys(headers.properties ?? {}), ...(Array.isArray(headers.required) ? headers.required.map(String) : [])];
  const upper = names.find((name) => name !== name.toLowerCase());
  if (upper !== undefined) throw new Error(`${String(route.method)} ${route.url}: name the header ${upper} in lower case in its schema`);
}

/** A Fastify instance with the service logger, request ids, the request-id reply header, `OPTIONS` and CORS. */
export function createServiceApp(options: ServiceAppOptions = {}): FastifyInstance {
  const { logger, redactPaths, requestSerializer, requestIds = {}, cors = {}, ...fastifyOptions } = options;
  const header = requestIds.header ?? REQUEST_ID_HEADER;
  const fromClient = requestIds.fromClient ?? true;
  const app = Fastify({
    ...fastifyOptions,
    logger: serviceLoggerOptions(logger, { ...(redactPaths ? { redactPaths } : {}), ...(requestSerializer ? { requestSerializer } : {}) }),
    requestIdHeader: false,
    genReqId: (request) => requestIdOf(request.headers[header], fromClient),
    schemaController: { ...fastifyOptions.schemaController, compilersFactory: { buildValidator: SHARED_VALIDATORS, ...fastifyOptions.schemaController?.compilersFactory } },
  }) as unknown as FastifyInstance;
  app.addHook('onRoute', refuseUpperCaseHeaders);
  app.addHook('onRequest', async (request, reply) => {
    void reply.header(header, request.id);
  });
  const routing = { ...pickRouting(fastifyOptions as Record<string, unknown>), ...pickRouting((fastifyOptions.routerOptions ?? {}) as Record<string, unknown>) };
  installCors(app, { ...cors, requestIdHeader: header, routing });
  return app;
}
