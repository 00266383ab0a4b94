import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdp, type TestIdp } from './support/harness.js';

let idp: TestIdp;
let poolId: string;
beforeAll(async () => {
  idp = await startIdp();
  poolId = (await idp.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'clients' })).UserPool.Id;
});
afterAll(() => idp.close());

interface ClientShape {
  ClientId: string;
  ClientSecret?: string;
  UserPoolId: string;
  ClientName: string;
  AccessTokenValidity: number;
  IdTokenValidity: number;
  RefreshTokenValidity: number;
  TokenValidityUnits: Record<string, string>;
  ExplicitAuthFlows: string[];
}

describe('CreateUserPoolClient / DescribeUserPoolClient', () => {
  it('creates a public client with AWS defaults (60 minutes, refresh 30 days)', async () => {
    const { UserPoolClient: c } = await idp.ok<{ UserPoolClient: ClientShape }>('CreateUserPoolClient', { UserPoolId: poolId, ClientName: 'web' });
    expect(c.ClientId).toMatch(/^[a-z0-9]{26}$/);
    expect(c.ClientSecret).toBeUndefined();
    expect(c).toMatchObject({
      AccessTokenValidity: 60,
      IdTokenValidity: 60,
      RefreshTokenValidity: 30,
      TokenValidityUnits: { AccessToken: 'minutes', IdToken: 'minutes', RefreshToken: 'days' },
      ExplicitAuthFlows: ['ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH', 'ALLOW_CUSTOM_AUTH'],
    });
    const { UserPoolClient: d } = await idp.ok<{ UserPoolClient: ClientShape }>('DescribeUserPoolClient', {
      UserPoolId: poolId,
      ClientId: c.ClientId,
    });
    expect(d).toEqual(c);
  });

  it('generates a secret on request and reads validity without units as hours/days', async () => {
    const { UserPoolClient: c } = await idp.ok<{ UserPoolClient: ClientShape }>('CreateUserPoolClient', {
      UserPoolId: poolId,
      ClientName: 'backend',
      GenerateSecret: true,
      AccessTokenValidity: 2,
      IdTokenValidity: 3,
      RefreshTokenValidity: 7,
    });
    expect(c.ClientSecret).toMatch(/^[a-z0-9]{51}$/);
    expect(c.TokenValidityUnits).toEqual({ AccessToken: 'hours', IdToken: 'hours', RefreshToken: 'days' });
  });

  it('refuses lifetimes outside Cognito bounds, unsupported flows and plain-http callback URLs', async () => {
    const tooLong = await idp.call('CreateUserPoolClient', {
      UserPoolId: poolId,
      ClientName: 'x',
      IdTokenValidity: 2,
      TokenValidityUnits: { IdToken: 'days' },
    });
    expect(tooLong.body.__type).toBe('InvalidParameterException');
    const implicit = await idp.call('CreateUserPoolClient', { UserPoolId: poolId, ClientName: 'x', AllowedOAuthFlows: ['implicit'] });
    expect(implicit.body.__type).toBe('InvalidParameterException');
    const http = await idp.call('CreateUserPoolClient', {
      UserPoolId: poolId,
      ClientName: 'x',
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      CallbackURLs: ['http://example.com/cb'],
    });
    expect(http.body.__type).toBe('InvalidParameterException');
    const badFlow = await idp.call('CreateUserPoolClient', { UserPoolId: poolId, ClientName: 'x', ExplicitAuthFlows: ['MAGIC'] });
    expect(badFlow.body.__type).toBe('InvalidParameterException');
  });

  it('unknown pool or client → ResourceNotFoundException; a client of another pool is not found', async () => {
    expect((await idp.call('CreateUserPoolClient', { UserPoolId: 'local_missing1', ClientName: 'x' })).body.__type).toBe(
      'ResourceNotFoundException',
    );
    const other = (await idp.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'other' })).UserPool.Id;
    const { UserPoolClient: c } = await idp.ok<{ UserPoolClient: ClientShape }>('CreateUserPoolClient', { UserPoolId: other, ClientName: 'o' });
    expect((await idp.call('DescribeUserPoolClient', { UserPoolId: poolId, ClientId: c.ClientId })).body.__type).toBe(
      'ResourceNotFoundException',
    );
  });
});

describe('ListUserPoolClients / DeleteUserPoolClient', () => {
  it('lists with paging and deletes', async () => {
    const pool = (await idp.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'list' })).UserPool.Id;
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      ids.push((await idp.ok<{ UserPoolClient: ClientShape }>('CreateUserPoolClient', { UserPoolId: pool, ClientName: name })).UserPoolClient.ClientId);
    }
    const first = await idp.ok<{ UserPoolClients: { ClientId: string; ClientName: string; UserPoolId: string }[]; NextToken?: string }>(
      'ListUserPoolClients',
      { UserPoolId: pool, MaxResults: 2 },
    );
    expect(first.UserPoolClients).toHaveLength(2);
    expect(first.NextToken).toBeDefined();
    const second = await idp.ok<{ UserPoolClients: { ClientId: string }[]; NextToken?: string }>('ListUserPoolClients', {
      UserPoolId: pool,
      MaxResults: 2,
      NextToken: first.NextToken,
    });
    expect(second.UserPoolClients).toHaveLength(1);
    expect(second.NextToken).toBeUndefined();
    expect([...first.UserPoolClients, ...second.UserPoolClients].map((c) => c.ClientId).sort()).toEqual([...ids].sort());

    await idp.ok('DeleteUserPoolClient', { UserPoolId: pool, ClientId: ids[0] });
    const after = await idp.ok<{ UserPoolClients: unknown[] }>('ListUserPoolClients', { UserPoolId: pool });
    expect(after.UserPoolClients).toHaveLength(2);
    expect((await idp.call('DeleteUserPoolClient', { UserPoolId: pool, ClientId: ids[0] })).body.__type).toBe('ResourceNotFoundException');
  });
});
