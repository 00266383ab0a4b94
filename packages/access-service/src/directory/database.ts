import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { configureSqlite } from '@ianode/service';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

/** The database file inside a data folder. */
export const DATABASE_FILE = 'access.db';

/**
 * Opens (creating if need be) the directory database in `dataDir`, or an in-memory one for
 * `':memory:'`. WAL journal, `synchronous=FULL` (an acknowledged change survives power loss),
 * foreign keys on (@ianode/service `configureSqlite`, shared with the IdP), then any pending migrations, each in its own transaction.
 *
 * Files at rest: the folder is 0700 and the database 0600 (it names every user and their
 * attributes); an older folder or file with wider modes is tightened. SQLite gives its `-wal` and
 * `-shm` files the database file's mode.
 */
export function openDatabase(dataDir: string): Db {
  let file = ':memory:';
  if (dataDir !== ':memory:') {
    file = join(dataDir, DATABASE_FILE);
    privateFiles(dataDir, file);
  }
  const db = new Database(file);
  try {
    configureSqlite(db);
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** The folder 0700 and the database file (and any journal beside it) 0600, created so. */
function privateFiles(dataDir: string, file: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const [path, mode] of [[dataDir, 0o700], [file, 0o600], [`${file}-wal`, 0o600], [`${file}-shm`, 0o600]] as const) {
    try {
      if (existsSync(path)) chmodSync(path, mode);
    } catch {
      /* a file system without modes */
    }
  }
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(`the directory database has schema version ${current}, newer than this program knows (${MIGRATIONS.length})`);
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}
