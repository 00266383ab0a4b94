/**
 * CreateUserPoolClient, DescribeUserPoolClient, ListUserPoolClients, UpdateUserPoolClient,
 * DeleteUserPoolClient. UpdateUserPoolClient replaces every setting as Cognito does: a setting left
 * out of the request returns to its default (the name and the secret stay).
 */
import type { IdpContext } from '../../context.js';
import { newClientId, newClientSecret } from '../../crypto/random.js';
import { invalidParameter } from '../../errors.js';
import {
  checkLifetimes,
  deleteClient,
  findClient,
  insertClient,
  listClients,
  requirePoolClient,
  updateClient,
  type Client,
  type ClientConfig,
  type TokenValidityUnits,
  type ValidityUnit,
} from '../../model/clients.js';
import { requirePool } from '../../model/pools.js';
import { operation } from '../operation.js';
import { paginate } from '../pagination.js';
import { arr, bool, ClientId, enumOf, int, Limit, NextToken, obj, str, UserPoolId } from '../schema.js';
import { clientShape } from '../shapes.js';

export const AUTH_FLOWS = [
  'ADMIN_NO_SRP_AUTH',
  'CUSTOM_AUTH_FLOW_ONLY',
  'USER_PASSWORD_AUTH',
  'ALLOW_ADMIN_USER_PASSWORD_AUTH',
  'ALLOW_CUSTOM_AUTH',
  'ALLOW_USER_PASSWORD_AUTH',
  'ALLOW_USER_SRP_AUTH',
  'ALLOW_REFRESH_TOKEN_AUTH',
  'ALLOW_USER_AUTH',
];
export const OAUTH_SCOPES = ['openid', 'email', 'phone', 'profile', 'aws.cognito.signin.user.admin'];

export interface CreateUserPoolClientRequest {
  UserPoolId: string;
  ClientName: string;
  GenerateSecret?: boolean;
  RefreshTokenValidity?: number;
  AccessTokenValidity?: number;
  IdTokenValidity?: number;
  TokenValidityUnits?: Partial<TokenValidityUnits>;
  ExplicitAuthFlows?: string[];
  SupportedIdentityProviders?: string[];
  CallbackURLs?: string[];
  LogoutURLs?: string[];
  AllowedOAuthFlows?: string[];
  AllowedOAuthScopes?: string[];
  AllowedOAuthFlowsUserPoolClient?: boolean;
  EnableTokenRevocation?: boolean;
  AuthSessionValidity?: number;
}

const Unit = enumOf('seconds', 'minutes', 'hours', 'days');
const Url = str(1, 1024);
const ClientSettings = {
    UserPoolId,
    ClientName: str(1, 128, '^[\\w\\s+=,.@-]+$'),
    RefreshTokenValidity: int(0, 315_360_000),
    AccessTokenValidity: int(1, 86_400),
    IdTokenValidity: int(1, 86_400),
    TokenValidityUnits: obj({ AccessToken: Unit, IdToken: Unit, RefreshToken: Unit }),
    ExplicitAuthFlows: arr(enumOf(...AUTH_FLOWS), 10),
    SupportedIdentityProviders: arr(str(1, 32), 10),
    CallbackURLs: arr(Url, 100),
    LogoutURLs: arr(Url, 100),
    AllowedOAuthFlows: arr(enumOf('code', 'implicit', 'client_credentials'), 3),
    AllowedOAuthScopes: arr(str(1, 256), 50),
    AllowedOAuthFlowsUserPoolClient: bool,
    EnableTokenRevocation: bool,
    AuthSessionValidity: int(3, 15),
};
const CreateUserPoolClientBody = obj({ ...ClientSettings, GenerateSecret: bool }, ['UserPoolId', 'ClientName']);
const UpdateUserPoolClientBody = obj({ ...ClientSettings, ClientId }, ['UserPoolId', 'ClientId']);

/** A callback URL must be https, or http on a loopback host (as Cognito). */
function checkRedirectUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidParameter(`Invalid URL: ${url}`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  if (parsed.hash) throw invalidParameter(`A redirect URL cannot contain a fragment: ${url}`);
  if (parsed.protocol === 'http:' && !loopback) throw invalidParameter(`A redirect URL must use https except for localhost: ${url}`);
}

export function clientConfig(req: CreateUserPoolClientRequest): ClientConfig {
  // Cognito: without TokenValidityUnits, access/ID validities are hours and refresh days; when no
  // validity is given at all, access and ID tokens live 60 minutes and refresh tokens 30 days.
  const units: TokenValidityUnits = {
    AccessToken: (req.TokenValidityUnits?.AccessToken ?? (req.AccessTokenValidity ? 'hours' : 'minutes')) as ValidityUnit,
    IdToken: (req.TokenValidityUnits?.IdToken ?? (req.IdTokenValidity ? 'hours' : 'minutes')) as ValidityUnit,
    RefreshToken: req.TokenValidityUnits?.RefreshToken ?? 'days',
  };
  const flows = req.AllowedOAuthFlows ?? [];
  if (flows.some((f) => f !== 'code')) throw invalidParameter('Only the authorization code flow (code) is supported.');
  const scopes = req.AllowedOAuthScopes ?? [];
  for (const s of scopes) if (!OAUTH_SCOPES.includes(s)) throw invalidParameter(`Unsupported OAuth scope: ${s}`);
  for (const u of [...(req.CallbackURLs ?? []), ...(req.LogoutURLs ?? [])]) checkRedirectUrl(u);
  if (req.AllowedOAuthFlowsUserPoolClient && (flows.length === 0 || (req.CallbackURLs ?? []).length === 0))
    throw invalidParameter('AllowedOAuthFlows and CallbackURLs are required when AllowedOAuthFlowsUserPoolClient is true.');
  const config: ClientConfig = {
    ExplicitAuthFlows: req.ExplicitAuthFlows ?? ['ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH', 'ALLOW_CUSTOM_AUTH'],
    AccessTokenValidity: req.AccessTokenValidity ?? (units.AccessToken === 'minutes' ? 60 : 1),
    IdTokenValidity: req.IdTokenValidity ?? (units.IdToken === 'minutes' ? 60 : 1),
    RefreshTokenValidity: req.RefreshTokenValidity || 30,
    TokenValidityUnits: units,
    CallbackURLs: req.CallbackURLs ?? [],
    LogoutURLs: req.LogoutURLs ?? [],
    AllowedOAuthFlows: flows,
    AllowedOAuthScopes: scopes,
    AllowedOAuthFlowsUserPoolClient: req.AllowedOAuthFlowsUserPoolClient ?? false,
    SupportedIdentityProviders: req.SupportedIdentityProviders ?? ['COGNITO'],
    EnableTokenRevocation: req.EnableTokenRevocation ?? true,
    AuthSessionValidity: req.AuthSessionValidity ?? 3,
  };
  checkLifetimes(config);
  return config;
}

/** Creates an app client; the seed passes a fixed id (and may pass a fixed secret). */
export function createUserPoolClient(
  ctx: IdpContext,
  req: CreateUserPoolClientRequest,
  fixed?: { id: string; secret?: string },
): Client {
  requirePool(ctx.db, req.UserPoolId);
  const config = clientConfig(req);
  const now = ctx.now();
  return ctx.db.tx(() => {
    let id = fixed?.id ?? newClientId();
    while (!fixed && findClient(ctx.db, id)) id = newClientId();
    if (findClient(ctx.db, id)) throw invalidParameter(`User pool client ${id} already exists.`);
    const client: Client = {
      id,
      poolId: req.UserPoolId,
      name: req.ClientName,
      secret: fixed?.secret ?? (req.GenerateSecret ? newClientSecret() : null),
      config,
      createdAt: now,
      updatedAt: now,
    };
    insertClient(ctx.db, client);
    return client;
  });
}

export const userPoolClientOperations = [
  operation<CreateUserPoolClientRequest>('CreateUserPoolClient', true, CreateUserPoolClientBody, (ctx, body) => ({
    UserPoolClient: clientShape(createUserPoolClient(ctx, body)),
  })),

  operation<{ UserPoolId: string; ClientId: string }>(
    'DescribeUserPoolClient',
    true,
    obj({ UserPoolId, ClientId }, ['UserPoolId', 'ClientId']),
    (ctx, body) => {
      requirePool(ctx.db, body.UserPoolId);
      return { UserPoolClient: clientShape(requirePoolClient(ctx.db, body.UserPoolId, body.ClientId)) };
    },
  ),

  operation<{ UserPoolId: string; MaxResults?: number; NextToken?: string }>(
    'ListUserPoolClients',
    true,
    obj({ UserPoolId, MaxResults: Limit, NextToken }, ['UserPoolId']),
    (ctx, body) => {
      requirePool(ctx.db, body.UserPoolId);
      const page = paginate(listClients(ctx.db, body.UserPoolId), (c) => c.id, body.MaxResults, body.NextToken);
      return {
        UserPoolClients: page.items.map((c) => ({ ClientId: c.id, UserPoolId: c.poolId, ClientName: c.name })),
        ...(page.next ? { NextToken: page.next } : {}),
      };
    },
  ),

  operation<Omit<CreateUserPoolClientRequest, 'ClientName' | 'GenerateSecret'> & { ClientId: string; ClientName?: string }>(
    'UpdateUserPoolClient',
    true,
    UpdateUserPoolClientBody,
    (ctx, body) => {
      requirePool(ctx.db, body.UserPoolId);
      const existing = requirePoolClient(ctx.db, body.UserPoolId, body.ClientId);
      const config = clientConfig({ ...body, ClientName: body.ClientName ?? existing.name });
      const updated: Client = { ...existing, name: body.ClientName ?? existing.name, config, updatedAt: ctx.now() };
      updateClient(ctx.db, updated);
      return { UserPoolClient: clientShape(updated) };
    },
  ),

  operation<{ UserPoolId: string; ClientId: string }>(
    'DeleteUserPoolClient',
    true,
    obj({ UserPoolId, ClientId }, ['UserPoolId', 'ClientId']),
    (ctx, body) => {
      requirePool(ctx.db, body.UserPoolId);
      deleteClient(ctx.db, requirePoolClient(ctx.db, body.UserPoolId, body.ClientId).id);
      return {};
    },
  ),
];
