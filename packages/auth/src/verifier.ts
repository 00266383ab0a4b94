import { errors, jwtVerify, type JWTHeaderParameters, type JWTPayload, type JWTVerifyOptions } from 'jose';
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
  /** The `aud` a token must carry (for example a Cognito app client id); unchecked when absent. */
  audience?: string | string[];
  /** Allowed `alg` values; a subset of the public-key algorithms. */
  algorithms?: readonly string[];
  /** Clock skew allowed on `exp`/`nbf`/`iat`, in seconds (default 30). */
  clockToleranceSec?: number;
  /** Claims that must be present (default `exp`). */
  requiredClaims?: readonly string[];
  /** Injectable fetch (default `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch;
  /** Least time between refetches caused by an unknown `kid` (default 30 s). */
  cooldownMs?: number;
  /** Keys are refetched before use once older than this (default 10 min). */
  cacheMaxAgeMs?: number;
  /** Time limit of a JWKS or discovery request (default 5 s). */
  timeoutMs?: number;
  /** Clock in milliseconds (default `Date.now`); used for token times and the key cache. */
  now?: () => number;
}

/** What a verified token says about its bearer. */
export interface VerifiedToken {
  /** The user name (first present claim of `userClaims`). */
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
  /** Number of key-set fetches so far. */
  readonly jwksFetches: number;
}

/** Builds a verifier: JWKS fetched and cached, unknown `kid` refetched under a cool-down. */
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
    cooldownMs: options.cooldownMs ?? 30_000,
    cacheMaxAgeMs: options.cacheMaxAgeMs ?? 600_000,
    timeoutMs: options.timeoutMs ?? 5_000,
    now,
  });
  const baseVerifyOptions: JWTVerifyOptions = {
    algorithms,
    clockTolerance: options.clockToleranceSec ?? 30,
    requiredClaims: [...(options.requiredClaims ?? ['exp'])],
    ...(issuer === undefined ? {} : { issuer }),
    ...(options.audience === undefined ? {} : { audience: options.audience }),
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
    const { user, groups } = mapClaims(result.payload, mapping);
    return { user, groups, claims: result.payload, header: result.protectedHeader };
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
    get jwksFetches() {
      return cache.fetches;
    },
  };
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
