/**
 * Throttling of failed sign-ins per pool and user name (known or not, so the throttle does not
 * reveal which names exist). After `maxFailures` failures every attempt, even with the right
 * password, is refused until a lock-out that doubles with each further failure has passed.
 */
import type { Db } from '../db/database.js';

export interface ThrottleSettings {
  maxFailures: number;
  baseLockoutMs: number;
  maxLockoutMs: number;
  /** A quiet period after which the failure count starts again. */
  resetAfterMs: number;
}

export const DEFAULT_THROTTLE: ThrottleSettings = {
  maxFailures: 5,
  baseLockoutMs: 1_000,
  maxLockoutMs: 15 * 60_000,
  resetAfterMs: 60 * 60_000,
};

interface Row {
  failures: number;
  last_failure_at: number;
  locked_until: number;
}

export function isLockedOut(db: Db, poolId: string, key: string, now: number): boolean {
  const row = db.get<Row>('SELECT * FROM sign_in_failures WHERE pool_id = ? AND username_key = ?', poolId, key);
  return row !== undefined && row.locked_until > now;
}

export function recordFailure(db: Db, s: ThrottleSettings, poolId: string, key: string, now: number): void {
  db.tx(() => {
    const row = db.get<Row>('SELECT * FROM sign_in_failures WHERE pool_id = ? AND username_key = ?', poolId, key);
    const failures = row && now - row.last_failure_at < s.resetAfterMs ? row.failures + 1 : 1;
    const excess = failures - s.maxFailures;
    const lockedUntil = excess >= 0 ? now + Math.min(s.maxLockoutMs, s.baseLockoutMs * 2 ** Math.min(excess, 30)) : 0;
    db.run(
      `INSERT INTO sign_in_failures (pool_id, username_key, failures, last_failure_at, locked_until) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (pool_id, username_key) DO UPDATE SET failures = excluded.failures,
         last_failure_at = excluded.last_failure_at, locked_until = excluded.locked_until`,
      poolId,
      key,
      failures,
      now,
      lockedUntil,
    );
  });
}

export function clearFailures(db: Db, poolId: string, key: string): void {
  db.run('DELETE FROM sign_in_failures WHERE pool_id = ? AND username_key = ?', poolId, key);
}
