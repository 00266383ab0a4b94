import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/directory/migrations.js';
import { DATABASE_FILE, Directory, dataAttributes, type Sighting, type UserRecord } from '../src/index.js';

let directory: Directory;
let clock: number;

beforeEach(() => {
  clock = Date.UTC(2026, 0, 1);
  directory = Directory.open(':memory:', () => new Date(clock));
  directory.putDefinition({ name: 'clearance', hierarchy: ['O', 'OS', 'S', 'TS'] });
  directory.putDefinition({ name: 'dept', values: null });
  directory.createGroup({ name: 'staff' });
});
afterEach(() => directory.close());

const user = (over: Partial<UserRecord> = {}): UserRecord => ({
  id: 'u',
  username: null,
  email: null,
  name: null,
  active: true,
  deactivatedAt: null,
  activatedBy: null,
  attributes: {},
  groups: [],
  tokenGroups: [],
  subject: null,
  tokenGroupsSeenAt: null,
  lastSeenAt: null,
  createdAt: '',
  updatedAt: '',
  ...over,
});

describe('dataAttributes', () => {
  it('forms name=value per value, then token groups, then directory groups, without duplicates', () => {
    const record = user({ attributes: { clearance: ['S'], dept: ['eng', 'ops'] }, groups: ['staff', 'readers'] });
    expect(dataAttributes(record, ['readers', 'admins'])).toEqual(['clearance=S', 'dept=eng', 'dept=ops', 'readers', 'admins', 'staff']);
  });

  it('gives an inactive user nothing', () => {
    expect(dataAttributes(user({ active: false, attributes: { clearance: ['TS'] } }), ['g'])).toEqual([]);
  });

  it('skips a group name that would read as name=value', () => {
    expect(dataAttributes(user(), ['clearance=TS', 'ok', ''])).toEqual(['ok']);
  });
});

describe('Directory', () => {
  it('keeps several values of an attribute in the order given', () => {
    directory.createUser({ id: 'a', attributes: { dept: ['ops', 'eng'] } });
    expect(directory.getUser('a')!.attributes).toEqual({ dept: ['ops', 'eng'] });
  });

  it('records a sighting once, fills missing profile fields, and writes again only when something changed', () => {
    const seen = (extra: Partial<Sighting> = {}): Sighting => ({ issuer: 'http://idp', subject: 's-n', emailVerified: true, groups: ['g1'], ...extra });
    const first = directory.resolveSubject(seen({ email: 'n@x' }), { linkByEmail: true, create: true });
    expect(first.created).toBe(true);
    expect(first.user).toMatchObject({ id: 'n@x', active: false, email: 'n@x', username: null, attributes: {}, subject: { issuer: 'http://idp', subject: 's-n', linkedBy: 'sighting' } });
    const stamp = directory.observe('n@x', seen()).lastSeenAt;
    clock += 1000;
    expect(directory.observe('n@x', seen()).lastSeenAt).toBe(stamp);
    expect(directory.observe('n@x', seen({ username: 'n' }))).toMatchObject({ username: 'n', email: 'n@x' });
    expect(directory.observe('n@x', seen({ groups: ['g2'] })).tokenGroups).toEqual(['g2']);
    clock += 120_000;
    expect(directory.observe('n@x', seen({ groups: ['g2'] })).lastSeenAt).toBe(new Date(clock).toISOString());
    directory.updateUser('n@x', { name: 'Set By Admin' });
    expect(directory.observe('n@x', seen({ groups: ['g2'], name: 'From Token' })).name).toBe('Set By Admin');
  });

  it('keys users by (iss, sub): an address links one entry, once, and only when verified', () => {
    directory.createUser({ id: 'boss', email: 'Boss@X', attributes: { dept: 'ops' } });
    const as = (subject: string, emailVerified: boolean, issuer = 'http://idp') => ({ issuer, subject, emailVerified, groups: [], email: 'boss@x' });
    const options = { linkByEmail: true, create: true };
    // An unverified address claims nothing: its bearer gets an entry of its own, without the address.
    const unverified = directory.resolveSubject(as('s-mallory', false), options);
    expect(unverified.user).toMatchObject({ id: 's-mallory', email: null, attributes: {}, active: false });
    // The first verified subject claims the entry, the link is kept; a second one is refused.
    const owner = directory.resolveSubject(as('s-boss', true), options);
    expect([owner.user?.id, owner.user === undefined ? undefined : owner.linkedBy]).toEqual(['boss', 'email']);
    expect(directory.resolveSubject(as('s-boss', true), options).user?.id).toBe('boss');
    const twin = directory.resolveSubject(as('s-twin', true), options);
    expect(twin.user).toBeUndefined();
    expect(twin.user === undefined && twin.conflict).toContain('another identity');
    // The same subject at another issuer is another identity.
    expect(directory.resolveSubject(as('s-boss', true, 'http://other-idp'), options).user).toBeUndefined();
    // Without linkByEmail, addresses are never matched.
    expect(directory.resolveSubject(as('s-new', true), { linkByEmail: false, create: false }).user).toBeUndefined();
    expect(directory.findBySubject('http://idp', 's-boss')?.attributes).toEqual({ dept: ['ops'] });
  });

  it('links and unlinks through the admin methods, refusing a second link', () => {
    directory.createUser({ id: 'u1' });
    directory.createUser({ id: 'u2' });
    expect(directory.linkSubject('u1', 'http://idp', 's1').subject).toMatchObject({ subject: 's1', linkedBy: 'admin' });
    expect(() => directory.linkSubject('u2', 'http://idp', 's1')).toThrow(/linked to entry "u1"/);
    expect(() => directory.linkSubject('u1', 'http://idp', 's2')).toThrow(/another identity/);
    expect(directory.unlinkSubject('u1').subject).toBeNull();
    expect(directory.linkSubject('u2', 'http://idp', 's1').subject?.subject).toBe('s1');
    directory.deleteUser('u2');
    expect(directory.findBySubject('http://idp', 's1')).toBeUndefined();
  });

  it('allows any value of an attribute without values or hierarchy', () => {
    expect(directory.createUser({ id: 'a', attributes: { dept: 'anything at all' } }).attributes.dept).toEqual(['anything at all']);
  });

  it('refuses values with control characters or surrounding spaces', () => {
    expect(() => directory.createUser({ id: 'a', attributes: { dept: ' eng' } })).toThrow(/surrounding spaces/);
    expect(() => directory.createUser({ id: 'a', attributes: { dept: 'e\nng' } })).toThrow(/control characters/);
    expect(directory.getUser('a')).toBeUndefined();
  });

  it('checks a hierarchy against the values of its definition and the values in use', () => {
    directory.putDefinition({ name: 'level', values: ['a', 'b', 'c'] });
    expect(() => directory.putHierarchy('level', ['a', 'z'])).toThrow(/tiers z are not allowed values of attribute level/);
    expect(directory.putHierarchy('level', ['a', 'b']).created).toBe(true);
    directory.createUser({ id: 'u', attributes: { clearance: 'OS' } });
    expect(() => directory.putHierarchy('clearance', ['O', 'S'])).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    directory.deleteHierarchy('clearance');
    expect(directory.allowedValues('clearance')).toBeNull();
  });

  it('removes memberships and attributes with their user, and memberships with their group', () => {
    directory.createUser({ id: 'a', attributes: { clearance: 'S' }, groups: ['staff'] });
    directory.deleteGroup('staff');
    expect(directory.getUser('a')!.groups).toEqual([]);
    directory.deleteUser('a');
    expect(directory.db.prepare('SELECT count(*) FROM user_attributes').pluck().get()).toBe(0);
  });

  it('uses WAL and a schema version', () => {
    expect(directory.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(directory.db.pragma('foreign_keys', { simple: true })).toBe(1);
  });
});

describe('migration of a directory made before identities were linked', () => {
  it('keeps its entries, unlinked, and lets a verified address claim them', () => {
    const data = mkdtempSync(join(tmpdir(), 'ianode-access-v1-'));
    try {
      // A version-1 database as an older access service left it: the id was the e-mail claim.
      const old = new Database(join(data, DATABASE_FILE));
      old.exec(MIGRATIONS[0]!);
      old.pragma('user_version = 1');
      old.prepare("INSERT INTO users (id, email, active, created_at, updated_at) VALUES ('admin@old.example', NULL, 1, 'x', 'x')").run();
      old.close();
      const migrated = Directory.open(data);
      try {
        expect(migrated.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
        expect(migrated.unlinkedCount()).toBe(1);
        expect(migrated.getUser('admin@old.example')).toMatchObject({ active: true, subject: null });
        const seen = { issuer: 'http://idp', subject: 's-admin', groups: [], email: 'Admin@Old.Example' };
        expect(migrated.resolveSubject({ ...seen, emailVerified: false }, { linkByEmail: true, create: false }).user).toBeUndefined();
        expect(migrated.resolveSubject({ ...seen, emailVerified: true }, { linkByEmail: true, create: false }).user?.id).toBe('admin@old.example');
        expect(migrated.unlinkedCount()).toBe(0);
      } finally {
        migrated.close();
      }
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});

describe('migration 3 (provisioning rules): inactive entries count as switched off by an administrator', () => {
  it('except those recorded on first sight and never changed; an active entry counts as activated by an administrator', () => {
    const data = mkdtempSync(join(tmpdir(), 'ianode-access-v2-'));
    try {
      const old = new Database(join(data, DATABASE_FILE));
      old.exec(MIGRATIONS[0]!);
      old.exec(MIGRATIONS[1]!);
      old.pragma('user_version = 2');
      const insert = old.prepare('INSERT INTO users (id, active, created_at, updated_at) VALUES (?, ?, ?, ?)');
      insert.run('seen-only', 0, 't1', 't1');
      insert.run('seen-then-changed', 0, 't1', 't2');
      insert.run('made-inactive', 0, 't1', 't1');
      insert.run('active', 1, 't1', 't1');
      const link = old.prepare("INSERT INTO user_subjects (issuer, subject, user_id, linked_by, linked_at) VALUES ('http://idp', ?, ?, ?, 't1')");
      link.run('s1', 'seen-only', 'sighting');
      link.run('s2', 'seen-then-changed', 'sighting');
      link.run('s3', 'made-inactive', 'admin');
      old.close();
      const migrated = Directory.open(data);
      try {
        expect(migrated.getUser('seen-only')).toMatchObject({ active: false, deactivatedAt: null, activatedBy: null });
        expect(migrated.getUser('seen-then-changed')).toMatchObject({ active: false, deactivatedAt: 't2' });
        expect(migrated.getUser('made-inactive')).toMatchObject({ active: false, deactivatedAt: 't1' });
        expect(migrated.getUser('active')).toMatchObject({ active: true, deactivatedAt: null, activatedBy: 'admin' });
        // A rule activates only the first.
        expect(migrated.autoActivate('seen-only', 'ianode_read', {}).activated).toBe(true);
        expect(migrated.autoActivate('made-inactive', 'ianode_read', {}).activated).toBe(false);
        expect(migrated.getUser('made-inactive')!.active).toBe(false);
      } finally {
        migrated.close();
      }
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
