import { createLocalJWKSet } from 'jose';
import { AuthError } from './errors.js';
import { fetchJsonDocument } from './fetch-json.js';

/** A key set after fetching: jose's key selection over one JSON Web Key Set. */
export type KeySet = ReturnType<typeof createLocalJWKSet>;

export interface JwksCacheOptions {
  /** Where the key set lives; or resolved from `openIdProviderUrl` by OpenID discovery. */
  jwksUrl?: string | URL;
  /** The provider (issuer) URL; `<url>/.well-known/openid-configuration` names `jwks_uri`. */
  openIdProviderUrl?: string;
  /** When discovery is used: the `issuer` the discovery document must name. */
  expectedIssuer?: string;
  fetch: typeof globalThis.fetch;
  /**
   * Floor for refetches caused by an unknown `kid`: the key set is refetched at once when the last
   * fetch failed or succeeded at least this long ago; a younger successful fetch is trusted.
   */
  cooldownMs: number;
  /** Keys older than this are fetched again before use. */
  cacheMaxAgeMs: number;
  /** Time limit of one HTTP request. */
  timeoutMs: number;
  now: () => number;
}

/** Largest JWKS or discovery document accepted. */
const MAX_DOCUMENT_CHARS = 1024 * 1024;

const UNAVAILABLE = 'token signing keys unavailable: try again later';

/**
 * Fetches and caches one JSON Web Key Set. Every fetch is single-flight (concurrent callers share
 * it). A failed or invalid fetch throws `JWKS_UNAVAILABLE`: the cache never answers with a guess,
 * and keys past `cacheMaxAgeMs` are not used if they cannot be refreshed.
 */
export class JwksCache {
  private readonly options: JwksCacheOptions;
  private keys: KeySet | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private lastFetchFailed = false;
  private inflight: Promise<KeySet> | undefined;
  private jwksUri: URL | undefined;
  /** Number of key-set fetches started (for tests and metrics). */
  fetches = 0;

  constructor(options: JwksCacheOptions) {
    if (options.jwksUrl === undefined && options.openIdProviderUrl === undefined) {
      throw new TypeError('a token verifier needs jwksUrl or openIdProviderUrl');
    }
    this.options = options;
    if (options.jwksUrl !== undefined) this.jwksUri = new URL(options.jwksUrl);
  }

  /** The key set, fetched if there is none yet or it is older than `cacheMaxAgeMs`. */
  async current(): Promise<KeySet> {
    if (this.keys !== undefined && this.options.now() - this.fetchedAt < this.options.cacheMaxAgeMs) return this.keys;
    return this.reload();
  }

  /**
   * After a token named a key the set does not hold: a fresh key set, or `undefined` when the last
   * fetch succeeded less than `cooldownMs` ago (then the key is unknown). When the last fetch failed
   * the set is fetched again at once, so an unreachable JWKS answers `JWKS_UNAVAILABLE` (503), not
   * "unknown key". A fetch already under way is awaited instead.
   */
  async afterUnknownKey(): Promise<KeySet | undefined> {
    if (this.inflight !== undefined) return this.inflight;
    if (!this.lastFetchFailed && this.options.now() - this.fetchedAt < this.options.cooldownMs) return undefined;
    return this.reload();
  }

  /** Fetches the key set now (single-flight). */
  reload(): Promise<KeySet> {
    if (this.inflight === undefined) {
      this.fetches += 1;
      this.inflight = this.fetchKeys()
        .then(
          (keys) => {
            this.lastFetchFailed = false;
            return keys;
          },
          (error: unknown) => {
            this.lastFetchFailed = true;
            throw error;
          },
        )
        .finally(() => {
          this.inflight = undefined;
        });
    }
    return this.inflight;
  }

  private async fetchKeys(): Promise<KeySet> {
    const uri = await this.resolveJwksUri();
    const document = await this.fetchJson(uri);
    let keys: KeySet;
    try {
      keys = createLocalJWKSet(document as Parameters<typeof createLocalJWKSet>[0]);
    } catch (cause) {
      throw new AuthError('JWKS_UNAVAILABLE', UNAVAILABLE, { cause: new Error(`${uri.href} is not a JSON Web Key Set`, { cause }) });
    }
    this.keys = keys;
    this.fetchedAt = this.options.now();
    return keys;
  }

  private async resolveJwksUri(): Promise<URL> {
    if (this.jwksUri !== undefined) return this.jwksUri;
    const provider = this.options.openIdProviderUrl!.replace(/\/+$/, '');
    const discoveryUrl = new URL(`${provider}/.well-known/openid-configuration`);
    const discovery = await this.fetchJson(discoveryUrl);
    const jwksUri = (discovery as { jwks_uri?: unknown }).jwks_uri;
    const issuer = (discovery as { issuer?: unknown }).issuer;
    if (typeof jwksUri !== 'string') {
      throw new AuthError('JWKS_UNAVAILABLE', UNAVAILABLE, { cause: new Error(`${discoveryUrl.href} names no jwks_uri`) });
    }
    if (this.options.expectedIssuer !== undefined && issuer !== undefined && issuer !== this.options.expectedIssuer) {
      throw new AuthError('JWKS_UNAVAILABLE', UNAVAILABLE, {
        cause: new Error(`${discoveryUrl.href} names issuer ${String(issuer)}, expected ${this.options.expectedIssuer}`),
      });
    }
    let uri: URL;
    try {
      uri = new URL(jwksUri, discoveryUrl);
    } catch (cause) {
      throw new AuthError('JWKS_UNAVAILABLE', UNAVAILABLE, { cause });
    }
    this.jwksUri = uri;
    return uri;
  }

  private async fetchJson(url: URL): Promise<unknown> {
    const fail = (detail: string, cause?: unknown): AuthError =>
      new AuthError('JWKS_UNAVAILABLE', UNAVAILABLE, { cause: new Error(`${url.href}: ${detail}`, cause === undefined ? undefined : { cause }) });
    const value = await fetchJsonDocument(url, { fetch: this.options.fetch, timeoutMs: this.options.timeoutMs, maxChars: MAX_DOCUMENT_CHARS }, fail);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw fail('not a JSON object');
    return value;
  }
}
