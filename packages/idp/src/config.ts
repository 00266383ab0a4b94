/**
 * Configuration of the identity provider and its defaults (SPEC §7). The types of its settings
 * live here, below the context built from it (context.ts) and the modules that act on them
 * (auth/user-created.ts, events/user-created.ts), so none of those is imported back from here.
 */
import type { ScryptCost } from './crypto/password.js';
import type { NewKey } from './keys/key-store.js';
import type { ThrottleSettings } from './model/throttle.js';
import type { SeedDocument } from './seed/seed-schema.js';

/** Where log lines go (what Fastify's logger accepts as `stream`): one JSON line per write. */
export interface LogStream {
  write(line: string): void;
}

export interface AdminCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface IdpConfig {
  /** Folder of the database file; created (mode 0700) when missing. */
  dataDir: string;
  /**
   * Base URL clients reach the IdP at; issuer = `<publicUrl>/<pool id>`. Never taken from request
   * headers. Default `http://localhost:<listening port>` (9229 before `listen`).
   */
  publicUrl?: string;
  /** Region written into ARNs; admin requests must be SigV4-signed for this region. */
  region?: string;
  /** Account id written into ARNs. */
  accountId?: string;
  /** Admin key for SigV4; default: generated on first start and kept in the database. */
  adminCredentials?: AdminCredentials;
  /** A seed document, or the path of a YAML/JSON seed file, applied idempotently at start. */
  seed?: SeedDocument | string;
  /** pino options; `false` silences logging. Default: level `info` to stdout. */
  log?: false | { level?: string; stream?: LogStream };
  /** Clock in milliseconds (tests freeze or advance it). */
  now?: () => number;
  /** Largest allowed difference between `x-amz-date` and now (default 15 minutes, as AWS). */
  signatureMaxSkewMs?: number;
  throttle?: Partial<ThrottleSettings>;
  scryptCost?: ScryptCost;
  /**
   * Makes the signing key of a new pool and of a rotation. Default: a fresh RSA-2048 pair every time
   * (`generateSigningKey`). Only tests give another (keys generated once per test process: RSA
   * generation is the slowest step of creating a pool).
   */
  newSigningKey?: () => Promise<NewKey>;
  /**
   * Origins whose browser pages may call the IdP (Cognito JSON API, discovery, JWKS, token,
   * userInfo), or `['*']`; default none (no CORS headers). `--cors-origins` / `IDP_CORS_ORIGINS`.
   */
  corsOrigins?: string[];
  /** Largest request body (default 1 MiB). */
  bodyLimit?: number;
  /**
   * Called once a self-registered user is confirmed (ConfirmSignUp, AdminConfirmSignUp); default
   * none. A failure is logged and does not undo the confirmation (`src/auth/user-created.ts`).
   */
  onUserCreated?: OnUserCreated;
  /**
   * Notify this URL when a user is created (events/user-created.ts): a JWT signed with the pool's
   * key, verified by the receiver through the JWKS. `IDP_USER_CREATED_WEBHOOK_URL` /
   * `--user-created-webhook`; audience `IDP_USER_CREATED_AUDIENCE` (default `ianode-access-service`).
   */
  userCreatedWebhook?: UserCreatedWebhook;
}

/** What `IdpConfig.onUserCreated` is called with (auth/user-created.ts builds and sends it). */
export interface UserCreatedEvent {
  poolId: string;
  sub: string;
  username: string;
  attributes: Readonly<Record<string, string>>;
  groups: readonly string[];
  /** The operation that made the user a confirmed member of the pool. */
  via: 'ConfirmSignUp' | 'AdminConfirmSignUp';
}

export type OnUserCreated = (event: UserCreatedEvent) => void | Promise<void>;

/** `IdpConfig.userCreatedWebhook` (events/user-created.ts delivers it). */
export interface UserCreatedWebhook {
  /** Where to POST (e.g. `http://localhost:8091/provisioning/user-created`). */
  url: string;
  /** The notification token's `aud` (default `ianode-access-service`). */
  audience?: string | undefined;
  /** Delivery timeout (default 5000 ms). */
  timeoutMs?: number | undefined;
}

export const DEFAULT_PORT = 9229;
export const DEFAULT_REGION = 'us-east-1';
export const DEFAULT_ACCOUNT_ID = '000000000000';
export const DEFAULT_SKEW_MS = 15 * 60_000;

/** Removes a trailing slash so `${base}/${poolId}` is well formed. */
export const normaliseBaseUrl = (url: string): string => {
  const parsed = new URL(url); // throws on a malformed URL
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`publicUrl must be http(s): ${url}`);
  return url.replace(/\/+$/, '');
};
