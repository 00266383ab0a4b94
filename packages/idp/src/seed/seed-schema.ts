/**
 * The seed document: pools with fixed ids, clients with fixed ids, groups, users with passwords.
 * Strings may use `${VAR}` or `${VAR:-default}`, replaced from the environment after parsing (so a
 * value never changes the YAML structure). Validation names the path of the first bad field.
 */
export interface SeedUser {
  username: string;
  password: string;
  /** Password needs no change at first sign-in (default true). */
  permanent?: boolean;
  enabled?: boolean;
  attributes?: Record<string, string>;
  groups?: string[];
}

export interface SeedGroup {
  name: string;
  description?: string;
  precedence?: number;
}

export interface SeedClient {
  id: string;
  name: string;
  secret?: string;
  explicitAuthFlows?: string[];
  callbackUrls?: string[];
  logoutUrls?: string[];
  oauthFlows?: string[];
  oauthScopes?: string[];
  idTokenValidityMinutes?: number;
  accessTokenValidityMinutes?: number;
  refreshTokenValidityDays?: number;
}

export interface SeedPool {
  id: string;
  name: string;
  usernameAttributes?: string[];
  passwordPolicy?: {
    minimumLength?: number;
    requireUppercase?: boolean;
    requireLowercase?: boolean;
    requireNumbers?: boolean;
    requireSymbols?: boolean;
  };
  /** Custom attribute names without the `custom:` prefix (String type). */
  customAttributes?: string[];
  clients?: SeedClient[];
  groups?: SeedGroup[];
  users?: SeedUser[];
}

export interface SeedDocument {
  pools: SeedPool[];
}

export class SeedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SeedError';
  }
}

type Check = (v: unknown, path: string) => void;
const fail = (path: string, what: string): never => {
  throw new SeedError(`${path}: ${what}`);
};
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const string: Check = (v, p) => void (typeof v === 'string' && v.length > 0 ? 0 : fail(p, 'must be a non-empty string'));
const boolean: Check = (v, p) => void (typeof v === 'boolean' ? 0 : fail(p, 'must be true or false'));
const number: Check = (v, p) => void (typeof v === 'number' && Number.isFinite(v) ? 0 : fail(p, 'must be a number'));
const listOf =
  (item: Check): Check =>
  (v, p) =>
    Array.isArray(v) ? v.forEach((x, i) => item(x, `${p}[${i}]`)) : fail(p, 'must be a list');
const stringMap: Check = (v, p) =>
  isObj(v) ? Object.entries(v).forEach(([k, x]) => string(String(x ?? ''), `${p}.${k}`)) : fail(p, 'must be a mapping');

function record(fields: Record<string, Check>, requiredFields: string[]): Check {
  return (v, p) => {
    if (!isObj(v)) return fail(p, 'must be a mapping');
    for (const r of requiredFields) if (v[r] === undefined) fail(`${p}.${r}`, 'is required');
    for (const [k, x] of Object.entries(v)) {
      const check = fields[k];
      if (!check) fail(`${p}.${k}`, 'is not a known field');
      else if (x !== undefined) check(x, `${p}.${k}`);
    }
  };
}

const policy = record(
  { minimumLength: number, requireUppercase: boolean, requireLowercase: boolean, requireNumbers: boolean, requireSymbols: boolean },
  [],
);
const client = record(
  {
    id: string,
    name: string,
    secret: string,
    explicitAuthFlows: listOf(string),
    callbackUrls: listOf(string),
    logoutUrls: listOf(string),
    oauthFlows: listOf(string),
    oauthScopes: listOf(string),
    idTokenValidityMinutes: number,
    accessTokenValidityMinutes: number,
    refreshTokenValidityDays: number,
  },
  ['id', 'name'],
);
const group = record({ name: string, description: string, precedence: number }, ['name']);
const user = record(
  { username: string, password: string, permanent: boolean, enabled: boolean, attributes: stringMap, groups: listOf(string) },
  ['username', 'password'],
);
const pool = record(
  {
    id: (v, p) => void (typeof v === 'string' && /^[\w-]+_[0-9a-zA-Z]+$/.test(v) ? 0 : fail(p, 'must look like local_XXXXXXXX')),
    name: string,
    usernameAttributes: listOf(string),
    passwordPolicy: policy,
    customAttributes: listOf(string),
    clients: listOf(client),
    groups: listOf(group),
    users: listOf(user),
  },
  ['id', 'name'],
);
const document = record({ pools: listOf(pool) }, ['pools']);

/** Checks a parsed seed (after substitution); attribute values are turned into strings. */
export function checkSeed(value: unknown): SeedDocument {
  if (isObj(value) && Array.isArray(value.pools)) {
    for (const p of value.pools as unknown[]) {
      if (!isObj(p) || !Array.isArray(p.users)) continue;
      for (const u of p.users as unknown[]) {
        if (isObj(u) && isObj(u.attributes))
          u.attributes = Object.fromEntries(Object.entries(u.attributes).map(([k, x]) => [k, String(x)]));
      }
    }
  }
  document(value, 'seed');
  return value as SeedDocument;
}
