import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PASSWORD, signIn, startIdpWithPool, type TestIdp } from './support/harness.js';

let idp: TestIdp;
let poolId: string;
let clientId: string;
// A fresh IdP and pool for every test: each test creates the users it reads, so it passes alone
// and in any order (vitest --sequence.shuffle).
beforeEach(async () => {
  ({ idp, poolId, clientId } = await startIdpWithPool());
});
afterEach(() => idp.close());

const ALICE = {
  Username: 'alice',
  TemporaryPassword: 'Temp-pass-1',
  UserAttributes: [
    { Name: 'email', Value: 'alice@example.org' },
    { Name: 'custom:clearance', Value: 'S' },
  ],
};
const createAlice = () => idp.ok<{ User: UserShape }>('AdminCreateUser', { UserPoolId: poolId, ...ALICE });

interface UserShape {
  Username: string;
  Attributes?: { Name: string; Value: string }[];
  UserAttributes?: { Name: string; Value: string }[];
  UserStatus: string;
  Enabled: boolean;
  UserCreateDate: number;
}
const attr = (list: { Name: string; Value: string }[] | undefined, name: string) => list?.find((a) => a.Name === name)?.Value;

describe('AdminCreateUser', () => {
  it('creates a user in FORCE_CHANGE_PASSWORD with a sub and attributes', async () => {
    const { User } = await createAlice();
    expect(User).toMatchObject({ Username: 'alice', UserStatus: 'FORCE_CHANGE_PASSWORD', Enabled: true });
    expect(attr(User.Attributes, 'sub')).toMatch(/^[0-9a-f-]{36}$/);
    expect(attr(User.Attributes, 'custom:clearance')).toBe('S');
  });

  it('refuses a duplicate (case-insensitively), a weak temporary password and unknown attributes', async () => {
    await createAlice();
    expect((await idp.call('AdminCreateUser', { UserPoolId: poolId, Username: 'ALICE' })).body).toEqual({
      __type: 'UsernameExistsException',
      message: 'User account already exists',
    });
    expect((await idp.call('AdminCreateUser', { UserPoolId: poolId, Username: 'weak', TemporaryPassword: 'short' })).body.__type).toBe(
      'InvalidPasswordException',
    );
    expect(
      (await idp.call('AdminCreateUser', { UserPoolId: poolId, Username: 'x1', UserAttributes: [{ Name: 'custom:undeclared', Value: 'v' }] }))
        .body.__type,
    ).toBe('InvalidParameterException');
    expect(
      (await idp.call('AdminCreateUser', { UserPoolId: poolId, Username: 'x2', UserAttributes: [{ Name: 'sub', Value: 'mine' }] })).body
        .__type,
    ).toBe('InvalidParameterException');
    expect(
      (await idp.call('AdminCreateUser', { UserPoolId: poolId, Username: 'x3', UserAttributes: [{ Name: 'email_verified', Value: 'yes' }] }))
        .body.__type,
    ).toBe('InvalidParameterException');
    expect((await idp.call('AdminCreateUser', { UserPoolId: 'local_missing1', Username: 'x' })).body.__type).toBe('ResourceNotFoundException');
  });

  it('MessageAction RESEND returns the existing user, or UserNotFoundException', async () => {
    await createAlice();
    const { User } = await idp.ok<{ User: UserShape }>('AdminCreateUser', { UserPoolId: poolId, Username: 'alice', MessageAction: 'RESEND' });
    expect(User.Username).toBe('alice');
    expect((await idp.call('AdminCreateUser', { UserPoolId: poolId, Username: 'ghost', MessageAction: 'RESEND' })).body.__type).toBe(
      'UserNotFoundException',
    );
  });

  it('in a pool signing in with e-mail, the user name is the sub and the e-mail signs in', async () => {
    const { UserPool } = await idp.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'byemail', UsernameAttributes: ['email'] });
    const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string } }>('CreateUserPoolClient', {
      UserPoolId: UserPool.Id,
      ClientName: 'c',
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH'],
    });
    const { User } = await idp.ok<{ User: UserShape }>('AdminCreateUser', { UserPoolId: UserPool.Id, Username: 'Bob@Example.org' });
    expect(User.Username).toBe(attr(User.Attributes, 'sub'));
    expect(attr(User.Attributes, 'email')).toBe('Bob@Example.org');
    await idp.ok('AdminSetUserPassword', { UserPoolId: UserPool.Id, Username: 'bob@example.org', Password: PASSWORD, Permanent: true });
    const res = await signIn(idp, UserPoolClient.ClientId, 'bob@example.org');
    expect(res.status).toBe(200);
    expect((await idp.call('AdminCreateUser', { UserPoolId: UserPool.Id, Username: 'not-an-email' })).body.__type).toBe(
      'InvalidParameterException',
    );
    expect((await idp.call('AdminCreateUser', { UserPoolId: UserPool.Id, Username: 'BOB@example.org' })).body.__type).toBe(
      'UsernameExistsException',
    );
  });
});

describe('AdminGetUser / AdminUpdateUserAttributes / AdminDeleteUser', () => {
  it('reads the user with UserAttributes', async () => {
    await createAlice();
    const user = await idp.ok<UserShape>('AdminGetUser', { UserPoolId: poolId, Username: 'Alice' });
    expect(user.Username).toBe('alice');
    expect(attr(user.UserAttributes, 'email')).toBe('alice@example.org');
    expect((await idp.call('AdminGetUser', { UserPoolId: poolId, Username: 'nobody' })).body).toEqual({
      __type: 'UserNotFoundException',
      message: 'User does not exist.',
    });
  });

  it('updates attributes; a new e-mail becomes unverified; immutable custom attributes stay', async () => {
    await createAlice();
    await idp.ok('AdminUpdateUserAttributes', {
      UserPoolId: poolId,
      Username: 'alice',
      UserAttributes: [{ Name: 'email_verified', Value: 'true' }, { Name: 'name', Value: 'Alice A.' }],
    });
    await idp.ok('AdminUpdateUserAttributes', { UserPoolId: poolId, Username: 'alice', UserAttributes: [{ Name: 'email', Value: 'a2@example.org' }] });
    const user = await idp.ok<UserShape>('AdminGetUser', { UserPoolId: poolId, Username: 'alice' });
    expect(attr(user.UserAttributes, 'email')).toBe('a2@example.org');
    expect(attr(user.UserAttributes, 'email_verified')).toBe('false');
    expect(attr(user.UserAttributes, 'name')).toBe('Alice A.');

    await idp.ok('AddCustomAttributes', { UserPoolId: poolId, CustomAttributes: [{ Name: 'born', Mutable: false }] });
    await idp.ok('AdminUpdateUserAttributes', { UserPoolId: poolId, Username: 'alice', UserAttributes: [{ Name: 'custom:born', Value: '1990' }] });
    const again = await idp.call('AdminUpdateUserAttributes', {
      UserPoolId: poolId,
      Username: 'alice',
      UserAttributes: [{ Name: 'custom:born', Value: '1991' }],
    });
    expect(again.body.__type).toBe('InvalidParameterException');
    expect(
      (await idp.call('AdminUpdateUserAttributes', { UserPoolId: poolId, Username: 'nobody', UserAttributes: [] })).body.__type,
    ).toBe('UserNotFoundException');
  });

  it('deletes a user; the name can be reused', async () => {
    await idp.ok('AdminCreateUser', { UserPoolId: poolId, Username: 'temp' });
    await idp.ok('AdminDeleteUser', { UserPoolId: poolId, Username: 'temp' });
    expect((await idp.call('AdminGetUser', { UserPoolId: poolId, Username: 'temp' })).body.__type).toBe('UserNotFoundException');
    expect((await idp.call('AdminDeleteUser', { UserPoolId: poolId, Username: 'temp' })).body.__type).toBe('UserNotFoundException');
    await idp.ok('AdminCreateUser', { UserPoolId: poolId, Username: 'temp' });
  });
});

describe('AdminSetUserPassword / AdminEnableUser / AdminDisableUser', () => {
  it('a permanent password confirms the user; a temporary one forces a change', async () => {
    await idp.ok('AdminCreateUser', { UserPoolId: poolId, Username: 'carol' });
    await idp.ok('AdminSetUserPassword', { UserPoolId: poolId, Username: 'carol', Password: PASSWORD, Permanent: true });
    expect((await idp.ok<UserShape>('AdminGetUser', { UserPoolId: poolId, Username: 'carol' })).UserStatus).toBe('CONFIRMED');
    expect((await signIn(idp, clientId, 'carol')).status).toBe(200);
    await idp.ok('AdminSetUserPassword', { UserPoolId: poolId, Username: 'carol', Password: 'Other-pass-2' });
    expect((await idp.ok<UserShape>('AdminGetUser', { UserPoolId: poolId, Username: 'carol' })).UserStatus).toBe('FORCE_CHANGE_PASSWORD');
    expect((await idp.call('AdminSetUserPassword', { UserPoolId: poolId, Username: 'carol', Password: 'weak' })).body.__type).toBe(
      'InvalidPasswordException',
    );
    expect((await idp.call('AdminSetUserPassword', { UserPoolId: poolId, Username: 'nobody', Password: PASSWORD })).body.__type).toBe(
      'UserNotFoundException',
    );
  });

  it('disables and enables', async () => {
    await idp.ok('AdminCreateUser', { UserPoolId: poolId, Username: 'carol' });
    await idp.ok('AdminDisableUser', { UserPoolId: poolId, Username: 'carol' });
    expect((await idp.ok<UserShape>('AdminGetUser', { UserPoolId: poolId, Username: 'carol' })).Enabled).toBe(false);
    await idp.ok('AdminEnableUser', { UserPoolId: poolId, Username: 'carol' });
    expect((await idp.ok<UserShape>('AdminGetUser', { UserPoolId: poolId, Username: 'carol' })).Enabled).toBe(true);
    expect((await idp.call('AdminDisableUser', { UserPoolId: poolId, Username: 'nobody' })).body.__type).toBe('UserNotFoundException');
  });
});

describe('ListUsers', () => {
  let pool: string;
  // The listing pool of each test (in the test's fresh IdP), only read by the tests.
  beforeEach(async () => {
    pool = (await idp.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'listing' })).UserPool.Id;
    for (const [name, email] of [
      ['dave', 'dave@corp.example'],
      ['dan', 'dan@corp.example'],
      ['erin', 'erin@other.example'],
      ['frank', 'frank@corp.example'],
    ]) {
      await idp.ok('AdminCreateUser', { UserPoolId: pool, Username: name, UserAttributes: [{ Name: 'email', Value: email }] });
    }
    await idp.ok('AdminDisableUser', { UserPoolId: pool, Username: 'frank' });
  });
  const names = (r: { Users: UserShape[] }) => r.Users.map((u) => u.Username);

  it('filters with = and ^=, on status and user status', async () => {
    expect(names(await idp.ok('ListUsers', { UserPoolId: pool, Filter: 'email = "erin@other.example"' }))).toEqual(['erin']);
    expect(names(await idp.ok('ListUsers', { UserPoolId: pool, Filter: 'username ^= "da"' }))).toEqual(['dan', 'dave']);
    expect(names(await idp.ok('ListUsers', { UserPoolId: pool, Filter: 'status = "Disabled"' }))).toEqual(['frank']);
    expect(names(await idp.ok('ListUsers', { UserPoolId: pool, Filter: 'cognito:user_status = "FORCE_CHANGE_PASSWORD"' }))).toHaveLength(4);
    expect(names(await idp.ok('ListUsers', { UserPoolId: pool }))).toEqual(['dan', 'dave', 'erin', 'frank']);
  });

  it('refuses malformed filters and unsupported attributes', async () => {
    expect((await idp.call('ListUsers', { UserPoolId: pool, Filter: 'email erin' })).body.__type).toBe('InvalidParameterException');
    expect((await idp.call('ListUsers', { UserPoolId: pool, Filter: 'custom:x = "y"' })).body.__type).toBe('InvalidParameterException');
  });

  it('pages with Limit/PaginationToken and trims attributes with AttributesToGet', async () => {
    const first = await idp.ok<{ Users: UserShape[]; PaginationToken?: string }>('ListUsers', { UserPoolId: pool, Limit: 3, AttributesToGet: ['email'] });
    expect(names(first)).toEqual(['dan', 'dave', 'erin']);
    expect(first.Users[0]?.Attributes).toEqual([{ Name: 'email', Value: 'dan@corp.example' }]);
    const second = await idp.ok<{ Users: UserShape[]; PaginationToken?: string }>('ListUsers', {
      UserPoolId: pool,
      Limit: 3,
      PaginationToken: first.PaginationToken,
    });
    expect(names(second)).toEqual(['frank']);
    expect(second.PaginationToken).toBeUndefined();
  });
});
