/**
 * The one SQLite set-up of the services' embedded databases (the access directory and the IdP,
 * both better-sqlite3). Typed by the one method it calls, so this package needs no SQLite
 * dependency of its own.
 */

/** What `configureSqlite` needs of a better-sqlite3 `Database`. */
export interface SqlitePragmas {
  pragma(source: string): unknown;
}

/**
 * WAL journal (readers never block the writer; another process such as `idp rotate-keys` may
 * write meanwhile), `synchronous = FULL` (an acknowledged change — a password, a revoked token, a
 * directory entry — survives a power loss, not only a crash of the process), foreign keys on, and
 * a 5 s busy timeout for that other writer. Call it right after opening, before migrations.
 */
export function configureSqlite(db: SqlitePragmas): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
}
