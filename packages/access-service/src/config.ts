import type { TokenVerifier } from '@ianode/auth';
import type { FastifyServerOptions } from 'fastify';
import type { CompatConfig } from './compat.js';
import type { ProvisioningConfig } from './provisioning.js';
import type { SeedDocument } from './seed.js';

/** Configuration of `createAccessServer`. */
export interface AccessServerConfig {
  /** Folder of the database file (`access.db`); `':memory:'` for a throw-away directory. */
  dataDir: string;
  /** A ready verifier; otherwise one is built from the fields below. */
  verifier?: TokenVerifier;
  /** `JWKS_URL`: the signing keys. */
  jwksUrl?: string;
  /** `OPENID_PROVIDER_URL`: the issuer tokens must carry (and, without `jwksUrl`, discovery). */
  openIdProviderUrl?: string;
  /**
   * App client ids whose tokens are accepted (`TOKEN_CLIENT_IDS`): an ID token's `aud`, an access
   * token's `client_id`. `main.ts` refuses to start without them; unchecked when absent here.
   */
  clientIds?: string[];
  /** Older name of `clientIds` (`TOKEN_AUDIENCE`); merged. */
  audience?: string | string[];
  /** Accept Cognito access tokens too (`ACCEPT_ACCESS_TOKENS=true`; default false: ID tokens only). */
  acceptAccessTokens?: boolean;
  /**
   * `LINK_BY_EMAIL=true`: a token identity not yet linked may claim the one unlinked directory entry
   * whose e-mail address (or id) is its `email`, when the token says `email_verified: true`. The
   * first subject to claim an address owns it. Default false (an administrator links entries).
   */
  linkByEmail?: boolean;
  /** `REVOCATION_URL`: the IdP's revocation list; tokens it lists are refused (polled every 10 s). */
  revocationUrl?: string;
  /** `GROUPS_KEY`: the claim holding the groups (default `cognito:groups`). */
  groupsClaim?: string;
  /** Claims naming the user, first present wins (default email, cognito:username, username, preferred_username, sub). */
  userClaims?: string[];
  /** `ADMIN_GROUP`: the group whose members may use the admin API (default `ianode_admin`). */
  adminGroup?: string;
  /**
   * Provisioning (src/provisioning.ts, docs/operations.md "Provisioning users"): rules that activate
   * users from their token's groups, and whether the IdP's user-creation notifications are taken.
   * Default: none (an administrator activates every user).
   */
  provisioning?: ProvisioningConfig;
  /**
   * `compat: reference` (src/compat.ts, packages/access-service/README.md "Reference compatibility"): lookups
   * in the reference access service's format, its extra routes, and optionally lookups without a
   * token from trusted networks. Default: off (ianode's own format).
   */
  compat?: CompatConfig;
  /** A seed applied at start (a document, or the path of a YAML/JSON file). */
  seed?: SeedDocument | string;
  /** Fastify's logger option (pino options or a boolean); default `{ level: 'info' }`. */
  logger?: FastifyServerOptions['logger'];
  /** `CORS_ORIGINS`: origins whose browser pages may call the service, or `['*']`; default none (no CORS headers). */
  corsOrigins?: string[];
  /** Largest request body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Injected fetch for the verifier (tests). */
  fetch?: typeof globalThis.fetch;
  /** Clock for stored timestamps and token times (tests). */
  now?: () => number;
}

export const DEFAULT_ADMIN_GROUP = 'ianode_admin';
export const DEFAULT_PORT = 8091;
