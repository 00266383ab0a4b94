/** OAuth authorization codes: hashed, five minutes, single use (a replay revokes what the code gave). */
import type { Db } from '../db/database.js';
import { sha256Hex } from '../crypto/random.js';

export interface AuthCode {
  poolId: string;
  clientId: string;
  userSub: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  nonce: string | null;
  authTime: number;
  expiresAt: number;
}

interface CodeRow {
  pool_id: string;
  client_id: string;
  user_sub: string;
  redirect_uri: string;
  code_challenge: string;
  scope: string;
  nonce: string | null;
  auth_time: number;
  expires_at: number;
  used_at: number | null;
  origin_jti: string | null;
}

export function insertAuthCode(db: Db, code: string, c: AuthCode): void {
  db.run(
    `INSERT INTO auth_codes (code_hash, pool_id, client_id, user_sub, redirect_uri, code_challenge, scope, nonce,
       auth_time, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    sha256Hex(code),
    c.poolId,
    c.clientId,
    c.userSub,
    c.redirectUri,
    c.codeChallenge,
    c.scope,
    c.nonce,
    c.authTime,
    c.expiresAt,
  );
}

export type CodeLookup =
  | { kind: 'ok'; code: AuthCode }
  | { kind: 'missing' }
  /** Used before: the caller revokes the session it produced (RFC 6749 §4.1.2). */
  | { kind: 'replayed'; originJti: string | null };

/** Marks the code used and returns it; a second use reports the replay. */
export function takeAuthCode(db: Db, code: string, now: number): CodeLookup {
  return db.tx(() => {
    const hash = sha256Hex(code);
    const row = db.get<CodeRow>('SELECT * FROM auth_codes WHERE code_hash = ?', hash);
    if (!row || row.expires_at <= now) return { kind: 'missing' };
    if (row.used_at !== null) return { kind: 'replayed', originJti: row.origin_jti };
    db.run('UPDATE auth_codes SET used_at = ? WHERE code_hash = ?', now, hash);
    return {
      kind: 'ok',
      code: {
        poolId: row.pool_id,
        clientId: row.client_id,
        userSub: row.user_sub,
        redirectUri: row.redirect_uri,
        codeChallenge: row.code_challenge,
        scope: row.scope,
        nonce: row.nonce,
        authTime: row.auth_time,
        expiresAt: row.expires_at,
      },
    };
  });
}

export function recordCodeSession(db: Db, code: string, originJti: string): void {
  db.run('UPDATE auth_codes SET origin_jti = ? WHERE code_hash = ?', originJti, sha256Hex(code));
}
