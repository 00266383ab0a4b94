/** App clients of a pool: token lifetimes, allowed flows, OAuth settings, optional secret. */
import type { Db } from '../db/database.js';
import { IdpError, invalidParameter } from '../errors.js';

export type ValidityUnit = 'seconds' | 'minutes' | 'hours' | 'days';

export interface TokenValidityUnits {
  AccessToken: ValidityUnit;
  IdToken: ValidityUnit;
  RefreshToken: ValidityUnit;
}

export interface ClientConfig {
  ExplicitAuthFlows: string[];
  AccessTokenValidity: number;
  IdTokenValidity: number;
  RefreshTokenValidity: number;
  TokenValidityUnits: TokenValidityUnits;
  CallbackURLs: string[];
  LogoutURLs: string[];
  AllowedOAuthFlows: string[];
  AllowedOAuthScopes: string[];
  AllowedOAuthFlowsUserPoolClient: boolean;
  SupportedIdentityProviders: string[];
  EnableTokenRevocation: boolean;
  /** Minutes a challenge session (NEW_PASSWORD_REQUIRED) stays valid; Cognito's default is 3. */
  AuthSessionValidity: number;
}

export interface Client {
  id: string;
  poolId: string;
  name: string;
  secret: string | null;
  config: ClientConfig;
  createdAt: number;
  updatedAt: number;
}

interface ClientRow {
  id: string;
  pool_id: string;
  name: string;
  secret: string | null;
  config: string;
  created_at: number;
  updated_at: number;
}

const toClient = (r: ClientRow): Client => ({
  id: r.id,
  poolId: r.pool_id,
  name: r.name,
  secret: r.secret,
  config: JSON.parse(r.config) as ClientConfig,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const UNIT_SECONDS: Record<ValidityUnit, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };
export const toSeconds = (value: number, unit: ValidityUnit): number => value * UNIT_SECONDS[unit];

/** Lifetimes in seconds, from the client's validity settings. */
export function lifetimes(config: ClientConfig): { id: number; access: number; refresh: number } {
  const u = config.TokenValidityUnits;
  return {
    id: toSeconds(config.IdTokenValidity, u.IdToken),
    access: toSeconds(config.AccessTokenValidity, u.AccessToken),
    refresh: toSeconds(config.RefreshTokenValidity, u.RefreshToken),
  };
}

/** Cognito's bounds: ID and access tokens 5 minutes to 1 day, refresh tokens 1 hour to 10 years. */
export function checkLifetimes(config: ClientConfig): void {
  const t = lifetimes(config);
  const within = (name: string, v: number, min: number, max: number) => {
    if (!(v >= min && v <= max)) throw invalidParameter(`${name} must be between ${min} and ${max} seconds.`);
  };
  within('IdTokenValidity', t.id, 300, 86_400);
  within('AccessTokenValidity', t.access, 300, 86_400);
  within('RefreshTokenValidity', t.refresh, 3600, 315_360_000);
  if (t.refresh < Math.max(t.id, t.access))
    throw invalidParameter('RefreshTokenValidity must be longer than IdTokenValidity and AccessTokenValidity.');
}

export const authFlowAllowed = (client: Client, ...names: string[]): boolean =>
  names.some((n) => client.config.ExplicitAuthFlows.includes(n));

export function insertClient(db: Db, c: Client): void {
  db.run(
    'INSERT INTO clients (id, pool_id, name, secret, config, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    c.id,
    c.poolId,
    c.name,
    c.secret,
    JSON.stringify(c.config),
    c.createdAt,
    c.updatedAt,
  );
}

export function findClient(db: Db, id: string): Client | undefined {
  const row = db.get<ClientRow>('SELECT * FROM clients WHERE id = ?', id);
  return row && toClient(row);
}

/** The client of the pool, or `ResourceNotFoundException` (admin operations). */
export function requirePoolClient(db: Db, poolId: string, clientId: string): Client {
  const client = findClient(db, clientId);
  if (!client || client.poolId !== poolId)
    throw new IdpError('ResourceNotFoundException', `User pool client ${clientId} does not exist.`);
  return client;
}

/** The client for a public (user) operation: an unknown id is `ResourceNotFoundException` as in Cognito. */
export function requireClient(db: Db, clientId: string): Client {
  const client = findClient(db, clientId);
  if (!client) throw new IdpError('ResourceNotFoundException', `User pool client ${clientId} does not exist.`);
  return client;
}

export const listClients = (db: Db, poolId: string): Client[] =>
  db.all<ClientRow>('SELECT * FROM clients WHERE pool_id = ? ORDER BY id', poolId).map(toClient);


export const deleteClient = (db: Db, id: string): boolean => db.run('DELETE FROM clients WHERE id = ?', id).changes > 0;

/** Replaces the client's name and settings (the seed converges an existing client to the file). */
export function updateClient(db: Db, c: Client): void {
  db.run('UPDATE clients SET name = ?, config = ?, updated_at = ? WHERE id = ?', c.name, JSON.stringify(c.config), c.updatedAt, c.id);
}
