/**
 * Tokens of an AWS Application Load Balancer (`JWKS_URL=aws:<region>`, the reference IA node's AWS
 * form, from Telicent's jwt-servlet-auth `AwsElbJwtVerifier`). An ALB that authenticates users
 * passes their claims on in the `x-amzn-oidc-data` header: a JWT it signs itself with ES256, whose
 * header names the key (`kid`), the load balancer (`signer`, its ARN) and the app client (`client`).
 * The public key of a `kid` is one PEM document at
 * `https://public-keys.auth.elb.<region>.amazonaws.com/<kid>` (GovCloud regions: AWS's S3 buckets).
 *
 * Checks, all of which must pass: the region is an AWS region name; the `kid` is a safe path
 * segment (it becomes part of a URL); the signature verifies with that key under ES256 only; `exp`
 * is in the future; `iss` is the configured issuer (when set); the header's `signer` is one of the
 * configured load balancer ARNs (any ALB of the region signs with the same keys, so without this
 * anyone's load balancer could mint tokens) and its `client` one of the configured app clients.
 * Keys are cached per `kid` (an unknown or failing `kid` is not asked for again within the
 * cool-down). jose does the PEM import and the verification; only the key look-up is written here.
 */
import { importSPKI, jwtVerify, type CryptoKey, type JWTHeaderParameters, type JWTVerifyGetKey } from 'jose';
import { bearerToken, MAX_TOKEN_LENGTH } from './bearer.js';
import { mapClaims, type ClaimMapping } from './claims.js';
import { AuthError, invalidToken } from './errors.js';
import { identityKey, refuseRevoked, toAuthError, type TokenVerifier, type VerifiedToken } from './verifier.js';

/** `aws:<region>` (case of the prefix ignored). */
export const AWS_JWKS_PREFIX = /^aws:/i;

/** AWS region names: `eu-west-2`, `us-gov-west-1`, `ap-southeast-4`, `cn-north-1`. */
const REGION = /^[a-z]{2}(?:-[a-z]+)?-[a-z]+-\d{1,2}$/;
/** A key id as an ALB writes it (a UUID) and, more loosely, any one URL path segment of URL-safe characters. */
const KID = /^[A-Za-z0-9_-]{1,128}$/;

/** The region of `aws:<region>`; throws `TypeError` naming the value when it is not a region. */
export function awsRegionOf(jwksUrl: string): string {
  const region = jwksUrl.replace(AWS_JWKS_PREFIX, '').trim();
  if (!REGION.test(region)) throw new TypeError(`JWKS_URL=${jwksUrl}: ${JSON.stringify(region)} is not an AWS region name (e.g. aws:eu-west-2)`);
  return region;
}

/** Where AWS publishes the ALB key `kid` of `region` (as jwt-servlet-auth's registry). */
export function awsAlbKeyUrl(region: string, kid: string): string {
  if (region === 'us-gov-west-1' || region === 'us-gov-east-1') return `https://s3-${region}.amazonaws.com/aws-elb-public-keys-prod-${region}/${kid}`;
  return `https://public-keys.auth.elb.${region}.amazonaws.com/${kid}`;
}

export interface AlbTokenVerifierOptions extends ClaimMapping {
  region: string;
  /** ARNs of the load balancers whose tokens are accepted (the header's `signer`). Required. */
  signers: readonly string[];
  /** App client ids (the header's `client`); unchecked when absent. */
  clientIds?: readonly string[];
  /** The `iss` a token must carry (the IdP behind the ALB); unchecked when absent. */
  issuer?: string;
  /** The key URL of a `kid` (default `awsAlbKeyUrl`); tests point it at a local key server. */
  keyUrl?: (region: string, kid: string) => string;
  isRevoked?: (claims: import('jose').JWTPayload) => boolean | Promise<boolean>;
  clockToleranceSec?: number;
  fetch?: typeof globalThis.fetch;
  /** A `kid` whose key could not be had is not asked for again within this time (default 30 s). */
  cooldownMs?: number;
  /** Keys are fetched again once older than this (default 1 h; AWS never changes a published kid's key). */
  cacheMaxAgeMs?: number;
  timeoutMs?: number;
  now?: () => number;
}

/** Most keys kept; AWS rotates a few keys a region, so more means forged `kid`s. */
const MAX_KEYS = 64;

interface CachedKey {
  at: number;
  key: CryptoKey | undefined;
}

export function createAlbTokenVerifier(options: AlbTokenVerifierOptions): TokenVerifier {
  if (!REGION.test(options.region)) throw new TypeError(`${JSON.stringify(options.region)} is not an AWS region name`);
  const signers = new Set(options.signers);
  if (signers.size === 0) throw new TypeError('the AWS load balancer form needs the ARNs of the load balancers whose tokens are accepted');
  const clientIds = options.clientIds === undefined ? undefined : new Set(options.clientIds);
  const now = options.now ?? Date.now;
  const fetchFn = options.fetch ?? ((input: string | URL | Request, init?: RequestInit) => globalThis.fetch(input, init));
  const keyUrl = options.keyUrl ?? awsAlbKeyUrl;
  const cooldownMs = options.cooldownMs ?? 30_000;
  const maxAgeMs = options.cacheMaxAgeMs ?? 3_600_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const mapping: ClaimMapping = {
    ...(options.userClaims === undefined ? {} : { userClaims: options.userClaims }),
    ...(options.groupsClaim === undefined ? {} : { groupsClaim: options.groupsClaim }),
  };
  const cache = new Map<string, CachedKey>();
  const inFlight = new Map<string, Promise<CryptoKey | undefined>>();
  let fetches = 0;

  async function load(kid: string): Promise<CryptoKey | undefined> {
    fetches++;
    let response: Response;
    let text: string;
    try {
      response = await fetchFn(keyUrl(options.region, kid), { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
      text = await response.text();
    } catch (cause) {
      throw new AuthError('JWKS_UNAVAILABLE', 'token signing keys unavailable: try again later', { cause });
    }
    // 403/404: AWS has no such key (S3 answers 403 for a missing object).
    if (response.status === 403 || response.status === 404) return undefined;
    if (!response.ok) throw new AuthError('JWKS_UNAVAILABLE', `token signing keys unavailable (HTTP ${response.status}): try again later`);
    try {
      return await importSPKI(text.trim(), 'ES256');
    } catch (cause) {
      throw new AuthError('JWKS_UNAVAILABLE', 'the load balancer key is not an ES256 public key in PEM form', { cause });
    }
  }

  async function keyFor(kid: string): Promise<CryptoKey> {
    const cached = cache.get(kid);
    const t = now();
    if (cached !== undefined && (cached.key === undefined ? t - cached.at < cooldownMs : t - cached.at < maxAgeMs)) {
      if (cached.key === undefined) throw invalidToken('unknown_key');
      return cached.key;
    }
    let pending = inFlight.get(kid);
    if (pending === undefined) {
      pending = load(kid).finally(() => inFlight.delete(kid));
      inFlight.set(kid, pending);
    }
    const key = await pending;
    if (cache.size >= MAX_KEYS && !cache.has(kid)) cache.delete(cache.keys().next().value!);
    cache.set(kid, { at: now(), key });
    if (key === undefined) throw invalidToken('unknown_key');
    return key;
  }

  const keys: JWTVerifyGetKey = async (header) => {
    const kid = header.kid;
    if (typeof kid !== 'string' || !KID.test(kid)) throw invalidToken('unknown_key', new Error('the token header has no usable kid'));
    return keyFor(kid);
  };

  async function verify(raw: string): Promise<VerifiedToken> {
    if (typeof raw !== 'string' || raw.length > MAX_TOKEN_LENGTH) throw invalidToken('malformed');
    // ALBs write base64url with '=' padding, which JWS compact form does not allow: strip it.
    const token = raw.split('.').map((part) => part.replace(/=+$/, '')).join('.');
    let result: Awaited<ReturnType<typeof jwtVerify>>;
    try {
      result = await jwtVerify(token, keys, {
        algorithms: ['ES256'],
        clockTolerance: options.clockToleranceSec ?? 30,
        currentDate: new Date(now()),
        requiredClaims: ['exp', 'sub'],
        ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
      });
    } catch (error) {
      throw toAuthError(error);
    }
    const header = result.protectedHeader as JWTHeaderParameters & { signer?: unknown; client?: unknown };
    if (typeof header.signer !== 'string' || !signers.has(header.signer)) {
      throw invalidToken('rejected', new Error('the token was not signed by one of the accepted load balancers (header signer)'));
    }
    if (clientIds !== undefined && (typeof header.client !== 'string' || !clientIds.has(header.client))) {
      throw invalidToken('wrong_client', new Error('the token header client is not one of the accepted client ids'));
    }
    const claims = result.payload;
    const subject = claims.sub;
    // The issuer: the payload's, else the header's (an ALB writes it in both).
    const tokenIssuer = typeof claims.iss === 'string' && claims.iss !== '' ? claims.iss : typeof header.iss === 'string' ? header.iss : '';
    if (typeof subject !== 'string' || subject === '' || tokenIssuer === '') throw invalidToken('missing_claim', new Error('iss and sub must be non-empty strings'));
    await refuseRevoked(options.isRevoked, claims);
    const { user, groups } = mapClaims(claims, mapping);
    return { issuer: tokenIssuer, subject, identity: identityKey(tokenIssuer, subject), tokenUse: 'id', user, groups, claims, header: result.protectedHeader };
  }

  return {
    issuer: options.issuer,
    verify,
    async authenticate(authorization) {
      return verify(bearerToken(authorization));
    },
    // Keys are fetched per kid as tokens name them: nothing to fetch ahead.
    async warmUp() {},
    keys,
    get jwksFetches() {
      return fetches;
    },
  };
}
