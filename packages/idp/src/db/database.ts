/**
 * The embedded database: SQLite through better-sqlite3, one file in the data folder, WAL mode
 * (readers never block the writer; another process such as `rotate-keys` may write meanwhile),
 * foreign keys on, `synchronous = FULL` (@ianode/service `configureSqlite`, shared with the access
 * directory: an acknowledged change survives a power loss), migrations recorded in
 * `schema_migrations`. better-sqlite3 is synchronous, so a statement or a `tx` never interleaves
 * with another request of this process.
 */
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { configureSqlite } from '@ianode/service';
import { MIGRATIONS, type Migration } from './migrations.js';

export type SqlValue = string | number | bigint | null | Buffer;

export interface Db {
  /** The first row, or undefined. */
  get<T>(sql: string, ...params: SqlValue[]): T | undefined;
  all<T>(sql: string, ...params: SqlValue[]): T[];
  run(sql: string, ...params: SqlValue[]): { changes: number };
  /** Runs `fn` in one transaction (nested calls become savepoints). */
  tx<T>(fn: () => T): T;
  readonly file: string;
  close(): void;
}

export const DB_FILE = 'idp.sqlite';

export function openDatabase(dataDir: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  if (!existsSync(dataDir)) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, DB_FILE);
  const sqlite = new BetterSqlite3(file);
  // Holds hashes, private signing keys and the admin secret: folder 0700, file 0600 (an older,
  // wider folder is tightened); SQLite gives its -wal and -shm files the database file's mode.
  for (const [path, mode] of [[dataDir, 0o700], [file, 0o600], [`${file}-wal`, 0o600], [`${file}-shm`, 0o600]] as const) {
    try {
      if (existsSync(path)) chmodSync(path, mode);
    } catch {
      /* a file system without modes */
    }
  }
  configureSqlite(sqlite);

  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepare = (sql: string): BetterSqlite3.Statement => {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = sqlite.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  };

  const db: Db = {
    file,
    get: <T>(sql: string, ...params: SqlValue[]) => prepare(sql).get(...params) as T | undefined,
    all: <T>(sql: string, ...params: SqlValue[]) => prepare(sql).all(...params) as T[],
    run: (sql, ...params) => ({ changes: prepare(sql).run(...params).changes }),
    tx: <T>(fn: () => T): T => sqlite.transaction(fn).immediate(),
    close: () => sqlite.close(),
  };
  migrate(sqlite, migrations);
  return db;
}

function migrate(sqlite: BetterSqlite3.Database, migrations: readonly Migration[]): void {
  sqlite.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  const isApplied = sqlite.prepare('SELECT 1 FROM schema_migrations WHERE version = ?');
  for (const m of migrations) {
    sqlite
      .transaction(() => {
        if (isApplied.get(m.version)) return; // checked under the write lock: two processes may start at once
        sqlite.exec(m.sql);
        sqlite
          .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
          .run(m.version, m.name, Date.now());
      })
      .immediate();
  }
}
