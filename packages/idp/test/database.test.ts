/** The embedded database: WAL, migrations, integrity under concurrent requests. */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_FILE, openDatabase } from '../src/index.js';
import { createPoolAndClient, createUser, PASSWORD, signIn, startIdp, type TestIdp } from './support/harness.js';
import { join } from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';

let idp: TestIdp;
beforeAll(async () => {
  idp = await startIdp({ log: false });
});
afterAll(() => idp.close());

describe('database', () => {
  it('runs in WAL mode with foreign keys and records its migrations', () => {
    const raw = new BetterSqlite3(join(idp.dir, DB_FILE), { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      const rows = raw.prepare('SELECT version, name FROM schema_migrations').all();
      expect(rows).toEqual([
        { version: 1, name: 'initial' },
        { version: 2, name: 'subject revocations' },
        { version: 3, name: 'srp verifiers, secret-block replay, confirmation codes' },
      ]);
    } finally {
      raw.close();
    }
  });

  it('re-opening applies no migration twice', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ianode-idp-db-'));
    try {
      openDatabase(dir).close();
      const db = openDatabase(dir);
      expect(db.all('SELECT * FROM schema_migrations')).toHaveLength(3);
      db.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('files at rest: the folder is 0700 and the database and its journal 0600; a wider older folder is tightened', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'ianode-idp-modes-'));
    const mode = (path: string) => statSync(path).mode & 0o777;
    try {
      const fresh = join(parent, 'fresh');
      const db = openDatabase(fresh);
      db.run('CREATE TABLE IF NOT EXISTS probe (x)'); // a write, so the -wal file exists
      expect([mode(fresh), mode(join(fresh, DB_FILE)), mode(join(fresh, `${DB_FILE}-wal`))]).toEqual([0o700, 0o600, 0o600]);
      db.close();
      const old = join(parent, 'old');
      mkdirSync(old, { mode: 0o755 });
      chmodSync(old, 0o755);
      openDatabase(old).close();
      expect([mode(old), mode(join(old, DB_FILE))]).toEqual([0o700, 0o600]);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('concurrent requests never corrupt it', async () => {
    const { poolId, clientId } = await createPoolAndClient(idp);
    await idp.ok('CreateGroup', { UserPoolId: poolId, GroupName: 'g' });
    const names = Array.from({ length: 40 }, (_, i) => `user${i}`);
    await Promise.all(
      names.map(async (name) => {
        await createUser(idp, poolId, name);
        await idp.ok('AdminAddUserToGroup', { UserPoolId: poolId, Username: name, GroupName: 'g' });
      }),
    );
    // Duplicates raced against each other: exactly one wins.
    const dup = await Promise.all(Array.from({ length: 10 }, () => idp.call('AdminCreateUser', { UserPoolId: poolId, Username: 'same' })));
    expect(dup.filter((r) => r.status === 200)).toHaveLength(1);
    expect(dup.filter((r) => r.body.__type === 'UsernameExistsException')).toHaveLength(9);
    // Sign-ins, refreshes, attribute updates and a key rotation at once.
    const results = await Promise.all([
      ...names.map((n) => signIn(idp, clientId, n, PASSWORD)),
      ...names.map((n) => idp.call('AdminUpdateUserAttributes', { UserPoolId: poolId, Username: n, UserAttributes: [{ Name: 'name', Value: n }] })),
      idp.call('IanodeIdp.RotateSigningKey', { UserPoolId: poolId }),
    ]);
    expect(results.every((r) => r.status === 200)).toBe(true);

    const users = await idp.ok<{ Users: unknown[] }>('ListUsersInGroup', { UserPoolId: poolId, GroupName: 'g', Limit: 60 });
    expect(users.Users).toHaveLength(40);
    const raw = new BetterSqlite3(join(idp.dir, DB_FILE), { readonly: true });
    try {
      expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(raw.pragma('foreign_key_check')).toEqual([]);
      expect((raw.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n).toBe(40);
    } finally {
      raw.close();
    }
  });
});
