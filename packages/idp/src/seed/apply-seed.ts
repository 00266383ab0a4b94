/**
 * Applies a seed document idempotently through the same functions as the Cognito API (so the same
 * validation applies): missing pools, clients, groups and users are created with the file's fixed
 * ids; existing ones are brought in line with the file (client settings, group descriptions, user
 * attributes, enabled flag, and the password when it no longer matches). Nothing is deleted, and
 * memberships are only added.
 */
import type { IdpContext } from '../context.js';
import { verifyPassword } from '../crypto/password.js';
import { adminAddUserToGroup, createGroup } from '../cognito/ops/groups.js';
import { clientConfig, createUserPoolClient, type CreateUserPoolClientRequest } from '../cognito/ops/user-pool-clients.js';
import { addCustomAttributes, createUserPool } from '../cognito/ops/user-pools.js';
import { adminCreateUser, adminSetUserPassword, adminUpdateUserAttributes } from '../cognito/ops/users.js';
import { findClient, updateClient } from '../model/clients.js';
import { findGroup } from '../model/groups.js';
import { findPool, requirePool } from '../model/pools.js';
import { findUser, saveUser } from '../model/users.js';
import { SeedError, type SeedClient, type SeedDocument, type SeedPool, type SeedUser } from './seed-schema.js';

export interface SeedReport {
  pools: { id: string; created: boolean; clients: string[]; users: { username: string; created: boolean }[] }[];
}

function clientRequest(poolId: string, c: SeedClient): CreateUserPoolClientRequest {
  const oauth = (c.oauthFlows ?? []).length > 0;
  return {
    UserPoolId: poolId,
    ClientName: c.name,
    ExplicitAuthFlows: c.explicitAuthFlows ?? ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
    CallbackURLs: c.callbackUrls ?? [],
    LogoutURLs: c.logoutUrls ?? [],
    AllowedOAuthFlows: c.oauthFlows ?? [],
    AllowedOAuthScopes: c.oauthScopes ?? (oauth ? ['openid', 'email', 'profile'] : []),
    AllowedOAuthFlowsUserPoolClient: oauth,
    IdTokenValidity: c.idTokenValidityMinutes ?? 60,
    AccessTokenValidity: c.accessTokenValidityMinutes ?? 60,
    RefreshTokenValidity: c.refreshTokenValidityDays ?? 30,
    TokenValidityUnits: { IdToken: 'minutes', AccessToken: 'minutes', RefreshToken: 'days' },
  };
}

async function seedPool(ctx: IdpContext, p: SeedPool): Promise<SeedReport['pools'][number]> {
  let created = false;
  if (!findPool(ctx.db, p.id)) {
    const pp = p.passwordPolicy;
    await createUserPool(
      ctx,
      {
        PoolName: p.name,
        UsernameAttributes: p.usernameAttributes,
        Schema: (p.customAttributes ?? []).map((Name) => ({ Name, AttributeDataType: 'String', Mutable: true })),
        Policies: pp && {
          PasswordPolicy: {
            ...(pp.minimumLength !== undefined ? { MinimumLength: pp.minimumLength } : {}),
            ...(pp.requireUppercase !== undefined ? { RequireUppercase: pp.requireUppercase } : {}),
            ...(pp.requireLowercase !== undefined ? { RequireLowercase: pp.requireLowercase } : {}),
            ...(pp.requireNumbers !== undefined ? { RequireNumbers: pp.requireNumbers } : {}),
            ...(pp.requireSymbols !== undefined ? { RequireSymbols: pp.requireSymbols } : {}),
          },
        },
      },
      p.id,
    );
    created = true;
  } else {
    const declared = requirePool(ctx.db, p.id).config.CustomAttributes.map((a) => a.Name);
    const missing = (p.customAttributes ?? []).filter((n) => !declared.includes(n));
    if (missing.length) addCustomAttributes(ctx, p.id, missing.map((Name) => ({ Name })));
  }

  for (const c of p.clients ?? []) {
    const existing = findClient(ctx.db, c.id);
    const request = clientRequest(p.id, c);
    if (!existing) createUserPoolClient(ctx, request, { id: c.id, ...(c.secret ? { secret: c.secret } : {}) });
    else if (existing.poolId !== p.id) throw new SeedError(`client ${c.id} already belongs to pool ${existing.poolId}`);
    else updateClient(ctx.db, { ...existing, name: c.name, config: clientConfig(request), updatedAt: ctx.now() });
  }

  for (const g of p.groups ?? []) {
    if (!findGroup(ctx.db, p.id, g.name))
      createGroup(ctx, { UserPoolId: p.id, GroupName: g.name, Description: g.description, Precedence: g.precedence });
  }

  const users: { username: string; created: boolean }[] = [];
  for (const u of p.users ?? []) users.push({ username: u.username, created: await seedUser(ctx, p.id, u) });
  return { id: p.id, created, clients: (p.clients ?? []).map((c) => c.id), users };
}

async function seedUser(ctx: IdpContext, poolId: string, u: SeedUser): Promise<boolean> {
  const pool = requirePool(ctx.db, poolId);
  const attributes = Object.entries(u.attributes ?? {}).map(([Name, Value]) => ({ Name, Value }));
  let user = findUser(ctx.db, pool, u.username);
  const created = !user;
  if (!user) {
    await adminCreateUser(ctx, { UserPoolId: poolId, Username: u.username, UserAttributes: attributes, MessageAction: 'SUPPRESS' }, { notify: false });
  } else if (attributes.length > 0) {
    adminUpdateUserAttributes(ctx, poolId, u.username, attributes);
  }
  user = findUser(ctx.db, pool, u.username);
  const permanent = u.permanent ?? true;
  const wanted = permanent ? 'CONFIRMED' : 'FORCE_CHANGE_PASSWORD';
  if (!user?.passwordHash || !user.srpVerifier || user.status !== wanted || !(await verifyPassword(u.password, user.passwordHash)))
    await adminSetUserPassword(ctx, poolId, u.username, u.password, permanent);
  user = findUser(ctx.db, pool, u.username);
  if (user && user.enabled !== (u.enabled ?? true)) saveUser(ctx.db, { ...user, enabled: u.enabled ?? true, updatedAt: ctx.now() });
  for (const g of u.groups ?? []) adminAddUserToGroup(ctx, poolId, u.username, g);
  // Told once the user has its groups, so a provisioning rule can act on them at once.
  if (created && user) ctx.notifyUserCreated(poolId, findUser(ctx.db, pool, u.username) ?? user);
  return created;
}

export async function applySeed(ctx: IdpContext, seed: SeedDocument): Promise<SeedReport> {
  const report: SeedReport = { pools: [] };
  for (const p of seed.pools) report.pools.push(await seedPool(ctx, p));
  return report;
}
