export { ConfigError, envFlag, envList, envValue, parseConfigText, readConfigFile, substituteEnv, substituteEnvDeep, type ConfigFormat, type Env } from './config.js';
export { addVary, CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS, installCors, parseCorsOrigins, type CorsOptions } from './cors.js';
export { createErrorHandler, errorTable, fastifyStatus, reasonPhrase, ServiceError, type ErrorHandlerOptions, type ErrorReply, type ErrorTable } from './errors.js';
export { createServiceApp, LOG_CENSOR, LOG_REDACT_PATHS, serviceLoggerOptions, type RequestSerializer, type ServiceAppOptions, type ServiceLogOptions } from './fastify.js';
export { exitWith, hostUrl, parseOptions, parsePort, runService, UsageError, type ArgOptions, type Closeable, type ParsedOptions, type RunServiceOptions } from './main.js';
export { REQUEST_ID_HEADER, requestIdOf, SAFE_REQUEST_ID, type RequestIdOptions } from './request-id.js';
export { configureSqlite, type SqlitePragmas } from './sqlite.js';
