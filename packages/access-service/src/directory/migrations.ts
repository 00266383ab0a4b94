/**
 * Schema migrations of the directory database, applied in order; `PRAGMA user_version` records how
 * many have run. Append new migrations, never edit one that has shipped.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    username TEXT,
    email TEXT,
    name TEXT,
    active INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
    token_groups TEXT NOT NULL DEFAULT '[]',
    token_groups_seen_at TEXT,
    last_seen_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE hierarchies (
    name TEXT PRIMARY KEY,
    tiers TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE attribute_definitions (
    name TEXT PRIMARY KEY,
    description TEXT,
    allowed_values TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE user_attributes (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name TEXT NOT NULL REFERENCES attribute_definitions(name),
    value TEXT NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (user_id, name, value)
  ) STRICT;
  CREATE INDEX user_attributes_by_name ON user_attributes(name, value);

  CREATE TABLE groups (
    name TEXT PRIMARY KEY,
    description TEXT,
    created_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE group_members (
    group_name TEXT NOT NULL REFERENCES groups(name) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    PRIMARY KEY (group_name, user_id)
  ) STRICT;
  CREATE INDEX group_members_by_user ON group_members(user_id);
  `,
  // 2 (issue 13): a user is the pair (issuer, subject) of their tokens, not a name or an address.
  // Each directory entry is linked to at most one subject and each subject to one entry. Entries of
  // directories made before this migration start unlinked (their ids were the e-mail claim); they are
  // linked on first sight by a verified e-mail address when the service is configured for it, or by
  // an administrator (PUT /users/{id}/subject).
  `
  CREATE TABLE user_subjects (
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    user_id TEXT NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
    linked_by TEXT NOT NULL CHECK (linked_by IN ('sighting', 'email', 'admin')),
    linked_at TEXT NOT NULL,
    PRIMARY KEY (issuer, subject)
  ) STRICT;
  CREATE INDEX users_by_email ON users(lower(email));
  `,
  // 3 (issue 15): provisioning rules activate users from their token's groups, but never one an
  // administrator switched off: `deactivated_at` is set when an administrator makes an entry
  // inactive (or creates it inactive) and cleared when one makes it active.
  `
  ALTER TABLE users ADD COLUMN deactivated_at TEXT;
  ALTER TABLE users ADD COLUMN activated_by TEXT;
  -- Entries inactive before this migration count as an administrator's decision (fail closed),
  -- except those recorded on first sight and never changed since (updated_at = created_at).
  UPDATE users SET deactivated_at = updated_at
   WHERE active = 0
     AND NOT (updated_at = created_at AND id IN (SELECT user_id FROM user_subjects WHERE linked_by = 'sighting'));
  UPDATE users SET activated_by = 'admin' WHERE active = 1;
  `,
];
