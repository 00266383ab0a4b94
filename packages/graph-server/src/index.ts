export { createGraphServer, waitForAccessService, type GraphServer, type GraphServerOptions } from './server.js';
export {
  configFromEnv, configFromFileAndEnv, DEFAULT_PORT, defaultConfig, loadConfigFile, resolveConfig, securityFromEnv, storeTuning, storeTuningFromEnv,
  type ConsoleConfig, type DatasetConfig, type GraphServerConfig, type GraphServerConfigInput, type LimitsConfig, type Operation, type SecurityConfig,
} from './config.js';
export { GraphServerError, errorReply, type GraphServerErrorCode } from './errors.js';
export { createSecurity, createRateLimiter, type Caller, type Security } from './security.js';
export { applyPatch, checkPatch, type PatchCounts } from './patch.js';
export { Tasks, type TaskInfo, type TaskProgress, type TaskRun, type TaskState, type TasksOptions } from './tasks.js';
export {
  BACKUP_TASK, BackupScheduler, backupDataset, backupFileName, listBackups, MIN_BACKUP_EVERY_MS, parseBackupFileName, parseDuration, pruneBackups, removeLeftovers,
  resolveBackupConfig, startBackupTask,
  type BackupConfigInput, type BackupFile, type BackupOptions, type BackupResult, type BackupSchedulerOptions, type BackupTarget, type ResolvedBackupConfig,
} from './backup.js';
export { registerBackupRoutes, type BackupRouteDeps } from './routes/backups.js';
export { realTimers, type Timers } from './body-reader.js';
