import { errors, jwtVerify, type JWTHeaderParameters, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { bearerToken, MAX_TOKEN_LENGTH } from './bearer.js';
import { mapClaims, type ClaimMapping } from './claims.js';
import { AuthError, invalidToken, type InvalidTokenReason } from './errors.js';
import { JwksCache, type KeySet } from './jwks.js';

type KeyArgs = Parameters<KeySet>;

/** The asymmetric algorithms a token may use by default (SPEC §2). */
export const DEFAULT_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384'];
/** Algorithms that may be allowed at all: public-key signatures only, never `none` or HMAC. */
const PERMITTED_ALGORITHMS = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']);

export interface TokenVerifierOptions extends ClaimMapping {
  /** The JSON Web Key Set URL (`JWKS_URL`). */
  jwksUrl?: string | URL;
  /**
   * The OpenID provider (`OPENID_PROVIDER_URL`): the expected issuer unless `issuer` is given, and,
   * without `jwksUrl`, where discovery finds `jwks_uri`.
   */
  openIdProviderUrl?: string;
  /** The `iss` a token must carry; defaults to `openIdProviderUrl` (without trailing `/`). */
  issuer?: string;
  /**
   * The app client ids whose tokens are accepted: an ID token's `aud` must be one of them, an access
   * token's `client_id` likewise. Unchecked when absent (the services refuse to start without it in
   * secure mode; the library leaves that decision to them).
   */
  clientIds?: readonly string[];
  /** Older name of `clientIds` (`TOKEN_AUDIENCE`); both lists are merged. */
  audience?: string | readonly string[];
  /**
   * Which `token_use` values are accepted (default `['id']`: Cognito ID tokens only). Add `'access'`
   * to accept access tokens too; their `client_id` is then checked against `clientIds`.
   */
  tokenUses?: readonly TokenUse[];
  /**
   * Revocation check run after the signature and claims verify: resolves `true` when the token has
   * been revoked (signed out, user disabled or deleted). It may throw `AuthError` (for example
   * `JWKS_UNAVAILABLE`-like 503s when the revocation source is stale); anything else it throws is
   * treated as `REVOCATION_UNAVAILABLE` (503), never as a pass.
   */
  isRevoked?: (claims: JWTPayload) => boolean | Promise<boolean>;
  /** Allowed `alg` values; a subset of the public-key algorithms. */
  algorithms?: readonly string[];
  /** Clock skew allowed on `exp`/`nbf`/`iat`, in seconds (default 30). */
  clockToleranceSec?: number;
  /** Claims that must be present (default `exp`). */
  requiredClaims?: readonly string[];
  /** Injectable fetch (default `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch;
  /**
   * An unknown `kid` refetches the key set at once when the last fetch failed or is at least this
   * old (default 1 s); a younger, successful fetch is trusted (so forged `kid`s cannot make the
   * verifier hammer the IdP).
   */
  cooldownMs?: number;
  /** Keys are refetched before use once older than this (default 10 min). */
  cacheMaxAgeMs?: number;
  /** Time limit of a JWKS or discovery request (default 5 s). */
  timeoutMs?: number;
  /** Clock in milliseconds (default `Date.now`); used for token times and the key cache. */
  now?: () => number;
}

/** The kinds of Cognito token (`token_use`). */
export type TokenUse = 'id' | 'access';

/** What a verified token says about its bearer. */
export interface VerifiedToken {
  /** The issuer (`iss`): half of the identity. */
  issuer: string;
  /** The subject (`sub`): the other half of the identity. */
  subject: string;
  /**
   * The identity as one string, for cache and map keys: `issuer` and `subject` joined so that no two
   * distinct pairs give the same key. Never a display name or e-mail address.
   */
  identity: string;
  /** `token_use` of the token. */
  tokenUse: TokenUse;
  /** A display name (first present claim of `userClaims`); never decides identity. */
  user: string;
  /** The groups of the groups claim. */
  groups: string[];
  /** Every claim of the token. */
  claims: JWTPayload;
  /** The protected header (`alg`, `kid`, …). */
  header: JWTHeaderParameters;
}

export interface TokenVerifier {
  /** The issuer tokens must carry, if any. */
  readonly issuer: string | undefined;
  /** Verifies a compact JWT. Throws `AuthError` (`INVALID_TOKEN`, `JWKS_UNAVAILABLE`). */
  verify(token: string): Promise<VerifiedToken>;
  /** `bearerToken` + `verify`: also throws `MISSING_TOKEN`. */
  authenticate(authorization: string | readonly string[] | undefined | null): Promise<VerifiedToken>;
  /** Fetches the keys now; throws `JWKS_UNAVAILABLE` if they cannot be had (a readiness check). */
  warmUp(): Promise<void>;
  /**
   * The verifier's cached key set as a jose key function, for another kind of JWT the same issuer
   * signs (the IdP's user-creation notification): same cache, cooldown and fetch; errors map
   * through `toAuthError`.
   */
  readonly keys: JWTVerifyGetKey;
  /** Number of key-set fetches so far. */
  readonly jwksFetches: number;
}

/**
 * Builds a verifier: JWKS fetched and cached, unknown `kid` refetched (at once after a failed fetch,
 * else once the key set is `cooldownMs` old); `token_use` and the client pinned; identity = (iss, sub).
 */
export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  if (algorithms.length === 0) throw new TypeError('algorithms must not be empty');
  for (const alg of algorithms) {
    if (!PERMITTED_ALGORITHMS.has(alg)) throw new TypeError(`algorithm ${alg} is not a public-key signature algorithm`);
  }
  const now = options.now ?? Date.now;
  const issuer = options.issuer ?? options.openIdProviderUrl?.replace(/\/+$/, '');
  const mapping: ClaimMapping = {
    ...(options.userClaims === undefined ? {} : { userClaims: options.userClaims }),
    ...(options.groupsClaim === undefined ? {} : { groupsClaim: options.groupsClaim }),
  };
  const cache = new JwksCache({
    ...(options.jwksUrl === undefined ? {} : { jwksUrl: options.jwksUrl }),
    ...(options.openIdProviderUrl === undefined ? {} : { openIdProviderUrl: options.openIdProviderUrl }),
    ...(issuer === undefined ? {} : { expectedIssuer: issuer }),
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    cooldownMs: options.cooldownMs ?? 1_000,
    cacheMaxAgeMs: options.cacheMaxAgeMs ?? 600_000,
    timeoutMs: options.timeoutMs ?? 5_000,
    now,
  });
  const clientIds = [...(options.clientIds ?? []), ...[options.audience ?? []].flat()];
  const checkClient = options.clientIds !== undefined || options.audience !== undefined;
  if (checkClient && clientIds.length === 0) throw new TypeError('clientIds must name at least one app client id');
  const tokenUses = new Set<string>(options.tokenUses ?? ['id']);
  if (tokenUses.size === 0 || [...tokenUses].some((use) => use !== 'id' && use !== 'access')) {
    throw new TypeError('tokenUses must be a non-empty list of "id" and "access"');
  }
  const baseVerifyOptions: JWTVerifyOptions = {
    algorithms,
    clockTolerance: options.clockToleranceSec ?? 30,
    requiredClaims: [...new Set([...(options.requiredClaims ?? ['exp']), 'iss', 'sub', 'token_use'])],
    ...(issuer === undefined ? {} : { issuer }),
  };

  const getKey = async (header: KeyArgs[0], token: KeyArgs[1]) => {
    const keys = await cache.current();
    try {
      return await keys(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
    }
    const fresh = await cache.afterUnknownKey();
    if (fresh === undefined) throw invalidToken('unknown_key');
    return fresh(header, token);
  };

  async function verify(token: string): Promise<VerifiedToken> {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) throw invalidToken('malformed');
    const verifyOptions = { ...baseVerifyOptions, currentDate: new Date(now()) };
    let result: Awaited<ReturnType<typeof jwtVerify>>;
    try {
      result = await jwtVerify(token, getKey, verifyOptions);
    } catch (error) {
      if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw toAuthError(error);
      result = await verifyWithAny(token, error, verifyOptions);
    }
    const claims = result.payload;
    const tokenUse = claims.token_use;
    if (typeof tokenUse !== 'string' || !tokenUses.has(tokenUse)) {
      throw invalidToken('wrong_token_use', new Error(`token_use ${JSON.stringify(tokenUse)} is not one of ${[...tokenUses].join(', ')}`));
    }
    if (checkClient) {
      if (tokenUse === 'id') {
        const aud = claims.aud;
        const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
        // Cognito ID tokens name exactly one client; a token for several audiences is refused.
        if (audiences.length !== 1 || !clientIds.includes(audiences[0]!)) {
          throw invalidToken('wrong_audience', new Error(`aud ${JSON.stringify(aud)} is not one of the accepted client ids`));
        }
      } else if (typeof claims.client_id !== 'string' || !clientIds.includes(claims.client_id)) {
        throw invalidToken('wrong_client', new Error(`client_id ${JSON.stringify(claims.client_id)} is not one of the accepted client ids`));
      }
    }
    const subject = claims.sub;
    const tokenIssuer = claims.iss;
    if (typeof subject !== 'string' || subject === '' || typeof tokenIssuer !== 'string' || tokenIssuer === '') {
      throw invalidToken('missing_claim', new Error('iss and sub must be non-empty strings'));
    }
    await refuseRevoked(options.isRevoked, claims);
    const { user, groups } = mapClaims(claims, mapping);
    return {
      issuer: tokenIssuer,
      subject,
      identity: identityKey(tokenIssuer, subject),
      tokenUse: tokenUse as TokenUse,
      user,
      groups,
      claims,
      header: result.protectedHeader,
    };
  }

  return {
    issuer,
    verify,
    async authenticate(authorization) {
      return verify(bearerToken(authorization));
    },
    async warmUp() {
      await cache.current();
    },
    keys: getKey,
    get jwksFetches() {
      return cache.fetches;
    },
  };
}

/** The map key of the identity (`iss`, `sub`): unambiguous for any two strings. */
export function identityKey(issuer: string, subject: string): string {
  return JSON.stringify([issuer, subject]);
}

/** A token without `kid` against a set with several candidate keys: the first key that verifies. */
async function verifyWithAny(token: string, candidates: errors.JWKSMultipleMatchingKeys, options: JWTVerifyOptions) {
  let last: unknown = invalidToken('unknown_key');
  for await (const key of candidates) {
    try {
      return await jwtVerify(token, key, options);
    } catch (error) {
      last = error;
      if (!(error instanceof errors.JWSSignatureVerificationFailed)) break;
    }
  }
  throw toAuthError(last);
}

/** Maps whatever jose threw to an `AuthError`; anything unrecognised is a refusal, never a pass. */
export function toAuthError(error: unknown): AuthError {
  if (error instanceof AuthError) return error;
  const reason = reasonOf(error);
  if (reason === undefined) {
    return new AuthError('JWKS_UNAVAILABLE', 'token signing keys unavailable: try again later', { cause: error });
  }
  return invalidToken(reason, error);
}

function reasonOf(error: unknown): InvalidTokenReason | undefined {
  if (error instanceof errors.JWTExpired) return error.claim === 'exp' ? 'expired' : 'rejected';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return 'missing_claim';
    switch (error.claim) {
      case 'nbf':
      case 'iat':
        return 'not_yet_valid';
      case 'iss':
        return 'wrong_issuer';
      case 'aud':
        return 'wrong_audience';
      default:
        return 'rejected';
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'algorithm_not_allowed';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKInvalid) return 'unknown_key';
  if (error instanceof errors.JWKSInvalid) return undefined;
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return 'malformed';
  return 'rejected';
}

/** Throws `INVALID_TOKEN` (revoked) when `isRevoked` says so, and `REVOCATION_UNAVAILABLE` when it
 * cannot tell (fail closed). Shared by the JWKS verifier and the AWS load-balancer one. */
export async function refuseRevoked(isRevoked: ((claims: JWTPayload) => boolean | Promise<boolean>) | undefined, claims: JWTPayload): Promise<void> {
  if (isRevoked === undefined) return;
  let revoked: boolean;
  try {
    revoked = await isRevoked(claims);
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new AuthError('REVOCATION_UNAVAILABLE', 'token revocation list unavailable: try again later', { cause: error });
  }
  if (revoked) throw invalidToken('revoked');
}
