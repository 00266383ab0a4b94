/** Groups of a pool and their members. */
import type { Db } from '../db/database.js';
import { IdpError } from '../errors.js';

export interface Group {
  poolId: string;
  name: string;
  description: string | null;
  precedence: number | null;
  roleArn: string | null;
  createdAt: number;
  updatedAt: number;
}

interface GroupRow {
  pool_id: string;
  name: string;
  description: string | null;
  precedence: number | null;
  role_arn: string | null;
  created_at: number;
  updated_at: number;
}

const toGroup = (r: GroupRow): Group => ({
  poolId: r.pool_id,
  name: r.name,
  description: r.description,
  precedence: r.precedence,
  roleArn: r.role_arn,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Lowest precedence first (Cognito's order for `cognito:preferred_role`), then by name. */
const ORDER = 'ORDER BY g.precedence IS NULL, g.precedence, g.name';

export function insertGroup(db: Db, g: Group): void {
  db.run(
    'INSERT INTO groups (pool_id, name, description, precedence, role_arn, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    g.poolId,
    g.name,
    g.description,
    g.precedence,
    g.roleArn,
    g.createdAt,
    g.updatedAt,
  );
}

export function findGroup(db: Db, poolId: string, name: string): Group | undefined {
  const row = db.get<GroupRow>('SELECT * FROM groups WHERE pool_id = ? AND name = ?', poolId, name);
  return row && toGroup(row);
}

export function requireGroup(db: Db, poolId: string, name: string): Group {
  const g = findGroup(db, poolId, name);
  if (!g) throw new IdpError('ResourceNotFoundException', 'Group not found.');
  return g;
}

export const listGroups = (db: Db, poolId: string): Group[] =>
  db.all<GroupRow>(`SELECT * FROM groups g WHERE g.pool_id = ? ${ORDER}`, poolId).map(toGroup);

export const deleteGroup = (db: Db, poolId: string, name: string): boolean =>
  db.run('DELETE FROM groups WHERE pool_id = ? AND name = ?', poolId, name).changes > 0;

export function addMember(db: Db, poolId: string, group: string, sub: string): void {
  db.run('INSERT OR IGNORE INTO memberships (pool_id, group_name, user_sub) VALUES (?, ?, ?)', poolId, group, sub);
}

export function removeMember(db: Db, poolId: string, group: string, sub: string): void {
  db.run('DELETE FROM memberships WHERE pool_id = ? AND group_name = ? AND user_sub = ?', poolId, group, sub);
}

export const groupsOfUser = (db: Db, sub: string): Group[] =>
  db
    .all<GroupRow>(
      `SELECT g.* FROM memberships m JOIN groups g ON g.pool_id = m.pool_id AND g.name = m.group_name
       WHERE m.user_sub = ? ${ORDER}`,
      sub,
    )
    .map(toGroup);

export const membersOf = (db: Db, poolId: string, group: string): string[] =>
  db
    .all<{ user_sub: string }>('SELECT user_sub FROM memberships WHERE pool_id = ? AND group_name = ?', poolId, group)
    .map((r) => r.user_sub);
