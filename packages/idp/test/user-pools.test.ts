import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startIdp, type TestIdp } from './support/harness.js';

// A fresh IdP for every test: it sees only the pools it creates (and the harness's cached signing
// keys go to each IdP's first pools, where one IdP for the file needed a new key per pool).
let idp: TestIdp;
beforeEach(async () => {
  idp = await startIdp();
});
afterEach(() => idp.close());

interface PoolShape {
  Id: string;
  Name: string;
  Arn: string;
  Policies: { PasswordPolicy: Record<string, unknown> };
  SchemaAttributes: { Name: string }[];
  EstimatedNumberOfUsers: number;
  CreationDate: number;
}

describe('CreateUserPool / DescribeUserPool', () => {
  it('creates a pool with a local_ id, Cognito defaults and custom attributes', async () => {
    const { UserPool } = await idp.ok<{ UserPool: PoolShape }>('CreateUserPool', {
      PoolName: 'alpha',
      Schema: [{ Name: 'clearance', AttributeDataType: 'String' }, { Name: 'email', Required: true }],
    });
    expect(UserPool.Id).toMatch(/^local_[A-Za-z0-9]{8}$/);
    expect(UserPool.Arn).toBe(`arn:aws:cognito-idp:us-east-1:000000000000:userpool/${UserPool.Id}`);
    expect(UserPool.Policies.PasswordPolicy).toMatchObject({ MinimumLength: 8, RequireSymbols: true, TemporaryPasswordValidityDays: 7 });
    expect(UserPool.SchemaAttributes.map((a) => a.Name)).toContain('custom:clearance');
    expect(typeof UserPool.CreationDate).toBe('number');

    const described = await idp.ok<{ UserPool: PoolShape }>('DescribeUserPool', { UserPoolId: UserPool.Id });
    expect(described.UserPool.Name).toBe('alpha');
    expect(described.UserPool.EstimatedNumberOfUsers).toBe(0);
  });

  it('creates a signing key with the pool (JWKS is served at once)', async () => {
    const { UserPool } = await idp.ok<{ UserPool: PoolShape }>('CreateUserPool', { PoolName: 'keys' });
    const jwks = (await (await fetch(`${idp.base}/${UserPool.Id}/.well-known/jwks.json`)).json()) as { keys: { kid: string; alg: string; use: string }[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ alg: 'RS256', use: 'sig', kty: 'RSA' });
  });

  it('accepts a custom password policy and refuses MFA and bad names', async () => {
    const { UserPool } = await idp.ok<{ UserPool: PoolShape }>('CreateUserPool', {
      PoolName: 'relaxed',
      Policies: { PasswordPolicy: { MinimumLength: 12, RequireSymbols: false } },
    });
    expect(UserPool.Policies.PasswordPolicy).toMatchObject({ MinimumLength: 12, RequireSymbols: false, RequireNumbers: true });
    const mfa = await idp.call('CreateUserPool', { PoolName: 'mfa', MfaConfiguration: 'ON' });
    expect(mfa.body.__type).toBe('InvalidParameterException');
    const missing = await idp.call('CreateUserPool', {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      __type: 'InvalidParameterException',
      message: "1 validation error detected: Value null at 'poolName' failed to satisfy constraint: Member must not be null",
    });
    const tooShort = await idp.call('CreateUserPool', { PoolName: 'x', Policies: { PasswordPolicy: { MinimumLength: 2 } } });
    expect(tooShort.body.__type).toBe('InvalidParameterException');
  });

  it('DescribeUserPool of an unknown pool is ResourceNotFoundException', async () => {
    const res = await idp.call('DescribeUserPool', { UserPoolId: 'local_nothere1' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ __type: 'ResourceNotFoundException', message: 'User pool local_nothere1 does not exist.' });
    expect(res.headers.get('x-amzn-errortype')).toBe('ResourceNotFoundException:');
  });
});

describe('ListUserPools', () => {
  it('pages with MaxResults and NextToken', async () => {
    // Six pools of its own (three pages of two), whatever other tests created before or after.
    const created: string[] = [];
    for (let i = 0; i < 6; i++) created.push((await idp.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: `page-${i}` })).UserPool.Id);
    const all: string[] = [];
    let token: string | undefined;
    do {
      const page = await idp.ok<{ UserPools: { Id: string }[]; NextToken?: string }>('ListUserPools', {
        MaxResults: 2,
        ...(token ? { NextToken: token } : {}),
      });
      expect(page.UserPools.length).toBeLessThanOrEqual(2);
      all.push(...page.UserPools.map((p) => p.Id));
      token = page.NextToken;
    } while (token);
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBeGreaterThanOrEqual(6);
    expect(all).toEqual(expect.arrayContaining(created));
  });

  it('requires MaxResults and refuses a forged token', async () => {
    expect((await idp.call('ListUserPools', {})).body.__type).toBe('InvalidParameterException');
    expect((await idp.call('ListUserPools', { MaxResults: 5, NextToken: 'bogus' })).body.__type).toBe('InvalidParameterException');
  });
});

describe('DeleteUserPool / AddCustomAttributes', () => {
  it('deletes a pool with everything in it; its JWKS is then 404', async () => {
    const { UserPool } = await idp.ok<{ UserPool: PoolShape }>('CreateUserPool', { PoolName: 'doomed' });
    await idp.ok('AdminCreateUser', { UserPoolId: UserPool.Id, Username: 'someone' });
    await idp.ok('DeleteUserPool', { UserPoolId: UserPool.Id });
    expect((await idp.call('DescribeUserPool', { UserPoolId: UserPool.Id })).body.__type).toBe('ResourceNotFoundException');
    const jwks = await fetch(`${idp.base}/${UserPool.Id}/.well-known/jwks.json`);
    expect(jwks.status).toBe(404);
    expect(await jwks.json()).toMatchObject({ error: 'not_found' });
    expect((await idp.call('DeleteUserPool', { UserPoolId: UserPool.Id })).body.__type).toBe('ResourceNotFoundException');
  });

  it('honours deletion protection', async () => {
    const { UserPool } = await idp.ok<{ UserPool: PoolShape }>('CreateUserPool', { PoolName: 'kept', DeletionProtection: 'ACTIVE' });
    const res = await idp.call('DeleteUserPool', { UserPoolId: UserPool.Id });
    expect(res.body).toMatchObject({ __type: 'InvalidParameterException' });
  });

  it('adds custom attributes once', async () => {
    const { UserPool } = await idp.ok<{ UserPool: PoolShape }>('CreateUserPool', { PoolName: 'custom' });
    await idp.ok('AddCustomAttributes', { UserPoolId: UserPool.Id, CustomAttributes: [{ Name: 'nationality', AttributeDataType: 'String' }] });
    const again = await idp.call('AddCustomAttributes', { UserPoolId: UserPool.Id, CustomAttributes: [{ Name: 'nationality' }] });
    expect(again.body.__type).toBe('InvalidParameterException');
    const { UserPool: d } = await idp.ok<{ UserPool: PoolShape }>('DescribeUserPool', { UserPoolId: UserPool.Id });
    expect(d.SchemaAttributes.map((a) => a.Name)).toContain('custom:nationality');
  });
});
