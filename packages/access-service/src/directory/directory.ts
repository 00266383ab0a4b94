import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { AccessError, conflict, invalid, notFound } from '../errors.js';
import { openDatabase, type Db } from './database.js';
import type {
  AttributeDefinition,
  AttributeValues,
  GroupRecord,
  HierarchyRecord,
  ListOptions,
  NewAttributeDefinition,
  NewGroup,
  NewUser,
  Resolution,
  Sighting,
  SubjectLink,
  UserPatch,
  UserRecord,
} from './types.js';
import { MAX_VALUE, checkName, checkUserId, checkValueList } from './validate.js';

interface UserRow {
  id: string;
  username: string | null;
  email: string | null;
  name: string | null;
  active: number;
  deactivated_at: string | null;
  activated_by: string | null;
  token_groups: string;
  token_groups_seen_at: string | null;
  last_seen_at: string | null;
  created_at: string;
  updated_at: string;
}

interface SubjectRow {
  issuer: string;
  subject: string;
  user_id: string;
  linked_by: SubjectLink['linkedBy'];
  linked_at: string;
}

interface DefinitionRow {
  name: string;
  description: string | null;
  allowed_values: string | null;
}

/** A sighting rewrites `last_seen_at` only when the stored one is older than this. */
const SEEN_RESOLUTION_MS = 60_000;

/**
 * The user directory over SQLite: users with attributes and group memberships, groups, attribute
 * definitions and hierarchies. Every change validates first and then writes in one transaction, so a
 * refused request leaves nothing behind. Methods throw `AccessError` (`VALIDATION`, `NOT_FOUND`,
 * `CONFLICT`).
 */
export class Directory {
  readonly db: Db;
  private readonly now: () => Date;

  constructor(db: Db, now: () => Date = () => new Date()) {
    this.db = db;
    this.now = now;
  }

  /** Opens the directory in a data folder (`':memory:'` for a throw-away one). */
  static open(dataDir: string, now?: () => Date): Directory {
    return new Directory(openDatabase(dataDir), now);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** Throws when the database cannot answer. */
  ping(): void {
    this.db.prepare('SELECT 1').get();
  }

  // ---------------------------------------------------------------------------------------------
  // users

  getUser(id: string): UserRecord | undefined {
    const row = this.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
    return row === undefined ? undefined : this.toUser(row);
  }

  requireUser(id: string): UserRecord {
    const user = this.getUser(id);
    if (user === undefined) throw notFound(`user ${JSON.stringify(id)}`);
    return user;
  }

  listUsers(options: ListOptions = {}): { users: UserRecord[]; total: number } {
    const where = options.active === undefined ? '' : 'WHERE active = ?';
    const args = options.active === undefined ? [] : [options.active ? 1 : 0];
    const total = (this.db.prepare(`SELECT count(*) AS n FROM users ${where}`).get(...args) as { n: number }).n;
    const rows = this.db
      .prepare(`SELECT * FROM users ${where} ORDER BY id LIMIT ? OFFSET ?`)
      .all(...args, options.limit ?? 100, options.offset ?? 0) as UserRow[];
    return { users: rows.map((row) => this.toUser(row)), total };
  }

  createUser(input: NewUser): UserRecord {
    const id = checkUserId(input.id);
    return this.write(() => {
      if (this.getUser(id) !== undefined) throw conflict(`user ${JSON.stringify(id)} exists already`);
      const attributes = this.checkAttributes(input.attributes ?? {});
      const groups = this.checkGroups(input.groups ?? []);
      const at = this.stamp();
      this.db
        .prepare(
          `INSERT INTO users (id, username, email, name, active, deactivated_at, activated_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        // Created inactive by an administrator (or a seed) is a decision: no rule overrides it.
        .run(id, profile('username', input.username), profile('email', input.email), profile('name', input.name), input.active === false ? 0 : 1,
          input.active === false ? at : null, input.active === false ? null : 'admin', at, at);
      this.replaceAttributes(id, attributes);
      this.replaceGroups(id, groups);
      return this.requireUser(id);
    });
  }

  updateUser(id: string, patch: UserPatch): UserRecord {
    return this.write(() => {
      const user = this.requireUser(id);
      const attributes = patch.attributes === undefined ? undefined : this.checkAttributes(patch.attributes);
      const groups = patch.groups === undefined ? undefined : this.checkGroups(patch.groups);
      const next = {
        username: patch.username === undefined ? user.username : profile('username', patch.username),
        email: patch.email === undefined ? user.email : profile('email', patch.email),
        name: patch.name === undefined ? user.name : profile('name', patch.name),
        active: patch.active === undefined ? user.active : patch.active,
      };
      const stamp = this.stamp();
      // An administrator's `active` decides for good: false is remembered (no provisioning rule
      // reactivates the entry), true clears that.
      const deactivatedAt = patch.active === undefined ? user.deactivatedAt : patch.active ? null : (user.deactivatedAt ?? stamp);
      const activatedBy = patch.active === true && !user.active ? 'admin' : user.activatedBy;
      this.db
        .prepare('UPDATE users SET username = ?, email = ?, name = ?, active = ?, deactivated_at = ?, activated_by = ?, updated_at = ? WHERE id = ?')
        .run(next.username, next.email, next.name, next.active ? 1 : 0, deactivatedAt, activatedBy, stamp, id);
      if (attributes !== undefined) {
        const merged = new Map(Object.entries(user.attributes));
        for (const [name, values] of attributes) {
          if (values === null) merged.delete(name);
          else merged.set(name, values);
        }
        this.replaceAttributes(id, merged);
      }
      if (groups !== undefined) this.replaceGroups(id, groups);
      return this.requireUser(id);
    });
  }

  deleteUser(id: string): void {
    this.write(() => {
      if (this.db.prepare('DELETE FROM users WHERE id = ?').run(id).changes === 0) throw notFound(`user ${JSON.stringify(id)}`);
    });
  }

  /** The entry linked to a token identity (iss, sub), if any. */
  findBySubject(issuer: string, subject: string): UserRecord | undefined {
    const id = this.db.prepare('SELECT user_id FROM user_subjects WHERE issuer = ? AND subject = ?').pluck().get(issuer, subject) as string | undefined;
    return id === undefined ? undefined : this.getUser(id);
  }

  /** Ids of the entries linked to `subject` under any issuer (reference `/users/retrieve/{sub}`). */
  idsBySubject(subject: string): string[] {
    return this.db.prepare('SELECT user_id FROM user_subjects WHERE subject = ? ORDER BY user_id').pluck().all(subject) as string[];
  }

  /** Ids of the entries whose e-mail address is `email`, ignoring case (reference `/users/lookup/{email}`). */
  idsByEmail(email: string): string[] {
    return this.db.prepare('SELECT id FROM users WHERE lower(email) = lower(?) ORDER BY id').pluck().all(email) as string[];
  }

  /**
   * The directory entry of a token identity. In order: the entry linked to (iss, sub); else, when
   * `linkByEmail` is on and the token says `email_verified: true`, the one entry whose e-mail
   * address (or, for directories made before identities were linked, whose id) is that address,
   * which is then linked to this subject for good; else, with `create`, a new inactive entry with no
   * attributes. An address already claimed by another subject, or held by several unlinked entries,
   * is a `conflict`: nothing is linked or created, and the caller gets no entry.
   */
  resolveSubject(seen: Sighting, options: { linkByEmail: boolean; create: boolean }): Resolution {
    // The common case (a linked identity) reads only; linking and recording take the write lock.
    const known = this.findBySubject(seen.issuer, seen.subject);
    if (known !== undefined) return { user: known, created: false };
    return this.write((): Resolution => {
      const linked = this.findBySubject(seen.issuer, seen.subject);
      if (linked !== undefined) return { user: linked, created: false };
      const email = seen.email?.trim();
      if (options.linkByEmail && seen.emailVerified === true && email !== undefined && email !== '') {
        const candidates = this.db
          .prepare('SELECT id FROM users WHERE lower(email) = lower(?) OR lower(id) = lower(?) ORDER BY created_at, id')
          .pluck()
          .all(email, email) as string[];
        if (candidates.length > 0) {
          const claimed = candidates.filter((id) => this.subjectOf(id) !== null);
          if (claimed.length > 0) return { user: undefined, created: false, conflict: `the address is already linked to another identity (entry ${claimed[0]})` };
          if (candidates.length > 1) return { user: undefined, created: false, conflict: `the address names ${candidates.length} directory entries` };
          this.link(candidates[0]!, seen.issuer, seen.subject, 'email');
          return { user: this.requireUser(candidates[0]!), created: false, linkedBy: 'email' };
        }
      }
      if (!options.create) return { user: undefined, created: false };
      // A readable id when the address is verified and free, else the subject (made unique per issuer).
      const verifiedEmail = seen.emailVerified === true && email !== undefined && email !== '' ? email : undefined;
      const preferred = options.linkByEmail && verifiedEmail !== undefined ? verifiedEmail : seen.subject;
      let id = preferred.slice(0, MAX_VALUE);
      if (this.getUser(id) !== undefined) id = `${seen.subject.slice(0, 200)}#${createHash('sha256').update(seen.issuer).digest('hex').slice(0, 12)}`;
      if (this.getUser(id) !== undefined) throw conflict(`cannot record identity ${seen.subject}: entry ${id} exists`);
      const stamp = this.stamp();
      this.db
        .prepare(`INSERT INTO users (id, username, email, name, active, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)`)
        // An unverified address is not stored: it must never look like a claim on that address.
        .run(id, clip(seen.username), clip(verifiedEmail), clip(seen.name), stamp, stamp);
      this.link(id, seen.issuer, seen.subject, 'sighting');
      return { user: this.requireUser(id), created: true };
    });
  }

  /** The identity an entry is linked to, or `null`. */
  subjectOf(userId: string): SubjectLink | null {
    const row = this.db.prepare('SELECT * FROM user_subjects WHERE user_id = ?').get(userId) as SubjectRow | undefined;
    return row === undefined ? null : { issuer: row.issuer, subject: row.subject, linkedBy: row.linked_by, linkedAt: row.linked_at };
  }

  /** Links an entry to a token identity (admin API); `CONFLICT` when either side is linked elsewhere. */
  linkSubject(userId: string, issuer: string, subject: string): UserRecord {
    if (issuer.trim() === '' || subject.trim() === '' || issuer.length > MAX_VALUE || subject.length > MAX_VALUE) {
      throw invalid(`issuer and subject must be non-empty texts of at most ${MAX_VALUE} characters`);
    }
    return this.write(() => {
      this.requireUser(userId);
      const holder = this.db.prepare('SELECT user_id FROM user_subjects WHERE issuer = ? AND subject = ?').pluck().get(issuer, subject) as string | undefined;
      if (holder === userId) return this.requireUser(userId);
      if (holder !== undefined) throw conflict(`that identity is linked to entry ${JSON.stringify(holder)}; unlink it first`);
      if (this.subjectOf(userId) !== null) throw conflict(`entry ${JSON.stringify(userId)} is linked to another identity; unlink it first`);
      this.link(userId, issuer, subject, 'admin');
      return this.requireUser(userId);
    });
  }

  /** Removes an entry's identity link (admin API). */
  unlinkSubject(userId: string): UserRecord {
    return this.write(() => {
      this.requireUser(userId);
      if (this.db.prepare('DELETE FROM user_subjects WHERE user_id = ?').run(userId).changes === 0) throw notFound(`an identity link of user ${JSON.stringify(userId)}`);
      return this.requireUser(userId);
    });
  }

  /** Number of entries not linked to any identity (reported at start after the migration). */
  unlinkedCount(): number {
    return this.db.prepare('SELECT count(*) FROM users WHERE id NOT IN (SELECT user_id FROM user_subjects)').pluck().get() as number;
  }

  /**
   * Records that the user of an entry presented a valid token: the token's groups (kept for lookups
   * by an administrator), the time, and any profile field the entry lacks (the e-mail address only
   * when verified). Writes only when something changed.
   */
  observe(userId: string, seen: Sighting): UserRecord {
    return this.write(() => {
      const existing = this.requireUser(userId);
      const at = this.now();
      const stamp = at.toISOString();
      const groups = JSON.stringify([...seen.groups]);
      const email = seen.emailVerified === true ? seen.email : undefined;
      const stale = existing.lastSeenAt === null || at.getTime() - Date.parse(existing.lastSeenAt) >= SEEN_RESOLUTION_MS;
      const fills =
        (existing.username === null && seen.username !== undefined) ||
        (existing.email === null && email !== undefined) ||
        (existing.name === null && seen.name !== undefined);
      if (stale || fills || JSON.stringify(existing.tokenGroups) !== groups) {
        this.db
          .prepare(
            `UPDATE users SET token_groups = ?, token_groups_seen_at = ?, last_seen_at = ?,
               username = coalesce(username, ?), email = coalesce(email, ?), name = coalesce(name, ?)
             WHERE id = ?`,
          )
          .run(groups, stamp, stamp, clip(seen.username), clip(email), clip(seen.name), userId);
        return this.requireUser(userId);
      }
      return existing;
    });
  }

  /**
   * A provisioning rule's activation (src/provisioning.ts): makes an inactive entry active and adds
   * the rule's attributes it does not hold yet, unless an administrator deactivated it. Answers the
   * entry and whether it was activated now.
   */
  autoActivate(userId: string, rule: string, attributes: Record<string, AttributeValues>): { user: UserRecord; activated: boolean } {
    return this.write(() => {
      const user = this.requireUser(userId);
      if (user.active || user.deactivatedAt !== null) return { user, activated: false };
      const checked = this.checkAttributes(attributes);
      const merged = new Map(Object.entries(user.attributes));
      for (const [name, values] of checked) if (values !== null && !merged.has(name)) merged.set(name, values);
      this.db.prepare('UPDATE users SET active = 1, activated_by = ?, updated_at = ? WHERE id = ?').run(`rule:${rule}`, this.stamp(), userId);
      this.replaceAttributes(userId, merged);
      return { user: this.requireUser(userId), activated: true };
    });
  }

  /** Throws `VALIDATION` unless every attribute is defined and its values allowed (a rule's attributes, checked at start). */
  validateAttributes(attributes: Record<string, AttributeValues>): void {
    this.checkAttributes(attributes);
  }

  // ---------------------------------------------------------------------------------------------
  // groups

  listGroups(): GroupRecord[] {
    const rows = this.db.prepare('SELECT name, description, created_at FROM groups ORDER BY name').all() as {
      name: string;
      description: string | null;
      created_at: string;
    }[];
    const members = this.db.prepare('SELECT user_id FROM group_members WHERE group_name = ? ORDER BY user_id').pluck();
    return rows.map((row) => ({ name: row.name, description: row.description, members: members.all(row.name) as string[], createdAt: row.created_at }));
  }

  getGroup(name: string): GroupRecord | undefined {
    return this.listGroups().find((group) => group.name === name);
  }

  createGroup(input: NewGroup): GroupRecord {
    const name = checkName('group', input.name);
    return this.write(() => {
      if (this.db.prepare('SELECT 1 FROM groups WHERE name = ?').get(name) !== undefined) throw conflict(`group ${JSON.stringify(name)} exists already`);
      this.db.prepare('INSERT INTO groups (name, description, created_at) VALUES (?, ?, ?)').run(name, profile('description', input.description), this.stamp());
      return this.getGroup(name)!;
    });
  }

  deleteGroup(name: string): void {
    this.write(() => {
      if (this.db.prepare('DELETE FROM groups WHERE name = ?').run(name).changes === 0) throw notFound(`group ${JSON.stringify(name)}`);
    });
  }

  // ---------------------------------------------------------------------------------------------
  // hierarchies

  getHierarchy(name: string): HierarchyRecord | undefined {
    const tiers = this.db.prepare('SELECT tiers FROM hierarchies WHERE name = ?').pluck().get(name) as string | undefined;
    return tiers === undefined ? undefined : { name, tiers: JSON.parse(tiers) as string[] };
  }

  listHierarchies(): HierarchyRecord[] {
    const rows = this.db.prepare('SELECT name, tiers FROM hierarchies ORDER BY name').all() as { name: string; tiers: string }[];
    return rows.map((row) => ({ name: row.name, tiers: JSON.parse(row.tiers) as string[] }));
  }

  /** Creates or replaces a hierarchy; `created` tells which. */
  putHierarchy(name: string, tiers: readonly string[]): { hierarchy: HierarchyRecord; created: boolean } {
    checkName('hierarchy', name);
    const checked = checkValueList(`the tiers of ${name}`, tiers);
    return this.write(() => {
      const definition = this.definitionRow(name);
      if (definition !== undefined) {
        const values = parseList(definition.allowed_values);
        if (values !== null) {
          const outside = checked.filter((tier) => !values.includes(tier));
          if (outside.length > 0) throw invalid(`tiers ${outside.join(', ')} are not allowed values of attribute ${name}`);
        } else {
          this.checkInUse(name, checked);
        }
      }
      const created = this.setHierarchy(name, checked);
      return { hierarchy: { name, tiers: checked }, created };
    });
  }

  deleteHierarchy(name: string): void {
    this.write(() => {
      if (this.db.prepare('DELETE FROM hierarchies WHERE name = ?').run(name).changes === 0) throw notFound(`hierarchy ${JSON.stringify(name)}`);
    });
  }

  // ---------------------------------------------------------------------------------------------
  // attribute definitions

  listDefinitions(): AttributeDefinition[] {
    const rows = this.db.prepare('SELECT name, description, allowed_values FROM attribute_definitions ORDER BY name').all() as DefinitionRow[];
    return rows.map((row) => this.toDefinition(row));
  }

  getDefinition(name: string): AttributeDefinition | undefined {
    const row = this.definitionRow(name);
    return row === undefined ? undefined : this.toDefinition(row);
  }

  /**
   * Creates or replaces a definition (description and values; absent means none). `hierarchy`, when
   * present, sets or removes the hierarchy of the same name. Refuses a change that would leave a
   * stored user value outside the allowed values.
   */
  putDefinition(input: NewAttributeDefinition): { definition: AttributeDefinition; created: boolean } {
    const name = checkName('attribute', input.name);
    const values = input.values == null ? null : checkValueList(`the values of ${name}`, input.values);
    const hierarchy = input.hierarchy == null ? input.hierarchy : checkValueList(`the tiers of ${name}`, input.hierarchy);
    return this.write(() => {
      const existing = this.definitionRow(name);
      const tiers = hierarchy === undefined ? (this.getHierarchy(name)?.tiers ?? null) : hierarchy;
      if (values !== null && tiers !== null) {
        const outside = tiers.filter((tier) => !values.includes(tier));
        if (outside.length > 0) throw invalid(`hierarchy tiers ${outside.join(', ')} of ${name} are not among its values`);
      }
      const allowed = values ?? tiers;
      if (allowed !== null) this.checkInUse(name, allowed);
      const at = this.stamp();
      this.db
        .prepare(
          `INSERT INTO attribute_definitions (name, description, allowed_values, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET description = excluded.description, allowed_values = excluded.allowed_values, updated_at = excluded.updated_at`,
        )
        .run(name, profile('description', input.description), values === null ? null : JSON.stringify(values), at, at);
      if (hierarchy === null) this.db.prepare('DELETE FROM hierarchies WHERE name = ?').run(name);
      else if (hierarchy !== undefined) this.setHierarchy(name, hierarchy);
      return { definition: this.getDefinition(name)!, created: existing === undefined };
    });
  }

  deleteDefinition(name: string): void {
    this.write(() => {
      if (this.definitionRow(name) === undefined) throw notFound(`attribute ${JSON.stringify(name)}`);
      const holders = this.db.prepare('SELECT count(DISTINCT user_id) FROM user_attributes WHERE name = ?').pluck().get(name) as number;
      if (holders > 0) throw conflict(`attribute ${name} is held by ${holders} user(s); remove it from them first`);
      this.db.prepare('DELETE FROM attribute_definitions WHERE name = ?').run(name);
    });
  }

  /** The values a user may hold for a defined attribute (`null`: any), or `undefined` if undefined. */
  allowedValues(name: string): string[] | null | undefined {
    const row = this.definitionRow(name);
    if (row === undefined) return undefined;
    return parseList(row.allowed_values) ?? this.getHierarchy(name)?.tiers ?? null;
  }

  // ---------------------------------------------------------------------------------------------
  // internals

  /** Runs `fn` in an immediate (write) transaction; an exception rolls everything back. */
  write<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn).immediate();
    } catch (error) {
      if (!(error instanceof Database.SqliteError)) throw error;
      throw new AccessError('STORAGE_UNAVAILABLE', 'the directory database failed; try again', { cause: error });
    }
  }

  private link(userId: string, issuer: string, subject: string, by: SubjectLink['linkedBy']): void {
    this.db.prepare('INSERT INTO user_subjects (issuer, subject, user_id, linked_by, linked_at) VALUES (?, ?, ?, ?, ?)').run(issuer, subject, userId, by, this.stamp());
  }

  private stamp(): string {
    return this.now().toISOString();
  }

  private definitionRow(name: string): DefinitionRow | undefined {
    return this.db.prepare('SELECT name, description, allowed_values FROM attribute_definitions WHERE name = ?').get(name) as DefinitionRow | undefined;
  }

  private toDefinition(row: DefinitionRow): AttributeDefinition {
    return { name: row.name, description: row.description, values: parseList(row.allowed_values), hierarchy: this.getHierarchy(row.name)?.tiers ?? null };
  }

  private setHierarchy(name: string, tiers: readonly string[]): boolean {
    const at = this.stamp();
    const existed = this.db.prepare('SELECT 1 FROM hierarchies WHERE name = ?').get(name) !== undefined;
    this.db
      .prepare(
        `INSERT INTO hierarchies (name, tiers, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET tiers = excluded.tiers, updated_at = excluded.updated_at`,
      )
      .run(name, JSON.stringify(tiers), at, at);
    return !existed;
  }

  private checkInUse(name: string, allowed: readonly string[]): void {
    const inUse = this.db.prepare('SELECT DISTINCT value FROM user_attributes WHERE name = ? ORDER BY value').pluck().all(name) as string[];
    const stranded = inUse.filter((value) => !allowed.includes(value));
    if (stranded.length > 0) {
      throw conflict(`users hold ${stranded.slice(0, 5).map((v) => `${name}=${v}`).join(', ')}${stranded.length > 5 ? ', …' : ''}, which would no longer be allowed`);
    }
  }

  /** Validates attribute input against the definitions; `null` marks a removal. */
  private checkAttributes(input: Record<string, AttributeValues | null>): Map<string, string[] | null> {
    const result = new Map<string, string[] | null>();
    for (const [name, raw] of Object.entries(input)) {
      checkName('attribute', name);
      const values = raw === null ? [] : Array.isArray(raw) ? raw : [raw];
      if (values.length === 0) {
        result.set(name, null);
        continue;
      }
      const allowed = this.allowedValues(name);
      if (allowed === undefined) throw invalid(`attribute ${name} is not defined; define it first (POST /attributes)`);
      checkValueList(`attribute ${name}`, values);
      if (allowed !== null) {
        const outside = values.filter((value) => !allowed.includes(value));
        if (outside.length > 0) throw invalid(`${name}=${outside[0]} is not allowed; allowed values of ${name}: ${allowed.join(', ')}`);
      }
      result.set(name, [...values]);
    }
    return result;
  }

  private checkGroups(groups: readonly string[]): string[] {
    const unique = [...new Set(groups)];
    for (const name of unique) {
      if (this.db.prepare('SELECT 1 FROM groups WHERE name = ?').get(name) === undefined) {
        throw invalid(`group ${JSON.stringify(name)} does not exist; create it first (POST /groups)`);
      }
    }
    return unique;
  }

  private replaceAttributes(id: string, attributes: Map<string, string[] | null>): void {
    this.db.prepare('DELETE FROM user_attributes WHERE user_id = ?').run(id);
    const insert = this.db.prepare('INSERT INTO user_attributes (user_id, name, value, position) VALUES (?, ?, ?, ?)');
    for (const [name, values] of attributes) {
      values?.forEach((value, position) => insert.run(id, name, value, position));
    }
  }

  private replaceGroups(id: string, groups: readonly string[]): void {
    this.db.prepare('DELETE FROM group_members WHERE user_id = ?').run(id);
    const insert = this.db.prepare('INSERT INTO group_members (group_name, user_id) VALUES (?, ?)');
    for (const group of groups) insert.run(group, id);
  }

  private toUser(row: UserRow): UserRecord {
    const pairs = this.db.prepare('SELECT name, value FROM user_attributes WHERE user_id = ? ORDER BY name, position').all(row.id) as { name: string; value: string }[];
    const attributes = new Map<string, string[]>();
    for (const { name, value } of pairs) {
      const values = attributes.get(name);
      if (values === undefined) attributes.set(name, [value]);
      else values.push(value);
    }
    const groups = this.db.prepare('SELECT group_name FROM group_members WHERE user_id = ? ORDER BY group_name').pluck().all(row.id) as string[];
    return {
      id: row.id,
      username: row.username,
      email: row.email,
      name: row.name,
      active: row.active === 1,
      deactivatedAt: row.deactivated_at,
      activatedBy: row.activated_by,
      attributes: Object.fromEntries(attributes),
      groups,
      tokenGroups: JSON.parse(row.token_groups) as string[],
      subject: this.subjectOf(row.id),
      tokenGroupsSeenAt: row.token_groups_seen_at,
      lastSeenAt: row.last_seen_at,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}

function parseList(text: string | null): string[] | null {
  return text === null ? null : (JSON.parse(text) as string[]);
}

/** A profile text field: trimmed, at most MAX_VALUE characters, no control characters; '' → null. */
function profile(field: string, value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  // eslint-disable-next-line no-control-regex
  if (value.length > MAX_VALUE || /[\u0000-\u001f\u007f]/.test(value)) {
    throw invalid(`${field} must be at most ${MAX_VALUE} characters without control characters`);
  }
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** A profile value taken from a token: kept as given, but bounded. */
function clip(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value.slice(0, MAX_VALUE);
}
