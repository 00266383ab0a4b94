/**
 * Everything an operation needs, built once per server: the database, the clock, the public base
 * URL, the key store and the settings. The Cognito API, the OIDC routes and the seed all use it.
 */
import { DEFAULT_ACCOUNT_ID, DEFAULT_PORT, DEFAULT_REGION, DEFAULT_SKEW_MS, normaliseBaseUrl, type AdminCredentials, type IdpConfig, type OnUserCreated } from './config.js';
import { DEFAULT_COST, type ScryptCost } from './crypto/password.js';
import { newAccessKeyId, newSecretAccessKey } from './crypto/random.js';
import type { Db } from './db/database.js';
import { createKeyStore, generateSigningKey, type KeyStore } from './keys/key-store.js';
import { DEFAULT_THROTTLE, type ThrottleSettings } from './model/throttle.js';
import type { User } from './model/users.js';

export interface IdpContext {
  readonly db: Db;
  readonly keys: KeyStore;
  now(): number;
  /** The issuer base, e.g. `http://localhost:9229`. */
  publicUrl(): string;
  issuer(poolId: string): string;
  readonly region: string;
  readonly accountId: string;
  readonly admin: AdminCredentials & { generated: boolean };
  readonly signatureMaxSkewMs: number;
  readonly throttle: ThrottleSettings;
  readonly scryptCost: ScryptCost;
  /** The user-created callback of the configuration, if any (`auth/user-created.ts` calls it). */
  readonly onUserCreated: OnUserCreated | undefined;
  /**
   * Tells the configured webhook that a user was created (events/user-created.ts); a no-op without
   * one. Every creation path calls it once the user is stored; it never throws nor waits.
   */
  notifyUserCreated(poolId: string, user: User): void;
}

export interface MutableBaseUrl {
  set(url: string): void;
}

export function createContext(db: Db, config: IdpConfig): IdpContext & MutableBaseUrl {
  const now = config.now ?? Date.now;
  let base = normaliseBaseUrl(config.publicUrl ?? `http://localhost:${DEFAULT_PORT}`);
  return {
    db,
    keys: createKeyStore(db, now, config.newSigningKey ?? generateSigningKey),
    now,
    publicUrl: () => base,
    issuer: (poolId) => `${base}/${poolId}`,
    set: (url) => {
      base = normaliseBaseUrl(url);
    },
    region: config.region ?? DEFAULT_REGION,
    accountId: config.accountId ?? DEFAULT_ACCOUNT_ID,
    admin: adminCredentials(db, config),
    signatureMaxSkewMs: config.signatureMaxSkewMs ?? DEFAULT_SKEW_MS,
    throttle: { ...DEFAULT_THROTTLE, ...config.throttle },
    scryptCost: config.scryptCost ?? DEFAULT_COST,
    onUserCreated: config.onUserCreated,
    notifyUserCreated: () => {},
  };
}

/**
 * The admin key: from the configuration when given; otherwise the one kept in the database,
 * generated on the first start (`generated: true` tells the entry point to print it once). SigV4
 * needs the secret itself to recompute signatures, so it cannot be stored as a hash.
 */
function adminCredentials(db: Db, config: IdpConfig): AdminCredentials & { generated: boolean } {
  if (config.adminCredentials) return { ...config.adminCredentials, generated: false };
  return db.tx(() => {
    const row = db.get<{ value: string }>("SELECT value FROM settings WHERE key = 'admin_credentials'");
    if (row) return { ...(JSON.parse(row.value) as AdminCredentials), generated: false };
    const creds: AdminCredentials = { accessKeyId: newAccessKeyId(), secretAccessKey: newSecretAccessKey() };
    db.run("INSERT INTO settings (key, value) VALUES ('admin_credentials', ?)", JSON.stringify(creds));
    return { ...creds, generated: true };
  });
}
