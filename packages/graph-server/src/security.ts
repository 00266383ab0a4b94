/**
 * The secure pipeline of SPEC §2: bearer token -> verification (JWKS) -> user name -> attributes
 * from the access service (cached, fail closed) + hierarchies -> operation permission -> a
 * `LabelEvaluator` whose `isVisible` is the predicate of the caller's store view. Open mode
 * answers an "everyone sees everything" caller instead.
 */
import { parseAttributeValue } from '@ianode/abac';
import { visibilityOf } from './grant.js';
import {
  AuthError, AWS_JWKS_PREFIX, awsRegionOf, createAlbTokenVerifier, createAttributeClient, createRevocationList, createTokenVerifier, tokenFromHeaders, type AttributeClient, type RequestHeaders, type RevocationList, type TokenVerifier,
} from '@ianode/auth';
import type { LabelPredicate } from '@ianode/rdf';
import type { Operation, SecurityConfig } from './config.js';
import type { Grant } from './pool/protocol.js';
import { GraphServerError } from './errors.js';

export { tokenFromHeaders };

/** Who is asking, and what they may see. */
export interface Caller {
  /**
   * The identity key (`identityKey(iss, sub)`): what caches and the rate limit are keyed by
   * (`anonymous` in open mode).
   */
  id: string;
  /** Display name from the token, for logs only (`anonymous` in open mode); never a key. */
  user: string;
  /** Attribute strings the labels are evaluated against (as the access service resolved them). */
  attributes: string[];
  /** Whether the caller may perform an operation. */
  may(operation: Operation): boolean;
  /** The store view predicate; undefined = everything (open mode). */
  visible: LabelPredicate | undefined;
  /** What `visible` is built from, as data, for the query workers (pool/protocol.ts); undefined
   * exactly when `visible` is (open mode). */
  grant: Grant | undefined;
  /** Set when an administrator reads as another user ("view as"): that user's name. */
  viewAs?: string | undefined;
}

export interface Security {
  readonly secure: boolean;
  /**
   * Resolves the caller of a request from its headers (the token from `security.tokenHeaders`) or
   * throws `AuthError` (401/503) or `GraphServerError` `UNKNOWN_USER` / `INACTIVE_USER` (403).
   */
  authenticate(headers: RequestHeaders): Promise<Caller>;
  /** Throws `AuthError('FORBIDDEN')` naming the operation when the caller may not. */
  require(caller: Caller, operation: Operation): void;
  /** Readiness: the access service answers (secure mode). */
  checkAccessService(): Promise<void>;
  verifier: TokenVerifier | undefined;
  attributes: AttributeClient | undefined;
  /** The IdP's revocation list, when `revocationUrl` is configured. */
  revocations: RevocationList | undefined;
  /** The same verification, directory and caches, judging another dataset's permissions (one
   * server, several datasets: one JWKS cache, one attribute cache). */
  forDataset(permissions: Record<Operation, string>, datasetName: string): Security;
  /**
   * "View as" (docs/graph-server.md): the caller as `user` sees the dataset — that user's
   * attributes and hierarchies from the access service (looked up with the administrator's own
   * token), and no permission but `read`. For an administrator's reads only (the dataset checks).
   */
  viewAs(headers: RequestHeaders, caller: Caller, user: string): Promise<Caller>;
}

export interface SecurityOptions {
  security: SecurityConfig;
  permissions: Record<Operation, string>;
  datasetName: string;
  fetch?: typeof globalThis.fetch;
  now?: () => number;
  /** Key-set age under which an unknown `kid` is not refetched (default 1 s; a failed fetch never delays). */
  jwksCooldownMs?: number;
  /** `JWKS_URL=aws:<region>`: where the key of a `kid` is fetched (tests; default AWS's URL). */
  awsKeyUrl?: (region: string, kid: string) => string;
}

const DEFAULT_TOKEN_HEADERS = [{ header: 'Authorization', prefix: 'Bearer' }];

const OPERATION_WORDS: Record<Operation, string> = { read: 'read (query)', write: 'write (upload/update/patch)', admin: 'administer (labels)' };

export function createSecurity(options: SecurityOptions): Security {
  const { security } = options;
  const secure = security.jwksUrl !== undefined && security.jwksUrl !== '' && security.jwksUrl.toLowerCase() !== 'disabled';
  const requireFor = (datasetName: string) => (caller: Caller, operation: Operation) => {
    if (!caller.may(operation)) {
      throw new AuthError('FORBIDDEN', `not allowed to ${OPERATION_WORDS[operation]} ${datasetName === '$' ? 'this server' : `dataset /${datasetName}`}: your attributes do not satisfy the "${operation}" permission`);
    }
  };
  if (!secure) {
    const everyone: Caller = { id: 'anonymous', user: 'anonymous', attributes: [], may: () => true, visible: undefined, grant: undefined };
    const open = (_permissions: Record<Operation, string>, datasetName: string): Security => ({
      secure, verifier: undefined, attributes: undefined, revocations: undefined, require: requireFor(datasetName), authenticate: async () => everyone, checkAccessService: async () => {}, forDataset: open,
      viewAs: async () => {
        throw new GraphServerError('BAD_REQUEST', 'Ianode-View-As: this server is in open mode (no tokens, no labels): everybody sees everything already');
      },
    });
    return open(options.permissions, options.datasetName);
  }
  const aws = AWS_JWKS_PREFIX.test(security.jwksUrl!);
  // The reference's AWS load-balancer form: region checked at start (a TypeError names it).
  const awsRegion = aws ? awsRegionOf(security.jwksUrl!) : undefined;
  if (aws && (security.albSigners === undefined || security.albSigners.length === 0)) {
    throw new TypeError(
      `JWKS_URL=${security.jwksUrl} needs the ARNs of the load balancers whose tokens are accepted: set AWS_ALB_ARNS (comma-separated) or security.albSigners (any load balancer of the region signs with the same keys)`,
    );
  }
  if (security.userAttributesUrl === undefined || security.userAttributesUrl === '') {
    throw new TypeError('secure mode (JWKS_URL set) needs USER_ATTRIBUTES_URL: the access service that resolves callers to attributes');
  }
  const audience = security.audience === undefined ? [] : Array.isArray(security.audience) ? security.audience : [security.audience];
  const clientIds = [...(security.clientIds ?? []), ...audience.filter((id) => id !== '')];
  if (clientIds.length === 0) {
    throw new TypeError(
      'secure mode needs the app client ids whose tokens are accepted: set TOKEN_CLIENT_IDS (comma-separated) or security.clientIds in the configuration',
    );
  }
  const fetchFn = options.fetch;
  // Sign-out, RevokeToken, disable and delete at the IdP take effect within revocationPollMs.
  const revocations =
    security.revocationUrl === undefined || security.revocationUrl === ''
      ? undefined
      : createRevocationList({
          url: security.revocationUrl,
          pollMs: security.revocationPollMs ?? 10_000,
          maxStaleMs: 3 * (security.revocationPollMs ?? 10_000),
          ...(fetchFn ? { fetch: fetchFn } : {}),
          ...(options.now ? { now: options.now } : {}),
        });
  const isRevoked = revocations === undefined ? {} : { isRevoked: (claims: Parameters<RevocationList['isRevoked']>[0]) => revocations.isRevoked(claims) };
  const claimMapping = { ...(security.userClaims ? { userClaims: security.userClaims } : {}), ...(security.groupsClaim ? { groupsClaim: security.groupsClaim } : {}) };
  const verifier = awsRegion !== undefined
    ? createAlbTokenVerifier({
        ...isRevoked,
        ...claimMapping,
        region: awsRegion,
        signers: security.albSigners!,
        clientIds,
        ...(security.openIdProviderUrl ? { issuer: security.openIdProviderUrl.replace(/\/+$/, '') } : {}),
        ...(options.awsKeyUrl ? { keyUrl: options.awsKeyUrl } : {}),
        ...(fetchFn ? { fetch: fetchFn } : {}),
        ...(options.now ? { now: options.now } : {}),
        ...(options.jwksCooldownMs === undefined ? {} : { cooldownMs: options.jwksCooldownMs }),
      })
    : createTokenVerifier({
        ...isRevoked,
        ...claimMapping,
        jwksUrl: security.jwksUrl!,
        ...(security.openIdProviderUrl ? { issuer: security.openIdProviderUrl.replace(/\/+$/, '') } : {}),
        clientIds,
        tokenUses: security.acceptAccessTokens === true ? ['id', 'access'] : ['id'],
        ...(fetchFn ? { fetch: fetchFn } : {}),
        ...(options.now ? { now: options.now } : {}),
        ...(options.jwksCooldownMs === undefined ? {} : { cooldownMs: options.jwksCooldownMs }),
      });
  const attributes = createAttributeClient({
    baseUrl: security.userAttributesUrl,
    ...(security.attributeHierarchyUrl ? { hierarchyUrl: security.attributeHierarchyUrl } : {}),
    cacheTtlMs: security.attributeCacheMs,
    // The reference's answers are read with RDF-ABAC's rules, legacy fallback on (as the reference).
    format: security.attributeFormat ?? 'auto',
    parseAttributeValue: (text) => parseAttributeValue(text, { legacy: true }),
    ...(fetchFn ? { fetch: fetchFn } : {}),
    ...(options.now ? { now: options.now } : {}),
  });

  // Behind an AWS load balancer the token is its `x-amzn-oidc-data` header (no prefix), unless
  // security.tokenHeaders names other sources than the default.
  const configured = security.tokenHeaders ?? DEFAULT_TOKEN_HEADERS;
  const isDefault = configured.length === 1 && configured[0]!.header.toLowerCase() === 'authorization' && (configured[0]!.prefix ?? '').toLowerCase() === 'bearer';
  const tokenHeaders = aws && isDefault ? [{ header: 'X-Amzn-Oidc-Data', prefix: '' }] : configured;
  const unknownUsers = security.unknownUsers ?? 'deny';

  async function authenticate(headers: RequestHeaders, permissions: Record<Operation, string>): Promise<Caller> {
    const token = tokenFromHeaders(headers, tokenHeaders);
    const verified = await verifier.verify(token);
    // The access service already turns the token's groups into boolean attributes (SPEC §6) and
    // answers [] for an inactive user; adding the token's groups here would let a disabled user's
    // still-valid token keep its group permissions, so the directory's answer is the whole truth.
    // Attributes are cached by (iss, sub), never by the display name; hierarchies of the valued
    // attributes are fetched in parallel, everything under one deadline.
    const { attributes: strings, hierarchies: tiersByName, status } = await attributes.resolve(token, { identity: verified.identity, subject: verified.subject });
    // The reference refuses a caller its attribute service does not know, whatever the labels
    // would show an attribute-less caller; the message says no more than that (issue 17, item 5).
    // A user a provisioning rule activates at this very lookup is known (the access service
    // answers its entry). An inactive entry is refused whatever `unknownUsers` says.
    if (status === 'inactive') {
      throw new GraphServerError('INACTIVE_USER', "your user is inactive in the access service's directory; ask an administrator");
    }
    if (status === 'unknown' && unknownUsers === 'deny') {
      throw new GraphServerError('UNKNOWN_USER', "your user is not in the access service's directory; ask an administrator to add you");
    }
    const { visible, grant } = visibilityOf(strings, tiersByName);
    return {
      id: verified.identity,
      user: verified.user,
      attributes: strings,
      may: (operation) => visible(permissions[operation]),
      visible,
      grant,
    };
  }

  async function checkAccessService(): Promise<void> {
    const url = attributes.hierarchyLookupUrl('clearance');
    let response: Response;
    try {
      response = await (fetchFn ?? globalThis.fetch)(url, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
    } catch (cause) {
      throw new GraphServerError('INTERNAL', `access service not reachable at ${new URL(url).origin}`, { cause });
    }
    if (response.status >= 500) throw new GraphServerError('INTERNAL', `access service at ${new URL(url).origin} answered HTTP ${response.status}`);
  }

  async function viewAs(headers: RequestHeaders, caller: Caller, user: string, permissions: Record<Operation, string>): Promise<Caller> {
    const token = tokenFromHeaders(headers, tokenHeaders);
    // Cached per administrator and user: the access service decides what each administrator may look up.
    const { attributes: strings, hierarchies: tiersByName, status } = await attributes.resolve(token, { identity: `view-as\u0000${caller.id}\u0000${user}`, subject: user });
    if (status === 'unknown') throw new GraphServerError('NOT_FOUND', `Ianode-View-As: the access service does not know the user ${JSON.stringify(user)}`);
    if (status === 'inactive') throw new GraphServerError('INACTIVE_USER', `Ianode-View-As: the user ${JSON.stringify(user)} is inactive in the access service's directory: they see nothing`);
    const { visible, grant } = visibilityOf(strings, tiersByName);
    return {
      id: caller.id,
      user: caller.user,
      attributes: strings,
      // Reads only, as that user would be allowed them: never a write or an administration.
      may: (operation) => operation === 'read' && visible(permissions.read),
      visible,
      grant,
      viewAs: user,
    };
  }

  const judging = (permissions: Record<Operation, string>, datasetName: string): Security => ({
    secure, verifier, attributes, revocations, require: requireFor(datasetName), authenticate: (headers) => authenticate(headers, permissions), checkAccessService, forDataset: judging,
    viewAs: (headers, caller, user) => viewAs(headers, caller, user, permissions),
  });
  return judging(options.permissions, options.datasetName);
}

/** A fixed-window per-user request counter (SPEC: per-user rate limit, 429). */
export function createRateLimiter(perMinute: number, now: () => number = Date.now): (user: string) => void {
  if (perMinute <= 0) return () => {};
  const windows = new Map<string, { start: number; count: number }>();
  return (user) => {
    const t = now();
    let w = windows.get(user);
    if (w === undefined || t - w.start >= 60_000) {
      if (windows.size > 100_000) windows.clear();
      w = { start: t, count: 0 };
      windows.set(user, w);
    }
    w.count += 1;
    if (w.count > perMinute) {
      const retry = Math.ceil((w.start + 60_000 - t) / 1000);
      throw Object.assign(new GraphServerError('RATE_LIMITED', `too many requests: at most ${perMinute} a minute per user; retry in ${retry} s`), { retryAfter: retry });
    }
  };
}
