/**
 * CreateUserPool, DescribeUserPool, ListUserPools, UpdateUserPool, DeleteUserPool,
 * AddCustomAttributes. UpdateUserPool replaces the updatable settings as Cognito does: one left out
 * of the request returns to its default. The name, schema, sign-in attributes and case sensitivity
 * cannot be changed (as in Cognito).
 */
import type { IdpContext } from '../../context.js';
import { DEFAULT_PASSWORD_POLICY, type PasswordPolicy } from '../../crypto/password-policy.js';
import { newPoolId } from '../../crypto/random.js';
import { invalidParameter } from '../../errors.js';
import { installKey } from '../../keys/key-store.js';
import { STANDARD_ATTRIBUTES } from '../../model/attributes.js';
import {
  countUsers,
  deletePool,
  findPool,
  insertPool,
  listPools,
  requirePool,
  updatePoolConfig,
  type AttributeDataType,
  type CustomAttribute,
  type Pool,
  type PoolConfig,
} from '../../model/pools.js';
import { operation } from '../operation.js';
import { paginate } from '../pagination.js';
import { arr, bool, enumOf, int, NextToken, obj, str, strMap, UserPoolId } from '../schema.js';
import { userPoolDescription, userPoolShape } from '../shapes.js';

interface SchemaAttributeInput {
  Name: string;
  AttributeDataType?: AttributeDataType;
  Mutable?: boolean;
}

export interface CreateUserPoolRequest {
  PoolName: string;
  Policies?: { PasswordPolicy?: Partial<PasswordPolicy> };
  Schema?: SchemaAttributeInput[];
  UsernameAttributes?: string[];
  AliasAttributes?: string[];
  AutoVerifiedAttributes?: string[];
  UsernameConfiguration?: { CaseSensitive?: boolean };
  DeletionProtection?: 'ACTIVE' | 'INACTIVE';
  AdminCreateUserConfig?: { AllowAdminCreateUserOnly?: boolean };
  UserPoolTags?: Record<string, string>;
  MfaConfiguration?: string;
}

const SchemaAttribute = obj(
  { Name: str(1, 20, '^[\\p{L}\\p{M}\\p{S}\\p{N}\\p{P}]+$'), AttributeDataType: enumOf('String', 'Number', 'DateTime', 'Boolean'), Mutable: bool },
  ['Name'],
);
const PasswordPolicySchema = obj({
  MinimumLength: int(6, 99),
  RequireUppercase: bool,
  RequireLowercase: bool,
  RequireNumbers: bool,
  RequireSymbols: bool,
  TemporaryPasswordValidityDays: int(0, 365),
});

/** The request fields of the settings UpdateUserPool can change (`updatableSettings`). */
const UpdatableSettings = {
  Policies: obj({ PasswordPolicy: PasswordPolicySchema }),
  AutoVerifiedAttributes: arr(enumOf('email', 'phone_number'), 2),
  DeletionProtection: enumOf('ACTIVE', 'INACTIVE'),
  AdminCreateUserConfig: obj({ AllowAdminCreateUserOnly: bool }),
  UserPoolTags: strMap(256),
  MfaConfiguration: enumOf('OFF', 'ON', 'OPTIONAL'),
};

const CreateUserPoolBody = obj(
  {
    PoolName: str(1, 128, '^[\\w\\s+=,.@-]+$'),
    ...UpdatableSettings,
    Schema: arr(SchemaAttribute, 50),
    UsernameAttributes: arr(enumOf('email', 'phone_number'), 2),
    AliasAttributes: arr(enumOf('email', 'phone_number', 'preferred_username'), 3),
    UsernameConfiguration: obj({ CaseSensitive: bool }),
  },
  ['PoolName'],
);

/** Defaults of the settings CreateUserPool and UpdateUserPool share. */
function updatableSettings(req: Pick<CreateUserPoolRequest, 'Policies' | 'AutoVerifiedAttributes' | 'DeletionProtection' | 'AdminCreateUserConfig' | 'UserPoolTags' | 'MfaConfiguration'>) {
  if (req.MfaConfiguration && req.MfaConfiguration !== 'OFF') throw invalidParameter('Only MfaConfiguration OFF is supported.');
  return {
    PasswordPolicy: { ...DEFAULT_PASSWORD_POLICY, ...req.Policies?.PasswordPolicy },
    AutoVerifiedAttributes: req.AutoVerifiedAttributes ?? [],
    DeletionProtection: req.DeletionProtection ?? 'INACTIVE',
    // Cognito's API default is false; this IdP's is true, so a pool takes self-registration only when asked to.
    AllowAdminCreateUserOnly: req.AdminCreateUserConfig?.AllowAdminCreateUserOnly ?? true,
    UserPoolTags: req.UserPoolTags ?? {},
  } satisfies Partial<PoolConfig>;
}

/** Custom attributes of a `Schema` list; standard attribute entries are accepted and change nothing. */
function customAttributes(schema: readonly SchemaAttributeInput[]): CustomAttribute[] {
  const out: CustomAttribute[] = [];
  for (const a of schema) {
    const name = a.Name.startsWith('custom:') ? a.Name.slice('custom:'.length) : a.Name;
    if (!a.Name.startsWith('custom:') && name in STANDARD_ATTRIBUTES) continue;
    if (out.some((c) => c.Name === name)) throw invalidParameter(`Duplicate attribute name: custom:${name}`);
    out.push({ Name: name, AttributeDataType: a.AttributeDataType ?? 'String', Mutable: a.Mutable ?? true });
  }
  return out;
}

/** Creates a pool and its first signing key. `fixedId` is for the seed file. */
export async function createUserPool(ctx: IdpContext, req: CreateUserPoolRequest, fixedId?: string): Promise<Pool> {
  if (req.UsernameAttributes?.length && req.AliasAttributes?.length)
    throw invalidParameter('UsernameAttributes and AliasAttributes cannot both be set.');
  const config: PoolConfig = {
    ...updatableSettings(req),
    CustomAttributes: customAttributes(req.Schema ?? []),
    UsernameAttributes: req.UsernameAttributes ?? [],
    AliasAttributes: req.AliasAttributes ?? [],
    CaseSensitive: req.UsernameConfiguration?.CaseSensitive ?? false,
  };
  const key = await ctx.keys.newKey();
  const now = ctx.now();
  return ctx.db.tx(() => {
    let id = fixedId ?? newPoolId();
    while (!fixedId && findPool(ctx.db, id)) id = newPoolId();
    if (findPool(ctx.db, id)) throw invalidParameter(`User pool ${id} already exists.`);
    const pool: Pool = { id, name: req.PoolName, config, createdAt: now, updatedAt: now };
    insertPool(ctx.db, pool);
    installKey(ctx.db, id, key, now);
    return pool;
  });
}

export function addCustomAttributes(ctx: IdpContext, poolId: string, schema: SchemaAttributeInput[]): void {
  const pool = requirePool(ctx.db, poolId);
  const added = customAttributes(schema);
  for (const a of added) {
    if (pool.config.CustomAttributes.some((c) => c.Name === a.Name))
      throw invalidParameter(`custom:${a.Name}: Existing attribute already has name custom:${a.Name}.`);
  }
  updatePoolConfig(ctx.db, poolId, { ...pool.config, CustomAttributes: [...pool.config.CustomAttributes, ...added] }, ctx.now());
}

export const userPoolOperations = [
  operation<CreateUserPoolRequest>('CreateUserPool', true, CreateUserPoolBody, async (ctx, body) => ({
    UserPool: userPoolShape(ctx, await createUserPool(ctx, body), 0),
  })),

  operation<{ UserPoolId: string }>('DescribeUserPool', true, obj({ UserPoolId }, ['UserPoolId']), (ctx, body) => {
    const pool = requirePool(ctx.db, body.UserPoolId);
    return { UserPool: userPoolShape(ctx, pool, countUsers(ctx.db, pool.id)) };
  }),

  operation<{ MaxResults: number; NextToken?: string }>(
    'ListUserPools',
    true,
    obj({ MaxResults: int(1, 60), NextToken }, ['MaxResults']),
    (ctx, body) => {
      const page = paginate(listPools(ctx.db), (p) => p.id, body.MaxResults, body.NextToken);
      return { UserPools: page.items.map(userPoolDescription), ...(page.next ? { NextToken: page.next } : {}) };
    },
  ),

  operation<Parameters<typeof updatableSettings>[0] & { UserPoolId: string }>(
    'UpdateUserPool',
    true,
    obj({ ...UpdatableSettings, UserPoolId }, ['UserPoolId']),
    (ctx, body) => {
      const pool = requirePool(ctx.db, body.UserPoolId);
      updatePoolConfig(ctx.db, pool.id, { ...pool.config, ...updatableSettings(body) }, ctx.now());
      return {};
    },
  ),

  operation<{ UserPoolId: string }>('DeleteUserPool', true, obj({ UserPoolId }, ['UserPoolId']), (ctx, body) => {
    const pool = requirePool(ctx.db, body.UserPoolId);
    if (pool.config.DeletionProtection === 'ACTIVE')
      throw invalidParameter('The user pool cannot be deleted because deletion protection is activated.');
    deletePool(ctx.db, pool.id);
    return {};
  }),

  operation<{ UserPoolId: string; CustomAttributes: SchemaAttributeInput[] }>(
    'AddCustomAttributes',
    true,
    obj({ UserPoolId, CustomAttributes: { ...arr(SchemaAttribute, 25), minItems: 1 } }, ['UserPoolId', 'CustomAttributes']),
    (ctx, body) => {
      addCustomAttributes(ctx, body.UserPoolId, body.CustomAttributes);
      return {};
    },
  ),
];
