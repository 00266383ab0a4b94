/**
 * Sign-in sessions. Each sign-in gets a row keyed by the `origin_jti` its tokens carry; the
 * refresh token is opaque and only its sha256 is stored. Revoking the row revokes the refresh
 * token and every access token issued from it (`tokens/verify.ts` checks `origin_jti`).
 */
import type { Db } from '../db/database.js';
import { sha256Hex } from '../crypto/random.js';

export interface Session {
  originJti: string;
  poolId: string;
  clientId: string;
  userSub: string;
  scope: string;
  authTime: number;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

interface SessionRow {
  origin_jti: string;
  pool_id: string;
  client_id: string;
  user_sub: string;
  scope: string;
  auth_time: number;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

const toSession = (r: SessionRow): Session => ({
  originJti: r.origin_jti,
  poolId: r.pool_id,
  clientId: r.client_id,
  userSub: r.user_sub,
  scope: r.scope,
  authTime: r.auth_time,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
});

export function insertSession(db: Db, s: Session, refreshToken: string): void {
  db.run(
    `INSERT INTO sessions (origin_jti, pool_id, client_id, user_sub, refresh_hash, scope, auth_time, created_at,
       expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
    s.originJti,
    s.poolId,
    s.clientId,
    s.userSub,
    sha256Hex(refreshToken),
    s.scope,
    s.authTime,
    s.createdAt,
    s.expiresAt,
  );
}

export function findSessionByRefreshToken(db: Db, refreshToken: string): Session | undefined {
  const row = db.get<SessionRow>('SELECT * FROM sessions WHERE refresh_hash = ?', sha256Hex(refreshToken));
  return row && toSession(row);
}

export function findSession(db: Db, originJti: string): Session | undefined {
  const row = db.get<SessionRow>('SELECT * FROM sessions WHERE origin_jti = ?', originJti);
  return row && toSession(row);
}

export function revokeSession(db: Db, originJti: string, now: number): void {
  db.run('UPDATE sessions SET revoked_at = ? WHERE origin_jti = ? AND revoked_at IS NULL', now, originJti);
}

/** GlobalSignOut: every session of the user. */
export function revokeUserSessions(db: Db, sub: string, now: number): number {
  return db.run('UPDATE sessions SET revoked_at = ? WHERE user_sub = ? AND revoked_at IS NULL', now, sub).changes;
}

/** Drops sessions whose refresh token expired more than a day ago (nothing can use them). */
export function pruneSessions(db: Db, now: number): void {
  db.run('DELETE FROM sessions WHERE expires_at < ?', now - 86_400_000);
  db.run('DELETE FROM challenges WHERE expires_at < ?', now);
  db.run('DELETE FROM auth_codes WHERE expires_at < ?', now - 86_400_000);
  db.run('DELETE FROM srp_used WHERE expires_at < ?', now);
  db.run('DELETE FROM confirmation_codes WHERE expires_at < ?', now - 86_400_000);
}

/** A NEW_PASSWORD_REQUIRED challenge session: single use, hashed, short-lived. */
export interface Challenge {
  poolId: string;
  clientId: string;
  userSub: string;
  expiresAt: number;
}

export function insertChallenge(db: Db, token: string, c: Challenge): void {
  db.run(
    'INSERT INTO challenges (session_hash, pool_id, client_id, user_sub, expires_at) VALUES (?, ?, ?, ?, ?)',
    sha256Hex(token),
    c.poolId,
    c.clientId,
    c.userSub,
    c.expiresAt,
  );
}

/** Removes and returns the challenge if it exists and has not expired. */
export function takeChallenge(db: Db, token: string, now: number): Challenge | undefined {
  return db.tx(() => {
    const hash = sha256Hex(token);
    const row = db.get<{ pool_id: string; client_id: string; user_sub: string; expires_at: number }>(
      'SELECT * FROM challenges WHERE session_hash = ?',
      hash,
    );
    if (!row) return undefined;
    db.run('DELETE FROM challenges WHERE session_hash = ?', hash);
    if (row.expires_at <= now) return undefined;
    return { poolId: row.pool_id, clientId: row.client_id, userSub: row.user_sub, expiresAt: row.expires_at };
  });
}
