export { createAccessServer, type AccessServer, type RouteEntry } from './server.js';
export { DEFAULT_ADMIN_GROUP, DEFAULT_PORT, type AccessServerConfig } from './config.js';
export { AccessError, errorStatus, type AccessErrorCode } from './errors.js';
export { Directory } from './directory/directory.js';
export { openDatabase, DATABASE_FILE } from './directory/database.js';
export { dataAttributes, displayAttributes, effectiveGroups } from './directory/data-attributes.js';
/** The directory's record types (all of them: the types module is the one list). */
export type * from './directory/types.js';
export { applySeed, readSeedFile, type SeedDocument, type SeedReport } from './seed.js';
export {
  checkProvisioning, createProvisioner, readAccessConfigFile, DEFAULT_NOTIFICATION_AUDIENCE,
  type AutoActivateRule, type NotificationSettings, type ProvisioningConfig, type Provisioner,
} from './provisioning.js';
export { checkCompat, DEFAULT_ATTRIBUTE_NAMES, isPrivateAddress, referenceAttributes, type CompatConfig } from './compat.js';
