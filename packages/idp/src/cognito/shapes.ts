/** Rows → the AWS response shapes (dates are epoch seconds, as in the AWS JSON protocol). */
import type { IdpContext } from '../context.js';
import { STANDARD_ATTRIBUTES, toAttributeList } from '../model/attributes.js';
import type { Client } from '../model/clients.js';
import type { Group } from '../model/groups.js';
import type { Pool } from '../model/pools.js';
import type { User } from '../model/users.js';

export const epochSeconds = (ms: number): number => ms / 1000;

export const poolArn = (ctx: IdpContext, poolId: string): string =>
  `arn:aws:cognito-idp:${ctx.region}:${ctx.accountId}:userpool/${poolId}`;

export function userPoolShape(ctx: IdpContext, pool: Pool, estimatedUsers: number): object {
  const c = pool.config;
  return {
    Id: pool.id,
    Name: pool.name,
    Arn: poolArn(ctx, pool.id),
    Policies: { PasswordPolicy: c.PasswordPolicy },
    DeletionProtection: c.DeletionProtection,
    LambdaConfig: {},
    LastModifiedDate: epochSeconds(pool.updatedAt),
    CreationDate: epochSeconds(pool.createdAt),
    SchemaAttributes: [
      ...Object.entries(STANDARD_ATTRIBUTES).map(([Name, AttributeDataType]) => ({
        Name,
        AttributeDataType,
        DeveloperOnlyAttribute: false,
        Mutable: Name !== 'sub',
        Required: Name === 'sub',
      })),
      ...c.CustomAttributes.map((a) => ({
        Name: `custom:${a.Name}`,
        AttributeDataType: a.AttributeDataType,
        DeveloperOnlyAttribute: false,
        Mutable: a.Mutable,
        Required: false,
      })),
    ],
    AutoVerifiedAttributes: c.AutoVerifiedAttributes,
    ...(c.UsernameAttributes.length ? { UsernameAttributes: c.UsernameAttributes } : {}),
    ...(c.AliasAttributes.length ? { AliasAttributes: c.AliasAttributes } : {}),
    UsernameConfiguration: { CaseSensitive: c.CaseSensitive },
    MfaConfiguration: 'OFF',
    EstimatedNumberOfUsers: estimatedUsers,
    AdminCreateUserConfig: { AllowAdminCreateUserOnly: c.AllowAdminCreateUserOnly },
    UserPoolTags: c.UserPoolTags,
  };
}

export const userPoolDescription = (pool: Pool): object => ({
  Id: pool.id,
  Name: pool.name,
  LambdaConfig: {},
  LastModifiedDate: epochSeconds(pool.updatedAt),
  CreationDate: epochSeconds(pool.createdAt),
});

export function clientShape(client: Client): object {
  const c = client.config;
  return {
    UserPoolId: client.poolId,
    ClientName: client.name,
    ClientId: client.id,
    ...(client.secret ? { ClientSecret: client.secret } : {}),
    LastModifiedDate: epochSeconds(client.updatedAt),
    CreationDate: epochSeconds(client.createdAt),
    RefreshTokenValidity: c.RefreshTokenValidity,
    AccessTokenValidity: c.AccessTokenValidity,
    IdTokenValidity: c.IdTokenValidity,
    TokenValidityUnits: c.TokenValidityUnits,
    ExplicitAuthFlows: c.ExplicitAuthFlows,
    SupportedIdentityProviders: c.SupportedIdentityProviders,
    CallbackURLs: c.CallbackURLs,
    LogoutURLs: c.LogoutURLs,
    AllowedOAuthFlows: c.AllowedOAuthFlows,
    AllowedOAuthScopes: c.AllowedOAuthScopes,
    AllowedOAuthFlowsUserPoolClient: c.AllowedOAuthFlowsUserPoolClient,
    PreventUserExistenceErrors: 'ENABLED',
    EnableTokenRevocation: c.EnableTokenRevocation,
    EnablePropagateAdditionalUserContextData: false,
    AuthSessionValidity: c.AuthSessionValidity,
  };
}

/** `UserType` (ListUsers, AdminCreateUser, ListUsersInGroup); `attributes` limits the attributes returned. */
export function userShape(user: User, attributes?: readonly string[]): object {
  const list = toAttributeList(user.sub, user.attributes);
  return {
    Username: user.username,
    Attributes: attributes ? list.filter((a) => attributes.includes(a.Name)) : list,
    UserCreateDate: epochSeconds(user.createdAt),
    UserLastModifiedDate: epochSeconds(user.updatedAt),
    Enabled: user.enabled,
    UserStatus: user.status,
  };
}

export const groupShape = (g: Group): object => ({
  GroupName: g.name,
  UserPoolId: g.poolId,
  ...(g.description !== null ? { Description: g.description } : {}),
  ...(g.roleArn !== null ? { RoleArn: g.roleArn } : {}),
  ...(g.precedence !== null ? { Precedence: g.precedence } : {}),
  LastModifiedDate: epochSeconds(g.updatedAt),
  CreationDate: epochSeconds(g.createdAt),
});
