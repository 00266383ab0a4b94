export { createGraphServer, waitForAccessService, type GraphServer, type GraphServerOptions } from './server.js';
export {
  configFromFileAndEnv, DEFAULT_PORT, defaultConfig, loadConfigFile, resolveConfig, securityFromEnv, storeTuning, storeTuningFromEnv,
  type DatasetConfig, type GraphServerConfig, type GraphServerConfigInput, type LimitsConfig, type Operation, type SecurityConfig,
} from './config.js';
export { GraphServerError, errorReply, type GraphServerErrorCode } from './errors.js';
export { createSecurity, createRateLimiter, type Caller, type Security } from './security.js';
export { applyPatch, checkPatch, type PatchCounts } from './patch.js';
