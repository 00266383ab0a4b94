/**
 * The graph server's configuration (SPEC §1): a YAML or JSON file with the services' one `${VAR}`
 * rule (@ianode/service config.ts), merged over defaults, plus the environment variables of
 * secure mode.
 */
import { readLabel, validateLabel } from '@ianode/abac';
import { DEFAULT_AUDIT, resolveAuditConfig, type AuditConfig } from './audit.js';
import { envFlag, envList, envValue, parseCorsOrigins, readConfigFile, type Env } from '@ianode/service';
import { ATTRIBUTE_FORMATS, type AttributeFormat, type TokenSource } from '@ianode/auth';
import { resolveKafkaConfig, type KafkaConfig } from './kafka/config.js';
import { resolveBackupConfig, type BackupConfigInput, type ResolvedBackupConfig } from './backup.js';

/** Operations a caller may be allowed: query and graph-store reads (`read`), uploads, updates and
 * patches (`write`), and the administrators' reads such as the labels dump (`admin`). */
export type Operation = 'read' | 'write' | 'admin';

export interface DatasetConfig {
  /** Path segment of the dataset (`/ds`). */
  name: string;
  /** Folder of the store's log and checkpoints; absent = memory only. */
  storage?: string | undefined;
  /** Label of quads uploaded without one (SPEC §3; default `!`). */
  defaultLabel: string;
  /** Label expressions over the caller's attributes that allow each operation (secure mode). */
  permissions: Record<Operation, string>;
  /** How labels from data and headers are read (docs/graph-server.md "Configuration"). */
  labels: LabelsConfig;
  /** Checkpoint once the log passes this many bytes (default 64 MiB). */
  checkpointBytes: number;
  /** Checkpoint a non-empty log this long after the last checkpoint; 0 = off (default 15 min). */
  checkpointIntervalMs: number;
  /** Compact after a commit that leaves more than this fraction of the rows deleted (default 0.25)… */
  compactDeletedFraction: number;
  /** The dataset's Kafka connector (docs/kafka.md); undefined = none. */
  kafka?: KafkaConfig | undefined;
  /** …and at least this many (default 10 000). */
  compactMinDeleted: number;
  /** This dataset's limits over the server's `limits` (docs/operations.md "Several datasets"). */
  limits?: Partial<LimitsConfig> | undefined;
  /** This dataset's GraphQL switch over the server's `graphql`. */
  graphql?: boolean | undefined;
}

export interface LabelsConfig {
  /** RDF-ABAC's legacy fallback (default on, as the reference): a label that does not parse and
   * holds none of `= space , ( ) < > { } ! *` is one attribute name (`user@host`). Applies to the
   * Security-Label header, the labels graph and `defaultLabel`; never to `permissions`. */
  legacy: boolean;
}

/** The dataset settings that tune the store (StoreOptions of @ianode/store). */
export type StoreTuning = Pick<DatasetConfig, 'checkpointBytes' | 'checkpointIntervalMs' | 'compactDeletedFraction' | 'compactMinDeleted'>;

const STORE_TUNING_ENV: Record<keyof StoreTuning, string> = {
  checkpointBytes: 'STORE_CHECKPOINT_BYTES',
  checkpointIntervalMs: 'STORE_CHECKPOINT_INTERVAL_MS',
  compactDeletedFraction: 'STORE_COMPACT_DELETED_FRACTION',
  compactMinDeleted: 'STORE_COMPACT_MIN_DELETED',
};

/** The store settings of a dataset configuration, as `openStore` options. */
export function storeTuning(dataset: DatasetConfig): StoreTuning {
  const { checkpointBytes, checkpointIntervalMs, compactDeletedFraction, compactMinDeleted } = dataset;
  return { checkpointBytes, checkpointIntervalMs, compactDeletedFraction, compactMinDeleted };
}

/** `STORE_CHECKPOINT_BYTES`, `STORE_CHECKPOINT_INTERVAL_MS`, `STORE_COMPACT_DELETED_FRACTION` and
 * `STORE_COMPACT_MIN_DELETED` (empty strings count as unset); they win over the file. */
export function storeTuningFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<StoreTuning> {
  const out: Partial<StoreTuning> = {};
  for (const [field, name] of Object.entries(STORE_TUNING_ENV) as [keyof StoreTuning, string][]) {
    const text = env[name];
    if (text === undefined || text.trim() === '') continue;
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a non-negative number, got ${JSON.stringify(text)}`);
    out[field] = value;
  }
  return out;
}

export interface LimitsConfig {
  /** Query time limit in milliseconds (default 60 000). */
  queryTimeoutMs: number;
  /** Largest upload body in bytes (default 512 MiB). */
  uploadBytes: number;
  /** Largest query/form body in bytes (default 1 MiB). */
  requestBytes: number;
  /** Largest SPARQL query or update text, or GraphQL document, in bytes, checked before parsing
   * however it came (URL, form, body); 0 = no limit (default 1 MiB). */
  queryMaxBytes: number;
  /** Deepest nesting of `{`, `(` and `[` (outside strings, IRIs and comments) in a query, update or
   * GraphQL document, checked before parsing; 0 = no limit (default 200). */
  queryMaxDepth: number;
  /** Most result rows (and rows held by any operator) of one query (default 1 000 000). */
  resultRows: number;
  /** Requests per user per minute; 0 = unlimited (default 0). */
  requestsPerMinute: number;
  /** A write body (upload, graph store) that sends no byte for this long: 408 (default 30 000 ms; 0 = off). */
  bodyIdleTimeoutMs: number;
  /** A write body not received whole within this time: 408 (default 600 000 ms; 0 = off). */
  bodyTimeoutMs: number;
  /** Upload bytes kept in memory before the body is spooled to a temporary file (default 16 MiB). */
  spoolMemoryBytes: number;
  /** Graceful stop: how long in-flight requests may finish before they are cut (default 30 000 ms). */
  shutdownGraceMs: number;
  /** Query worker threads (SPARQL queries and GraphQL run on them, pool/pool.ts); 0 = one per
   * core (`os.availableParallelism()`, the default). `QUERY_WORKERS` in the environment. */
  queryWorkers: number;
  /** Queries that may wait for a free worker; one more is answered 503 with Retry-After (default 256). */
  queryQueue: number;
}

export interface SecurityConfig {
  /** `JWKS_URL`; undefined or `disabled` = open mode. */
  jwksUrl?: string | undefined;
  /**
   * `AWS_ALB_ARNS` (comma-separated): with `JWKS_URL=aws:<region>`, the ARNs of the load balancers
   * whose tokens are accepted (the token header's `signer`). Required in that form.
   */
  albSigners?: string[] | undefined;
  /** `OPENID_PROVIDER_URL`: the issuer a token must name. */
  openIdProviderUrl?: string | undefined;
  /** `USER_ATTRIBUTES_URL`: the access service (base or template with `{user}`). */
  userAttributesUrl?: string | undefined;
  /** `ATTRIBUTE_HIERARCHY_URL` (optional). */
  attributeHierarchyUrl?: string | undefined;
  /** Claims naming the user, first present wins. */
  userClaims?: string[] | undefined;
  /** Claim holding the groups (default `cognito:groups`). */
  groupsClaim?: string | undefined;
  /**
   * App client ids whose tokens are accepted (`TOKEN_CLIENT_IDS`, comma-separated): an ID token's
   * `aud`, an access token's `client_id`. Required in secure mode.
   */
  clientIds?: string[] | undefined;
  /** Older name of `clientIds` (`TOKEN_AUDIENCE`, comma-separated as in the access service); merged into `clientIds`. */
  audience?: string | string[] | undefined;
  /** Accept Cognito access tokens (`token_use: access`) as well as ID tokens (default false). */
  acceptAccessTokens?: boolean | undefined;
  /**
   * The IdP's revocation list (`REVOCATION_URL`; the bundled IdP serves `<issuer>/revocations`).
   * When set, tokens of signed-out, revoked, disabled or deleted users are refused within
   * `revocationPollMs`; unset, they stay valid until they expire (Cognito's own behaviour for ID
   * tokens at a relying party).
   */
  revocationUrl?: string | undefined;
  /** Age at which the revocation list is fetched again before a token is judged (default 10 000 ms). */
  revocationPollMs?: number | undefined;
  /** Attribute cache time (default 30 s). */
  attributeCacheMs: number;
  /**
   * A caller with a valid token whom the access service does not know (its lookup answers 404):
   * `deny` (default, as the reference) answers 403 `UNKNOWN_USER`; `empty` lets it in with no
   * attributes (it then sees what the permissions and labels allow an attribute-less caller).
   */
  unknownUsers: UnknownUsers;
  /**
   * The format of the access service's lookup answers (`USER_ATTRIBUTES_FORMAT`): `ianode` (its
   * own, SPEC §6), `reference` (the reference access service's: `classification='S'`, groups as
   * `G:and` / `G:or`), or `auto` (default: decided per answer). docs/graph-server.md "Configuration".
   */
  attributeFormat: AttributeFormat;
  /**
   * Where tokens are read from, in order of preference: a header name and the scheme word before
   * the token (`prefix`, case-insensitive; empty or absent = the header holds the token as it is).
   * Default `[{ header: Authorization, prefix: Bearer }]`.
   */
  tokenHeaders: TokenHeader[];
}

export type UnknownUsers = 'deny' | 'empty';

/** A token source (`tokenFromHeaders` of @ianode/auth reads them). */
export type TokenHeader = TokenSource;

export interface WritesConfig {
  /**
   * Accept a write whose resulting label the writer could not read itself (secure mode). Off
   * (default): such a write is refused with 400 LABEL_NOT_VISIBLE_TO_WRITER and nothing stored,
   * so data never vanishes from its own writer's sight. On: it is stored (e.g. a loader account
   * that files data for others under labels it does not hold).
   */
  allowUnreadableLabels: boolean;
}

export interface GraphServerConfig {
  /** The first dataset of `datasets` (the one of a one-dataset server). */
  dataset: DatasetConfig;
  /** Every dataset the server opens at start, in the order of the configuration (`dataset` first). */
  datasets: DatasetConfig[];
  /** The server as a whole: its administrators and where datasets added over the API live. */
  server: ServerConfig;
  writes: WritesConfig;
  limits: LimitsConfig;
  security: SecurityConfig;
  /** GraphQL endpoint on (answers 501 until GraphQL lands) or off (404). */
  graphql: boolean;
  /** Browser pages of these origins may call the server (`CORS_ORIGINS`; `*` = any; default none). */
  cors: CorsConfig;
  /** The audit log (../audit.ts; docs/graph-server.md, "Audit log"). */
  audit: AuditConfig;
  /** Online backups (backup.ts; docs/operations.md "Backups"); undefined: off (503 NOT_CONFIGURED). */
  backup?: ResolvedBackupConfig | undefined;
}

export interface ServerConfig {
  /**
   * Label expression over the caller's attributes that makes an administrator of the server: the
   * admin API (`/$/datasets`, `/$/server`, `/$/stats`, `/$/tasks`, `/$/backup`) answers only them
   * (secure mode; default `ianode_admin`).
   */
  admin: string;
  /**
   * Folder of the datasets added over `POST /$/datasets` (each in `<dataDir>/<name>`, the list in
   * `<dataDir>/datasets.json`, reopened at start). Unset: added datasets live in memory only and are
   * gone at the next start.
   */
  dataDir?: string | undefined;
}

export interface CorsConfig {
  /** Origins (`https://app.example.org`) or `['*']`; empty: no CORS headers at all. */
  origins: string[];
}

export const DEFAULT_PORT = 3030;

/** A partial configuration as a file or a caller gives it. */
export type DatasetConfigInput = Partial<Omit<DatasetConfig, 'kafka' | 'permissions' | 'labels'>> & { permissions?: Partial<Record<Operation, string>>; labels?: Partial<LabelsConfig>; kafka?: unknown };

export interface GraphServerConfigInput {
  /** One dataset (the usual form)… */
  dataset?: DatasetConfigInput;
  /** …or several (not both). */
  datasets?: DatasetConfigInput[];
  server?: Partial<ServerConfig>;
  writes?: Partial<WritesConfig>;
  limits?: Partial<LimitsConfig>;
  security?: Partial<SecurityConfig>;
  graphql?: boolean;
  /** `origins`: a list, or a comma-separated text. */
  cors?: { origins?: string[] | string };
  audit?: Partial<AuditConfig>;
  backup?: BackupConfigInput | ResolvedBackupConfig;
}

export function defaultConfig(): GraphServerConfig {
  return {
    dataset: {
      name: 'ds',
      defaultLabel: '!',
      permissions: { read: 'ianode_read | ianode_admin', write: 'ianode_admin', admin: 'ianode_admin' },
      labels: { legacy: true },
      checkpointBytes: 64 * 1024 * 1024,
      checkpointIntervalMs: 15 * 60_000,
      compactDeletedFraction: 0.25,
      compactMinDeleted: 10_000,
    },
    limits: { queryTimeoutMs: 60_000, uploadBytes: 512 * 1024 * 1024, requestBytes: 1024 * 1024,
      queryMaxBytes: 1024 * 1024, queryMaxDepth: 200, resultRows: 1_000_000, requestsPerMinute: 0,
      bodyIdleTimeoutMs: 30_000, bodyTimeoutMs: 600_000, spoolMemoryBytes: 16 * 1024 * 1024, shutdownGraceMs: 30_000,
      queryWorkers: 0, queryQueue: 256 },
    security: { attributeCacheMs: 30_000, unknownUsers: 'deny', attributeFormat: 'auto', tokenHeaders: [{ header: 'Authorization', prefix: 'Bearer' }] },
    writes: { allowUnreadableLabels: false },
    graphql: false,
    cors: { origins: [] },
    audit: { ...DEFAULT_AUDIT },
    server: { admin: 'ianode_admin' },
    datasets: [],
  };
}

/** Defaults, then `input`; validates names, labels and numbers (throws `TypeError` with the field). */
export function resolveConfig(input: GraphServerConfigInput = {}): GraphServerConfig {
  const base = defaultConfig();
  // A resolved configuration (createGraphServer accepts one) has both, `dataset` being `datasets[0]`.
  if (input.dataset !== undefined && Array.isArray(input.datasets) && input.datasets[0] === input.dataset) input = { ...input, dataset: undefined };
  if (input.dataset !== undefined && input.datasets !== undefined) {
    throw new TypeError('the configuration has both dataset and datasets: give one dataset as `dataset`, or all of them as the list `datasets`');
  }
  if (input.datasets !== undefined && (!Array.isArray(input.datasets) || input.datasets.length === 0)) {
    throw new TypeError('datasets must be a non-empty list of datasets');
  }
  const limits = { ...base.limits, ...stripUndefined(input.limits ?? {}) };
  const graphql = input.graphql ?? base.graphql;
  const config: GraphServerConfig = {
    dataset: base.dataset,
    datasets: [],
    server: { ...base.server, ...stripUndefined(input.server ?? {}) },
    writes: { ...base.writes, ...stripUndefined(input.writes ?? {}) },
    limits,
    security: { ...base.security, ...stripUndefined(input.security ?? {}) },
    graphql,
    cors: { origins: input.cors?.origins === undefined ? base.cors.origins : parseCorsOrigins(input.cors.origins, 'cors.origins') },
    audit: resolveAuditConfig(input.audit),
    // An already resolved configuration (createGraphServer accepts one) keeps its backup settings.
    backup: input.backup === undefined ? undefined : 'everyMs' in (input.backup as object) ? (input.backup as ResolvedBackupConfig) : resolveBackupConfig(input.backup),
  };
  const inputs = input.datasets ?? [input.dataset ?? {}];
  config.datasets = inputs.map((entry, i) => resolveDatasetConfig(entry, input.datasets === undefined ? 'dataset' : `datasets[${i}]`));
  config.dataset = config.datasets[0]!;
  const names = new Set<string>();
  const folders = new Map<string, string>();
  for (const dataset of config.datasets) {
    if (names.has(dataset.name)) throw new TypeError(`datasets: the name ${JSON.stringify(dataset.name)} is used twice`);
    names.add(dataset.name);
    if (dataset.storage !== undefined) {
      const other = folders.get(dataset.storage);
      if (other !== undefined) throw new TypeError(`datasets ${other} and ${dataset.name} have the same storage folder ${JSON.stringify(dataset.storage)}`);
      folders.set(dataset.storage, dataset.name);
    }
  }
  for (const [field, value] of Object.entries(config.limits)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TypeError(`limits.${field} must be a non-negative number`);
  }
  if (typeof config.server.admin !== 'string') throw new TypeError('server.admin must be a label expression');
  try {
    validateLabel(config.server.admin);
  } catch (error) {
    throw new TypeError(`server.admin: ${(error as Error).message}`);
  }
  if (config.server.dataDir !== undefined && (typeof config.server.dataDir !== 'string' || config.server.dataDir === '')) {
    throw new TypeError('server.dataDir must be a folder path');
  }
  if (config.security.unknownUsers !== 'deny' && config.security.unknownUsers !== 'empty') {
    throw new TypeError(`security.unknownUsers must be deny or empty, got ${JSON.stringify(config.security.unknownUsers)}`);
  }
  if (!ATTRIBUTE_FORMATS.includes(config.security.attributeFormat)) {
    throw new TypeError(`security.attributeFormat must be ${ATTRIBUTE_FORMATS.join(', ')}, got ${JSON.stringify(config.security.attributeFormat)}`);
  }
  config.security.tokenHeaders = checkTokenHeaders(config.security.tokenHeaders);
  if (typeof config.graphql !== 'boolean') throw new TypeError('graphql must be true or false');
  if (typeof config.writes.allowUnreadableLabels !== 'boolean') throw new TypeError('writes.allowUnreadableLabels must be true or false');
  return config;
}

/** Dataset names are one path segment; these are the server's own first segments. */
const RESERVED_NAMES = new Set(['$', 'console', 'assets', 'favicon.ico']);

/** A first path segment the server keeps for itself (`/$/…`, the console's). */
export function isReservedName(segment: string): boolean {
  return RESERVED_NAMES.has(segment);
}

/** One dataset of the configuration (or of `POST /$/datasets`), over the defaults; `where` names it in errors. */
export function resolveDatasetConfig(input: DatasetConfigInput, where = 'dataset'): DatasetConfig {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new TypeError(`${where} must be a mapping`);
  const base = defaultConfig().dataset;
  const dataset: DatasetConfig = {
    ...base,
    ...stripUndefined(input),
    permissions: { ...base.permissions, ...stripUndefined(input.permissions ?? {}) },
    labels: { ...base.labels, ...stripUndefined(input.labels ?? {}) },
    kafka: resolveKafkaConfig(input.kafka),
  };
  if (typeof dataset.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(dataset.name) || RESERVED_NAMES.has(dataset.name)) {
    throw new TypeError(`${where}.name must be a word of 1 to 64 letters, digits, _ or - (not ${[...RESERVED_NAMES].join(', ')}): ${JSON.stringify(dataset.name)}`);
  }
  if (dataset.storage !== undefined && (typeof dataset.storage !== 'string' || dataset.storage === '')) throw new TypeError(`${where}.storage must be a folder path`);
  if (typeof dataset.labels.legacy !== 'boolean') throw new TypeError(`${where}.labels.legacy must be true or false`);
  if (typeof dataset.defaultLabel !== 'string') throw new TypeError(`${where}.defaultLabel must be a label expression`);
  try {
    // The default label is data-side: read as uploads are (legacy fallback); permissions are strict.
    dataset.defaultLabel = readLabel(dataset.defaultLabel, { legacy: dataset.labels.legacy });
  } catch (error) {
    throw new TypeError(`${where}.defaultLabel: ${(error as Error).message}`);
  }
  for (const operation of ['read', 'write', 'admin'] as const) {
    const field = `${where}.permissions.${operation}`;
    const label = dataset.permissions[operation];
    if (typeof label !== 'string') throw new TypeError(`${field} must be a label expression`);
    try {
      validateLabel(label);
    } catch (error) {
      throw new TypeError(`${field}: ${(error as Error).message}`);
    }
  }
  for (const [field, value] of Object.entries(storeTuning(dataset))) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TypeError(`${where}.${field} must be a non-negative number`);
  }
  if (dataset.limits !== undefined) {
    if (dataset.limits === null || typeof dataset.limits !== 'object' || Array.isArray(dataset.limits)) throw new TypeError(`${where}.limits must be a mapping`);
    const known = Object.keys(defaultConfig().limits);
    for (const [field, value] of Object.entries(dataset.limits)) {
      if (!known.includes(field)) throw new TypeError(`${where}.limits.${field} is not a limit (known: ${known.join(', ')})`);
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TypeError(`${where}.limits.${field} must be a non-negative number`);
    }
  }
  if (dataset.graphql !== undefined && typeof dataset.graphql !== 'boolean') throw new TypeError(`${where}.graphql must be true or false`);
  return dataset;
}

/**
 * The configuration as one dataset's routes see it: `dataset` is that dataset, and its own
 * `limits` and `graphql` are laid over the server's (routes read `config.dataset`, `config.limits`
 * and `config.graphql`).
 */
export function datasetView(config: GraphServerConfig, dataset: DatasetConfig): GraphServerConfig {
  return {
    ...config,
    dataset,
    datasets: [dataset],
    limits: { ...config.limits, ...stripUndefined(dataset.limits ?? {}) },
    graphql: dataset.graphql ?? config.graphql,
  };
}

/** HTTP header names are RFC 9110 tokens; a prefix is one scheme word (RFC 9110 §11.1 auth-scheme). */
const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function checkTokenHeaders(value: unknown): TokenHeader[] {
  if (!Array.isArray(value) || value.length === 0) throw new TypeError('security.tokenHeaders must be a non-empty list of { header, prefix }');
  const seen = new Set<string>();
  return value.map((entry: unknown, i) => {
    const where = `security.tokenHeaders[${i}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new TypeError(`${where} must be a mapping { header, prefix }`);
    const { header, prefix, ...rest } = entry as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0) throw new TypeError(`${where}: unknown key ${JSON.stringify(extra[0])} (allowed: header, prefix)`);
    if (typeof header !== 'string' || !HEADER_TOKEN.test(header)) throw new TypeError(`${where}.header must be an HTTP header name, got ${JSON.stringify(header)}`);
    if (prefix !== undefined && prefix !== null && (typeof prefix !== 'string' || (prefix !== '' && !HEADER_TOKEN.test(prefix)))) {
      throw new TypeError(`${where}.prefix must be one word (e.g. Bearer) or empty, got ${JSON.stringify(prefix)}`);
    }
    if (seen.has(header.toLowerCase())) throw new TypeError(`${where}.header ${JSON.stringify(header)} is listed twice`);
    seen.add(header.toLowerCase());
    return { header, prefix: typeof prefix === 'string' ? prefix : '' };
  });
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Reads a YAML or JSON configuration file, with the `${VAR}` rule of @ianode/service. */
export async function loadConfigFile(path: string, env: Env = process.env): Promise<GraphServerConfigInput> {
  const parsed = await readConfigFile(path, env);
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new TypeError(`${path}: the configuration must be a mapping`);
  return parsed as GraphServerConfigInput;
}

/**
 * Environment names of the reference IA node (secure-agent-graph / RDF-ABAC) read as aliases of
 * ianode's: alias -> ianode name. Only names whose meaning is the same are listed (RDF-ABAC's
 * `ABAC_HIERARCHIES_URL` is its hierarchy look-up URL, a `{name}` template as ianode accepts);
 * `JWKS_URL` and `USER_ATTRIBUTES_URL` are the same names in both.
 */
export const ENV_ALIASES: Readonly<Record<string, string>> = { ABAC_HIERARCHIES_URL: 'ATTRIBUTE_HIERARCHY_URL' };

/** `name`, or its reference alias; both set with different values: refuses, naming both. */
function envWithAlias(env: Env, name: string): string | undefined {
  const own = envValue(env, name);
  for (const [alias, target] of Object.entries(ENV_ALIASES)) {
    if (target !== name) continue;
    const other = envValue(env, alias);
    if (other === undefined) continue;
    if (own !== undefined && own !== other) {
      throw new TypeError(`${name} and ${alias} (its reference name) are both set, to different values: set one of them`);
    }
    return own ?? other;
  }
  return own;
}

/** The secure-mode variables of SPEC §1 (empty strings count as unset). */
export function securityFromEnv(env: Env = process.env): Partial<SecurityConfig> {
  const get = (name: string) => envValue(env, name);
  return {
    jwksUrl: get('JWKS_URL'),
    openIdProviderUrl: get('OPENID_PROVIDER_URL'),
    userAttributesUrl: get('USER_ATTRIBUTES_URL'),
    attributeHierarchyUrl: envWithAlias(env, 'ATTRIBUTE_HIERARCHY_URL'),
    userClaims: envList(env, 'USER_CLAIMS'),
    groupsClaim: get('GROUPS_KEY'),
    audience: envList(env, 'TOKEN_AUDIENCE'),
    clientIds: envList(env, 'TOKEN_CLIENT_IDS'),
    acceptAccessTokens: envFlag(env, 'ACCEPT_ACCESS_TOKENS'),
    revocationUrl: get('REVOCATION_URL'),
    attributeFormat: get('USER_ATTRIBUTES_FORMAT') as AttributeFormat | undefined,
    albSigners: envList(env, 'AWS_ALB_ARNS'),
  };
}

/** Reads the file and the environment into one input (shared with the CLI). */
export async function configFromFileAndEnv(path: string | undefined, env: Env = process.env): Promise<GraphServerConfigInput> {
  const file = path === undefined ? {} : await loadConfigFile(path, env);
  const fromEnv = Object.fromEntries(Object.entries(securityFromEnv(env)).filter(([, v]) => v !== undefined));
  const tuning = storeTuningFromEnv(env);
  const workers = env['QUERY_WORKERS'];
  if (workers !== undefined && workers.trim() !== '' && !/^\d+$/.test(workers.trim())) {
    throw new TypeError(`QUERY_WORKERS must be a whole number (0 = one per core), got ${JSON.stringify(workers)}`);
  }
  const corsOrigins = envValue(env, 'CORS_ORIGINS');
  return {
    ...file,
    ...(corsOrigins === undefined ? {} : { cors: { ...(file.cors ?? {}), origins: corsOrigins } }),
    ...(Object.keys(tuning).length > 0
      ? file.datasets !== undefined && Array.isArray(file.datasets)
        ? { datasets: file.datasets.map((dataset) => ({ ...dataset, ...tuning })) }
        : { dataset: { ...(file.dataset ?? {}), ...tuning } }
      : {}),
    ...(workers !== undefined && workers.trim() !== '' ? { limits: { ...(file.limits ?? {}), queryWorkers: Number(workers) } } : {}),
    security: { ...(file.security ?? {}), ...fromEnv },
  };
}
