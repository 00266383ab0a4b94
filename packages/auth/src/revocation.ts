/**
 * The IdP's revocation list, polled (issue 13): tokens of signed-out, disabled or deleted users and
 * of revoked sessions are refused before they expire. The list (`GET <issuer>/revocations` of the
 * bundled IdP) names subjects and sessions by SHA-256 only:
 *
 *   { "generatedAt": ms, "subjects": [{ "sub": sha256(sub), "before": iat-seconds }], "sessions": [sha256(origin_jti)] }
 *
 * A token is revoked when its subject is listed with `before >= iat`, or its `origin_jti` is listed.
 * The list is fetched again, before a token is judged, once it is `pollMs` old, so a revocation
 * takes effect within `pollMs`. When it cannot be fetched the last list serves until it is
 * `maxStaleMs` old; after that every token is refused with 503 (`REVOCATION_UNAVAILABLE`), never
 * let through unchecked.
 */
import { createHash } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { AuthError } from './errors.js';
import { fetchJsonDocument } from './fetch-json.js';

export interface RevocationListOptions {
  url: string | URL;
  /** Age at which the list is fetched again before judging a token (default 10 s). */
  pollMs?: number;
  /** Age past which a list that cannot be refreshed is no longer trusted (default 30 s). */
  maxStaleMs?: number;
  /** Time limit of one fetch (default 5 s). */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  now?: () => number;
}

export interface RevocationList {
  /** Whether the token of these (verified) claims has been revoked; throws `REVOCATION_UNAVAILABLE`. */
  isRevoked(claims: JWTPayload): Promise<boolean>;
  /** Fetches the list now (single-flight). */
  refresh(): Promise<void>;
  /** Number of fetches started (tests, metrics). */
  readonly fetches: number;
}

interface Snapshot {
  fetchedAt: number;
  subjects: Map<string, number>;
  sessions: Set<string>;
}

const UNAVAILABLE = 'token revocation list unavailable: try again later';
const MAX_DOCUMENT_CHARS = 16 * 1024 * 1024;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export function createRevocationList(options: RevocationListOptions): RevocationList {
  const url = new URL(options.url);
  const pollMs = options.pollMs ?? 10_000;
  const maxStaleMs = Math.max(options.maxStaleMs ?? 30_000, pollMs);
  const timeoutMs = options.timeoutMs ?? 5_000;
  const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const now = options.now ?? Date.now;
  let snapshot: Snapshot | undefined;
  let inflight: Promise<void> | undefined;
  let fetches = 0;

  const fail = (detail: string, cause?: unknown) =>
    new AuthError('REVOCATION_UNAVAILABLE', UNAVAILABLE, { cause: new Error(`${url.href}: ${detail}`, cause === undefined ? undefined : { cause }) });

  async function load(): Promise<void> {
    const startedAt = now();
    const document = await fetchJsonDocument(url, { fetch: fetchFn, timeoutMs, maxChars: MAX_DOCUMENT_CHARS }, fail);
    const { subjects, sessions } = (document ?? {}) as { subjects?: unknown; sessions?: unknown };
    if (!Array.isArray(subjects) || !Array.isArray(sessions)) throw fail('no subjects and sessions lists');
    const bySubject = new Map<string, number>();
    for (const entry of subjects) {
      const { sub, before } = (entry ?? {}) as { sub?: unknown; before?: unknown };
      if (typeof sub !== 'string' || typeof before !== 'number' || !Number.isFinite(before)) throw fail('malformed subject entry');
      bySubject.set(sub, Math.max(before, bySubject.get(sub) ?? Number.NEGATIVE_INFINITY));
    }
    if (!sessions.every((s): s is string => typeof s === 'string')) throw fail('malformed session entry');
    // The list is as fresh as the moment the fetch started.
    snapshot = { fetchedAt: startedAt, subjects: bySubject, sessions: new Set(sessions) };
  }

  function refresh(): Promise<void> {
    if (inflight === undefined) {
      fetches += 1;
      inflight = load().finally(() => {
        inflight = undefined;
      });
    }
    return inflight;
  }

  async function current(): Promise<Snapshot> {
    if (snapshot !== undefined && now() - snapshot.fetchedAt < pollMs) return snapshot;
    try {
      await refresh();
    } catch (error) {
      if (snapshot === undefined || now() - snapshot.fetchedAt >= maxStaleMs) throw error;
    }
    return snapshot!;
  }

  return {
    refresh,
    get fetches() {
      return fetches;
    },
    async isRevoked(claims) {
      const list = await current();
      if (typeof claims.sub === 'string') {
        const before = list.subjects.get(sha256(claims.sub));
        // A token without iat cannot show it was issued after the revocation: refused.
        if (before !== undefined && (typeof claims.iat !== 'number' || claims.iat <= before)) return true;
      }
      const session = claims.origin_jti;
      return typeof session === 'string' && list.sessions.has(sha256(session));
    },
  };
}
