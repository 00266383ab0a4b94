import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Directory, dataAttributes, type UserRecord } from '../src/index.js';

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
  attributes: {},
  groups: [],
  tokenGroups: [],
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
    const first = directory.observe({ id: 'n@x', groups: ['g1'], email: 'n@x' });
    expect(first.created).toBe(true);
    expect(first.user).toMatchObject({ active: false, email: 'n@x', username: null, tokenGroups: ['g1'], attributes: {} });
    const stamp = first.user.lastSeenAt;
    clock += 1000;
    expect(directory.observe({ id: 'n@x', groups: ['g1'] }).user.lastSeenAt).toBe(stamp);
    expect(directory.observe({ id: 'n@x', groups: ['g1'], username: 'n' }).user).toMatchObject({ username: 'n', email: 'n@x' });
    expect(directory.observe({ id: 'n@x', groups: ['g2'] }).user.tokenGroups).toEqual(['g2']);
    clock += 120_000;
    expect(directory.observe({ id: 'n@x', groups: ['g2'] }).user.lastSeenAt).toBe(new Date(clock).toISOString());
    directory.updateUser('n@x', { name: 'Set By Admin' });
    expect(directory.observe({ id: 'n@x', groups: ['g2'], name: 'From Token' }).user.name).toBe('Set By Admin');
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
    expect(directory.db.pragma('user_version', { simple: true })).toBe(1);
    expect(directory.db.pragma('foreign_keys', { simple: true })).toBe(1);
  });
});
