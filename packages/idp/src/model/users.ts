/** Users of a pool. The password is only ever held as a scrypt hash (`crypto/password.ts`). */
import type { Db } from '../db/database.js';
import { userNotFound } from '../errors.js';
import type { Pool } from './pools.js';

export type UserStatus = 'CONFIRMED' | 'FORCE_CHANGE_PASSWORD' | 'RESET_REQUIRED' | 'UNCONFIRMED';

export interface User {
  poolId: string;
  username: string;
  sub: string;
  passwordHash: string | null;
  /** SRP salt and verifier (hex), for USER_SRP_AUTH; null until a password is set after migration 3. */
  srpSalt: string | null;
  srpVerifier: string | null;
  status: UserStatus;
  enabled: boolean;
  attributes: Record<string, string>;
  passwordSetAt: number | null;
  createdAt: number;
  updatedAt: number;
}

interface UserRow {
  pool_id: string;
  username: string;
  sub: string;
  password_hash: string | null;
  srp_salt: string | null;
  srp_verifier: string | null;
  status: UserStatus;
  enabled: number;
  attributes: string;
  password_set_at: number | null;
  created_at: number;
  updated_at: number;
}

const toUser = (r: UserRow): User => ({
  poolId: r.pool_id,
  username: r.username,
  sub: r.sub,
  passwordHash: r.password_hash,
  srpSalt: r.srp_salt,
  srpVerifier: r.srp_verifier,
  status: r.status,
  enabled: r.enabled === 1,
  attributes: JSON.parse(r.attributes) as Record<string, string>,
  passwordSetAt: r.password_set_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const usernameKey = (pool: Pool, username: string): string =>
  pool.config.CaseSensitive ? username : username.toLowerCase();

/**
 * The key failed sign-ins are counted under: the user's `sub` when the name resolves to a user (so
 * every spelling of the name or alias, in pools that match them case-insensitively, counts against
 * one account), else the name in lower case (so an unknown name is not tried per spelling either).
 */
export const throttleKey = (user: Pick<User, 'sub'> | undefined, name: string): string =>
  user !== undefined ? `sub:${user.sub}` : `name:${name.toLowerCase()}`;

const signsInWithEmail = (pool: Pool): boolean =>
  pool.config.UsernameAttributes.includes('email') || pool.config.AliasAttributes.includes('email');

/** A new, enabled user as SignUp and AdminCreateUser make it: created, updated and its password set `now`. */
export function newUser(fields: Pick<User, 'poolId' | 'username' | 'sub' | 'passwordHash' | 'srpSalt' | 'srpVerifier' | 'status' | 'attributes'>, now: number): User {
  return { ...fields, enabled: true, passwordSetAt: now, createdAt: now, updatedAt: now };
}

/** The columns a user's changes write, and their values: one list for INSERT and UPDATE. */
const MUTABLE_COLUMNS = ['email_key', 'password_hash', 'srp_salt', 'srp_verifier', 'status', 'enabled', 'attributes', 'password_set_at', 'updated_at'];
const mutableValues = (u: User) => [
  u.attributes.email?.toLowerCase() ?? null,
  u.passwordHash,
  u.srpSalt,
  u.srpVerifier,
  u.status,
  u.enabled ? 1 : 0,
  JSON.stringify(u.attributes),
  u.passwordSetAt,
  u.updatedAt,
];

const INSERT_COLUMNS = ['pool_id', 'username', 'username_key', 'sub', 'created_at', ...MUTABLE_COLUMNS];
/** The two statements, built once from the column lists. */
const INSERT_USER = `INSERT INTO users (${INSERT_COLUMNS.join(', ')}) VALUES (${INSERT_COLUMNS.map(() => '?').join(', ')})`;
const SAVE_USER = `UPDATE users SET ${MUTABLE_COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE sub = ?`;

export function insertUser(db: Db, pool: Pool, u: User): void {
  db.run(
    INSERT_USER,
    u.poolId,
    u.username,
    usernameKey(pool, u.username),
    u.sub,
    u.createdAt,
    ...mutableValues(u),
  );
}

/** Writes every mutable column of the user back. */
export function saveUser(db: Db, u: User): void {
  db.run(SAVE_USER, ...mutableValues(u), u.sub);
}

/** By user name, or (when the pool signs in with e-mail) by a verified-or-not unique e-mail address. */
export function findUser(db: Db, pool: Pool, name: string): User | undefined {
  const row = db.get<UserRow>('SELECT * FROM users WHERE pool_id = ? AND username_key = ?', pool.id, usernameKey(pool, name));
  if (row) return toUser(row);
  if (signsInWithEmail(pool)) {
    const rows = db.all<UserRow>('SELECT * FROM users WHERE pool_id = ? AND email_key = ?', pool.id, name.toLowerCase());
    if (rows.length === 1 && rows[0]) return toUser(rows[0]);
  }
  return undefined;
}

/** The user, or `UserNotFoundException` (admin operations). */
export function requireUser(db: Db, pool: Pool, name: string): User {
  const user = findUser(db, pool, name);
  if (!user) throw userNotFound();
  return user;
}

export function findUserBySub(db: Db, sub: string): User | undefined {
  const row = db.get<UserRow>('SELECT * FROM users WHERE sub = ?', sub);
  return row && toUser(row);
}

export const listUsers = (db: Db, poolId: string): User[] =>
  db.all<UserRow>('SELECT * FROM users WHERE pool_id = ? ORDER BY username_key', poolId).map(toUser);

export const deleteUser = (db: Db, sub: string): boolean => db.run('DELETE FROM users WHERE sub = ?', sub).changes > 0;

export const emailInUse = (db: Db, pool: Pool, email: string, exceptSub: string | null): boolean =>
  db.get('SELECT 1 FROM users WHERE pool_id = ? AND email_key = ? AND sub IS NOT ?', pool.id, email.toLowerCase(), exceptSub) !==
  undefined;
