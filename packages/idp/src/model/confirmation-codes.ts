/**
 * Confirmation codes (sign-up, forgot password) and the outbox they are "sent" to. The IdP sends
 * no mail: a code is a row here, never logged, which an operator reads with the signed
 * `IanodeIdp.ListMessages` operation (the database is mode 0600). One live code per user and
 * purpose: a new one replaces the old. A code is single use, expires, and allows `maxAttempts`
 * wrong tries; requests for new codes are limited per user and hour (LimitExceededException).
 */
import { randomInt, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/database.js';
import { IdpError } from '../errors.js';

export type CodePurpose = 'SIGN_UP' | 'FORGOT_PASSWORD';

/** Cognito's lifetimes: sign-up codes 24 hours, forgot-password codes 1 hour. */
export const CODE_TTL_MS: Readonly<Record<CodePurpose, number>> = {
  SIGN_UP: 24 * 3_600_000,
  FORGOT_PASSWORD: 3_600_000,
};
export const MAX_ATTEMPTS = 5;
export const MAX_SENDS_PER_HOUR = 5;
const HOUR = 3_600_000;

interface CodeRow {
  user_sub: string;
  pool_id: string;
  purpose: CodePurpose;
  code: string;
  destination: string | null;
  attempts: number;
  sends: number;
  window_start: number;
  created_at: number;
  expires_at: number;
}

const limitExceeded = (): IdpError => new IdpError('LimitExceededException', 'Attempt limit exceeded, please try after some time.');
export const codeMismatch = (): IdpError => new IdpError('CodeMismatchException', 'Invalid verification code provided, please try again.');

/** Issues a fresh 6-digit code (replacing any earlier one) and returns it. */
export function issueCode(
  db: Db,
  c: { poolId: string; sub: string; purpose: CodePurpose; destination: string | null; now: number },
): string {
  return db.tx(() => {
    const prev = db.get<CodeRow>('SELECT * FROM confirmation_codes WHERE user_sub = ? AND purpose = ?', c.sub, c.purpose);
    const inWindow = prev !== undefined && c.now - prev.window_start < HOUR;
    const sends = inWindow ? prev.sends + 1 : 1;
    if (sends > MAX_SENDS_PER_HOUR) throw limitExceeded();
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    db.run(
      `INSERT INTO confirmation_codes (user_sub, pool_id, purpose, code, destination, attempts, sends, window_start, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)
       ON CONFLICT (user_sub, purpose) DO UPDATE SET code = excluded.code, destination = excluded.destination, attempts = 0,
         sends = excluded.sends, window_start = excluded.window_start, created_at = excluded.created_at, expires_at = excluded.expires_at`,
      c.sub,
      c.poolId,
      c.purpose,
      code,
      c.destination,
      sends,
      inWindow ? prev.window_start : c.now,
      c.now,
      c.now + CODE_TTL_MS[c.purpose],
    );
    return code;
  });
}

/**
 * Checks a code and spends it on success. No live code: CodeMismatchException; too many wrong
 * tries: LimitExceededException; expired: ExpiredCodeException; wrong: CodeMismatchException.
 */
export function consumeCode(db: Db, sub: string, purpose: CodePurpose, given: string, now: number): void {
  const outcome = db.tx((): IdpError | undefined => {
    const row = db.get<CodeRow>('SELECT * FROM confirmation_codes WHERE user_sub = ? AND purpose = ?', sub, purpose);
    if (!row || row.attempts < 0) return codeMismatch();
    if (row.attempts >= MAX_ATTEMPTS) return limitExceeded();
    if (row.expires_at <= now) return new IdpError('ExpiredCodeException', 'Invalid code provided, please request a code again.');
    const matches = given.length === row.code.length && timingSafeEqual(Buffer.from(given), Buffer.from(row.code));
    if (!matches) {
      db.run('UPDATE confirmation_codes SET attempts = attempts + 1 WHERE user_sub = ? AND purpose = ?', sub, purpose);
      return codeMismatch();
    }
    // Spent: kept (attempts -1) only so the hourly send limit still counts it.
    db.run("UPDATE confirmation_codes SET attempts = -1, code = '' WHERE user_sub = ? AND purpose = ?", sub, purpose);
    return undefined;
  });
  if (outcome) throw outcome;
}

/** Spends a user's live code without checking it (e.g. an admin confirmed the user). */
export function dropCode(db: Db, sub: string, purpose: CodePurpose): void {
  db.run("UPDATE confirmation_codes SET attempts = -1, code = '' WHERE user_sub = ? AND purpose = ?", sub, purpose);
}

export interface OutboxMessage {
  sub: string;
  /** The user's stored user name. */
  username: string;
  purpose: CodePurpose;
  code: string;
  destination: string | null;
  createdAt: number;
  expiresAt: number;
}

/**
 * The live (unspent, unexpired) codes of a pool, or of one user (`sub`), newest first, with each
 * user's name (one query, not one user lookup per code).
 */
export function outbox(db: Db, poolId: string, now: number, sub?: string): OutboxMessage[] {
  return db
    .all<CodeRow & { username: string }>(
      `SELECT c.*, u.username FROM confirmation_codes c JOIN users u ON u.sub = c.user_sub
       WHERE c.pool_id = ? AND c.attempts >= 0 AND c.attempts < ? AND c.expires_at > ? AND (? IS NULL OR c.user_sub = ?)
       ORDER BY c.created_at DESC`,
      poolId,
      MAX_ATTEMPTS,
      now,
      sub ?? null,
      sub ?? null,
    )
    .map((r) => ({
      sub: r.user_sub,
      username: r.username,
      purpose: r.purpose,
      code: r.code,
      destination: r.destination,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
    }));
}

/** Cognito's masked destination: `a***@e***` for `alice@example.org`. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***@${email[at + 1] ?? ''}***`;
}
