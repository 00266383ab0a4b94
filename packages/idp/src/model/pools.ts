/** User pools: rows of `pools`, settings kept as AWS-shaped JSON. */
import type { Db } from '../db/database.js';
import { poolNotFound } from '../errors.js';
import type { PasswordPolicy } from '../crypto/password-policy.js';

export type AttributeDataType = 'String' | 'Number' | 'DateTime' | 'Boolean';

/** A custom attribute declared in the pool's schema (`custom:` + name). */
export interface CustomAttribute {
  Name: string;
  AttributeDataType: AttributeDataType;
  Mutable: boolean;
}

export interface PoolConfig {
  PasswordPolicy: PasswordPolicy;
  CustomAttributes: CustomAttribute[];
  /** `email` here lets users sign in with their e-mail address as well as their user name. */
  UsernameAttributes: string[];
  AliasAttributes: string[];
  AutoVerifiedAttributes: string[];
  /** User names compare case-insensitively unless this is true. */
  CaseSensitive: boolean;
  DeletionProtection: 'ACTIVE' | 'INACTIVE';
  AllowAdminCreateUserOnly: boolean;
  UserPoolTags: Record<string, string>;
}

export interface Pool {
  id: string;
  name: string;
  config: PoolConfig;
  createdAt: number;
  updatedAt: number;
}

interface PoolRow {
  id: string;
  name: string;
  config: string;
  created_at: number;
  updated_at: number;
}

const toPool = (r: PoolRow): Pool => ({
  id: r.id,
  name: r.name,
  config: JSON.parse(r.config) as PoolConfig,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function insertPool(db: Db, pool: Pool): void {
  db.run(
    'INSERT INTO pools (id, name, config, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    pool.id,
    pool.name,
    JSON.stringify(pool.config),
    pool.createdAt,
    pool.updatedAt,
  );
}

export function findPool(db: Db, id: string): Pool | undefined {
  const row = db.get<PoolRow>('SELECT * FROM pools WHERE id = ?', id);
  return row && toPool(row);
}

/** The pool, or `ResourceNotFoundException`. */
export function requirePool(db: Db, id: string): Pool {
  const pool = findPool(db, id);
  if (!pool) throw poolNotFound(id);
  return pool;
}

export const listPools = (db: Db): Pool[] => db.all<PoolRow>('SELECT * FROM pools ORDER BY id').map(toPool);

export function updatePoolConfig(db: Db, id: string, config: PoolConfig, now: number): void {
  db.run('UPDATE pools SET config = ?, updated_at = ? WHERE id = ?', JSON.stringify(config), now, id);
}

export function deletePool(db: Db, id: string): boolean {
  return db.run('DELETE FROM pools WHERE id = ?', id).changes > 0;
}

export const countUsers = (db: Db, poolId: string): number =>
  db.get<{ n: number }>('SELECT count(*) AS n FROM users WHERE pool_id = ?', poolId)?.n ?? 0;
