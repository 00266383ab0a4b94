/**
 * What relying parties must stop accepting before expiry (issue 13): every token of a subject
 * issued up to a moment (GlobalSignOut, AdminUserGlobalSignOut, AdminDisableUser, AdminDeleteUser),
 * and every token of a revoked sign-in session (RevokeToken, /oauth2/revoke; tokens carry the
 * session as `origin_jti`). Published at `GET /<pool>/revocations` with subjects and sessions as
 * SHA-256 hashes, so the list names no one to a reader who does not already hold the token.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/database.js';

/** Longest life of an ID or access token (Cognito's maximum, one day), plus clock skew. */
export const MAX_TOKEN_LIFETIME_MS = 86_400_000 + 300_000;

export type RevocationReason = 'global-sign-out' | 'disabled' | 'deleted';

/** Every token of `sub` issued at or before `now` (by `iat`, in whole seconds) is revoked. */
export function revokeSubject(db: Db, poolId: string, sub: string, now: number, reason: RevocationReason): void {
  db.run(
    `INSERT INTO subject_revocations (pool_id, sub, revoked_before, reason) VALUES (?, ?, ?, ?)
     ON CONFLICT (pool_id, sub) DO UPDATE SET revoked_before = max(revoked_before, excluded.revoked_before), reason = excluded.reason`,
    poolId,
    sub,
    now,
    reason,
  );
}

/** The published list: what a relying party needs to refuse revoked tokens that have not expired. */
export interface RevocationList {
  /** When the list was made (ms since the epoch). */
  generatedAt: number;
  /** sha256(sub) → tokens with `iat` (seconds) at or before `before` are revoked. */
  subjects: Array<{ sub: string; before: number }>;
  /** sha256(origin_jti) of revoked sessions. */
  sessions: string[];
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

export function revocationList(db: Db, poolId: string, now: number): RevocationList {
  const since = now - MAX_TOKEN_LIFETIME_MS;
  db.run('DELETE FROM subject_revocations WHERE revoked_before < ?', since);
  const subjects = db
    .all<{ sub: string; revoked_before: number }>('SELECT sub, revoked_before FROM subject_revocations WHERE pool_id = ? ORDER BY sub', poolId)
    .map((row) => ({ sub: sha256Hex(row.sub), before: Math.floor(row.revoked_before / 1000) }));
  const sessions = db
    .all<{ origin_jti: string }>('SELECT origin_jti FROM sessions WHERE pool_id = ? AND revoked_at IS NOT NULL AND revoked_at >= ? ORDER BY origin_jti', poolId, since)
    .map((row) => sha256Hex(row.origin_jti));
  return { generatedAt: now, subjects, sessions };
}
