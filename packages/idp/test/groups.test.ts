import { decodeJwt } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUser, signIn, startIdpWithPool, type TestIdp } from './support/harness.js';

// Every test gets a fresh IdP with users gina and hank (no groups) and creates the groups it uses.
let idp: TestIdp, poolId: string, clientId: string;
beforeEach(async () => {
  ({ idp, poolId, clientId } = await startIdpWithPool(async (f) => {
    await createUser(f.idp, f.poolId, 'gina');
    await createUser(f.idp, f.poolId, 'hank');
  }));
});
afterEach(() => idp.close());

/** ianode_admin (precedence 1), ianode_read and extra, as the first test creates them. */
async function createGroups(): Promise<void> {
  await idp.ok('CreateGroup', { UserPoolId: poolId, GroupName: 'ianode_admin', Description: 'admins', Precedence: 1 });
  await idp.ok('CreateGroup', { UserPoolId: poolId, GroupName: 'ianode_read' });
  await idp.ok('CreateGroup', { UserPoolId: poolId, GroupName: 'extra' });
}

interface GroupShape {
  GroupName: string;
  UserPoolId: string;
  Description?: string;
  Precedence?: number;
}

describe('CreateGroup / GetGroup / ListGroups / DeleteGroup', () => {
  it('creates groups, refuses duplicates, reads and lists them', async () => {
    const { Group } = await idp.ok<{ Group: GroupShape }>('CreateGroup', {
      UserPoolId: poolId,
      GroupName: 'ianode_admin',
      Description: 'admins',
      Precedence: 1,
    });
    expect(Group).toMatchObject({ GroupName: 'ianode_admin', UserPoolId: poolId, Description: 'admins', Precedence: 1 });
    await idp.ok('CreateGroup', { UserPoolId: poolId, GroupName: 'ianode_read' });
    await idp.ok('CreateGroup', { UserPoolId: poolId, GroupName: 'extra' });
    expect((await idp.call('CreateGroup', { UserPoolId: poolId, GroupName: 'ianode_read' })).body).toEqual({
      __type: 'GroupExistsException',
      message: 'A group with the name already exists.',
    });
    expect((await idp.ok<{ Group: GroupShape }>('GetGroup', { UserPoolId: poolId, GroupName: 'ianode_admin' })).Group.Precedence).toBe(1);
    expect((await idp.call('GetGroup', { UserPoolId: poolId, GroupName: 'none' })).body.__type).toBe('ResourceNotFoundException');

    const page1 = await idp.ok<{ Groups: GroupShape[]; NextToken?: string }>('ListGroups', { UserPoolId: poolId, Limit: 2 });
    const page2 = await idp.ok<{ Groups: GroupShape[]; NextToken?: string }>('ListGroups', {
      UserPoolId: poolId,
      Limit: 2,
      NextToken: page1.NextToken,
    });
    expect([...page1.Groups, ...page2.Groups].map((g) => g.GroupName)).toEqual(['extra', 'ianode_admin', 'ianode_read']);
    expect((await idp.call('ListGroups', { UserPoolId: 'local_missing1' })).body.__type).toBe('ResourceNotFoundException');
  });

  it('deletes a group and its memberships', async () => {
    await createGroups();
    await idp.ok('AdminAddUserToGroup', { UserPoolId: poolId, Username: 'hank', GroupName: 'extra' });
    await idp.ok('DeleteGroup', { UserPoolId: poolId, GroupName: 'extra' });
    const groups = await idp.ok<{ Groups: GroupShape[] }>('AdminListGroupsForUser', { UserPoolId: poolId, Username: 'hank' });
    expect(groups.Groups.map((g) => g.GroupName)).not.toContain('extra');
    expect((await idp.call('DeleteGroup', { UserPoolId: poolId, GroupName: 'extra' })).body.__type).toBe('ResourceNotFoundException');
  });
});

describe('memberships', () => {
  it('adds (idempotently), lists both ways, and removes', async () => {
    await createGroups();
    await idp.ok('AdminAddUserToGroup', { UserPoolId: poolId, Username: 'gina', GroupName: 'ianode_admin' });
    await idp.ok('AdminAddUserToGroup', { UserPoolId: poolId, Username: 'gina', GroupName: 'ianode_admin' });
    await idp.ok('AdminAddUserToGroup', { UserPoolId: poolId, Username: 'gina', GroupName: 'ianode_read' });
    await idp.ok('AdminAddUserToGroup', { UserPoolId: poolId, Username: 'hank', GroupName: 'ianode_read' });

    const ginas = await idp.ok<{ Groups: GroupShape[] }>('AdminListGroupsForUser', { UserPoolId: poolId, Username: 'gina' });
    expect(ginas.Groups.map((g) => g.GroupName)).toEqual(['ianode_admin', 'ianode_read']);
    const readers = await idp.ok<{ Users: { Username: string }[] }>('ListUsersInGroup', { UserPoolId: poolId, GroupName: 'ianode_read' });
    expect(readers.Users.map((u) => u.Username).sort()).toEqual(['gina', 'hank']);

    await idp.ok('AdminRemoveUserFromGroup', { UserPoolId: poolId, Username: 'hank', GroupName: 'ianode_read' });
    const after = await idp.ok<{ Users: { Username: string }[] }>('ListUsersInGroup', { UserPoolId: poolId, GroupName: 'ianode_read' });
    expect(after.Users.map((u) => u.Username)).toEqual(['gina']);
  });

  it('refuses unknown users and groups', async () => {
    await createGroups();
    expect((await idp.call('AdminAddUserToGroup', { UserPoolId: poolId, Username: 'nobody', GroupName: 'ianode_read' })).body.__type).toBe(
      'UserNotFoundException',
    );
    expect((await idp.call('AdminAddUserToGroup', { UserPoolId: poolId, Username: 'gina', GroupName: 'none' })).body.__type).toBe(
      'ResourceNotFoundException',
    );
    expect((await idp.call('ListUsersInGroup', { UserPoolId: poolId, GroupName: 'none' })).body.__type).toBe('ResourceNotFoundException');
    expect((await idp.call('AdminListGroupsForUser', { UserPoolId: poolId, Username: 'nobody' })).body.__type).toBe('UserNotFoundException');
    expect(
      (await idp.call('AdminRemoveUserFromGroup', { UserPoolId: poolId, Username: 'gina', GroupName: 'none' })).body.__type,
    ).toBe('ResourceNotFoundException');
  });

  it('groups are in tokens issued after the change, by precedence', async () => {
    await createGroups();
    const before = await signIn(idp, clientId, 'gina');
    expect(decodeJwt(before.body.AuthenticationResult!.IdToken)['cognito:groups']).toBeUndefined();
    // Added in the order opposite to their precedence: the tokens list them by precedence.
    await idp.ok('AdminAddUserToGroup', { UserPoolId: poolId, Username: 'gina', GroupName: 'ianode_read' });
    await idp.ok('AdminAddUserToGroup', { UserPoolId: poolId, Username: 'gina', GroupName: 'ianode_admin' });
    expect(decodeJwt((await signIn(idp, clientId, 'hank')).body.AuthenticationResult!.IdToken)['cognito:groups']).toBeUndefined();
    const gina = await signIn(idp, clientId, 'gina');
    expect(decodeJwt(gina.body.AuthenticationResult!.IdToken)['cognito:groups']).toEqual(['ianode_admin', 'ianode_read']);
    expect(decodeJwt(gina.body.AuthenticationResult!.AccessToken)['cognito:groups']).toEqual(['ianode_admin', 'ianode_read']);
  });
});
