/**
 * Schema migrations, applied in order inside one transaction each and recorded in
 * `schema_migrations`. Never edit a released migration: append a new one.
 * Times are milliseconds since the epoch; JSON columns hold the AWS-shaped settings.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
      CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);

      CREATE TABLE pools (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        config TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );

      CREATE TABLE clients (
        id TEXT PRIMARY KEY,
        pool_id TEXT NOT NULL REFERENCES pools(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        secret TEXT,
        config TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX clients_pool ON clients(pool_id, name);

      CREATE TABLE users (
        pool_id TEXT NOT NULL REFERENCES pools(id) ON DELETE CASCADE,
        username TEXT NOT NULL,
        username_key TEXT NOT NULL,
        sub TEXT NOT NULL UNIQUE,
        email_key TEXT,
        password_hash TEXT,
        status TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        attributes TEXT NOT NULL,
        password_set_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (pool_id, username_key)
      );
      CREATE INDEX users_email ON users(pool_id, email_key);

      CREATE TABLE groups (
        pool_id TEXT NOT NULL REFERENCES pools(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT,
        precedence INTEGER,
        role_arn TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (pool_id, name)
      );

      CREATE TABLE memberships (
        pool_id TEXT NOT NULL,
        group_name TEXT NOT NULL,
        user_sub TEXT NOT NULL REFERENCES users(sub) ON DELETE CASCADE,
        PRIMARY KEY (pool_id, group_name, user_sub),
        FOREIGN KEY (pool_id, group_name) REFERENCES groups(pool_id, name) ON DELETE CASCADE
      );
      CREATE INDEX memberships_user ON memberships(user_sub);

      CREATE TABLE signing_keys (
        kid TEXT PRIMARY KEY,
        pool_id TEXT NOT NULL REFERENCES pools(id) ON DELETE CASCADE,
        private_jwk TEXT NOT NULL,
        public_jwk TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        retired_at INTEGER,
        max_exp INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX signing_keys_pool ON signing_keys(pool_id, created_at);

      -- One row per sign-in: the refresh token (sha256 only) and the origin_jti its tokens carry.
      CREATE TABLE sessions (
        origin_jti TEXT PRIMARY KEY,
        pool_id TEXT NOT NULL REFERENCES pools(id) ON DELETE CASCADE,
        client_id TEXT NOT NULL,
        user_sub TEXT NOT NULL REFERENCES users(sub) ON DELETE CASCADE,
        refresh_hash TEXT NOT NULL UNIQUE,
        scope TEXT NOT NULL,
        auth_time INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        revoked_at INTEGER
      );
      CREATE INDEX sessions_user ON sessions(user_sub);

      -- Challenge sessions (NEW_PASSWORD_REQUIRED) and authorization codes: single use, hashed.
      CREATE TABLE challenges (
        session_hash TEXT PRIMARY KEY,
        pool_id TEXT NOT NULL REFERENCES pools(id) ON DELETE CASCADE,
        client_id TEXT NOT NULL,
        user_sub TEXT NOT NULL REFERENCES users(sub) ON DELETE CASCADE,
        expires_at INTEGER NOT NULL
      );

      CREATE TABLE auth_codes (
        code_hash TEXT PRIMARY KEY,
        pool_id TEXT NOT NULL REFERENCES pools(id) ON DELETE CASCADE,
        client_id TEXT NOT NULL,
        user_sub TEXT NOT NULL REFERENCES users(sub) ON DELETE CASCADE,
        redirect_uri TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        scope TEXT NOT NULL,
        nonce TEXT,
        auth_time INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER,
        origin_jti TEXT
      );

      CREATE TABLE sign_in_failures (
        pool_id TEXT NOT NULL,
        username_key TEXT NOT NULL,
        failures INTEGER NOT NULL,
        last_failure_at INTEGER NOT NULL,
        locked_until INTEGER NOT NULL,
        PRIMARY KEY (pool_id, username_key)
      );
    `,
  },
  {
    version: 2,
    name: 'subject revocations',
    // Sign-out, disable and delete revoke every token of a subject issued up to a moment; relying
    // parties read them (hashed) from GET /<pool>/revocations. No foreign key: a deleted user's
    // revocation must outlive the user.
    sql: `
      CREATE TABLE subject_revocations (
        pool_id TEXT NOT NULL,
        sub TEXT NOT NULL,
        revoked_before INTEGER NOT NULL,
        reason TEXT NOT NULL,
        PRIMARY KEY (pool_id, sub)
      );
      CREATE INDEX sessions_by_revocation ON sessions(pool_id, revoked_at);
    `,
  },
  {
    version: 3,
    name: 'srp verifiers, secret-block replay, confirmation codes',
    // USER_SRP_AUTH needs the SRP salt and verifier beside the scrypt hash; users created before
    // this migration get them at their next successful password sign-in. `srp_used` remembers each
    // SRP secret block answered, until it expires, so none is accepted twice. `confirmation_codes`
    // is the outbox of sign-up and forgot-password codes: the IdP sends no mail, an operator reads
    // the codes with the signed `IanodeIdp.ListMessages` (docs: packages/idp/README.md).
    sql: `
      ALTER TABLE users ADD COLUMN srp_salt TEXT;
      ALTER TABLE users ADD COLUMN srp_verifier TEXT;

      CREATE TABLE srp_used (
        id TEXT PRIMARY KEY,
        expires_at INTEGER NOT NULL
      );

      CREATE TABLE confirmation_codes (
        user_sub TEXT NOT NULL REFERENCES users(sub) ON DELETE CASCADE,
        pool_id TEXT NOT NULL REFERENCES pools(id) ON DELETE CASCADE,
        purpose TEXT NOT NULL,
        code TEXT NOT NULL,
        destination TEXT,
        attempts INTEGER NOT NULL,
        sends INTEGER NOT NULL,
        window_start INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (user_sub, purpose)
      );
      CREATE INDEX confirmation_codes_pool ON confirmation_codes(pool_id, created_at);
    `,
  },
];
