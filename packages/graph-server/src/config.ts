/**
 * The graph server's configuration (SPEC §1): a YAML or JSON file with the services' one `${VAR}`
 * rule (@ianode/service config.ts), checked section by section against JSON schemas
 * (config-schema.ts: unknown keys refused, naming the path and the nearest known key; defaults in
 * the schemas), frozen once resolved. The environment is mapped onto it once, by `main.ts`
 * (configFromEnv); nothing else in the server reads `process.env`.
 */
import { readLabel, validateLabel } from '@ianode/abac';
import { AUDIT_SCHEMA, resolveAuditConfig, type AuditConfig } from './audit.js';
import { envFlag, envList, envValue, parseCorsOrigins, readConfigFile, type Env } from '@ianode/service';
import { ATTRIBUTE_FORMATS, type AttributeFormat, type TokenSource } from '@ianode/auth';
import { resolveKafkaConfig, type KafkaConfig } from './kafka/config.js';
import { resolveBackupConfig, type BackupConfigInput, type ResolvedBackupConfig } from './backup.js';
import { checkSection, deepFreeze, plainCopy, type Schema } from './config-schema.js';

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
export function storeTuningFromEnv(env: Env): Partial<StoreTuning> {
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
  /**
   * SPARQL Update `LOAD <file:…>` reads files under this folder only (`IANODE_UPDATE_LOAD_DIR`);
   * unset (default): LOAD is refused. Never applies to updates replayed from Kafka.
   */
  updateLoadDir?: string | undefined;
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
  /** What the web console is told, over the `security` settings (routes/console.ts). */
  console: ConsoleConfig;
}

/**
 * The web console's settings for when the browser reaches a service at another address than the
 * server does (a container network, a proxy); each unset one follows `security` (docs/console.md).
 */
export interface ConsoleConfig {
  /** `CONSOLE_ISSUER`; default `security.openIdProviderUrl`. */
  issuer?: string | undefined;
  /** `CONSOLE_CLIENT_ID`; default the first of `security.clientIds`. */
  clientId?: string | undefined;
  /** `CONSOLE_ACCESS_SERVICE_URL`; default `security.userAttributesUrl`. */
  accessServiceUrl?: string | undefined;
  /** `CONSOLE_DIR`: the console's build folder; default the workspace's packages/console/dist. */
  dir?: string | undefined;
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
  console?: Partial<ConsoleConfig>;
}

// ---------------------------------------------------------------- the sections' schemas

const nonNegative = (fallback?: number): Schema => ({ type: 'number', minimum: 0, ...(fallback === undefined ? {} : { default: fallback }), message: 'must be a non-negative number' });
const flag = (fallback?: boolean): Schema => ({ type: 'boolean', ...(fallback === undefined ? {} : { default: fallback }), message: 'must be true or false' });
const text = (message = 'must be a text'): Schema => ({ type: 'string', message });
const folder: Schema = { type: 'string', minLength: 1, message: 'must be a folder path' };
const texts = (message = 'must be a list of texts'): Schema => ({ type: 'array', items: { type: 'string' }, message });
const mapping = (properties: Record<string, Schema | boolean>, extra: Schema = {}): Schema => ({ type: 'object', additionalProperties: false, properties, message: 'must be a mapping', ...extra });

const LIMIT_DEFAULTS: LimitsConfig = {
  queryTimeoutMs: 60_000, uploadBytes: 512 * 1024 * 1024, requestBytes: 1024 * 1024, queryMaxBytes: 1024 * 1024, queryMaxDepth: 200,
  resultRows: 1_000_000, requestsPerMinute: 0, bodyIdleTimeoutMs: 30_000, bodyTimeoutMs: 600_000, spoolMemoryBytes: 16 * 1024 * 1024,
  shutdownGraceMs: 30_000, queryWorkers: 0, queryQueue: 256,
};

/** `limits`: every limit a non-negative number, with its default. */
export const LIMITS_SCHEMA: Schema = mapping(Object.fromEntries(Object.entries(LIMIT_DEFAULTS).map(([key, value]) => [key, nonNegative(value)])));

/** A dataset's own `limits`: the same keys, no defaults (the server's apply). */
const DATASET_LIMITS_SCHEMA: Schema = mapping(Object.fromEntries(Object.keys(LIMIT_DEFAULTS).map((key) => [key, nonNegative()])));

/** Dataset names are one path segment; these are the server's own first segments. */
const RESERVED_NAMES = new Set(['$', 'console', 'assets', 'favicon.ico']);

const label: Schema = { type: 'string', message: 'must be a label expression' };

/** One dataset (`dataset`, each of `datasets`, the settings of `POST /$/datasets`). */
export const DATASET_SCHEMA: Schema = mapping({
  name: {
    type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', not: { enum: [...RESERVED_NAMES] }, default: 'ds',
    message: `must be a word of 1 to 64 letters, digits, _ or - (not ${[...RESERVED_NAMES].join(', ')}): {value}`,
  },
  storage: folder,
  defaultLabel: { ...label, default: '!' },
  permissions: mapping({
    read: { ...label, default: 'ianode_read | ianode_admin' },
    write: { ...label, default: 'ianode_admin' },
    admin: { ...label, default: 'ianode_admin' },
  }, { default: {} }),
  labels: mapping({ legacy: flag(true) }, { default: {} }),
  checkpointBytes: nonNegative(64 * 1024 * 1024),
  checkpointIntervalMs: nonNegative(15 * 60_000),
  compactDeletedFraction: nonNegative(0.25),
  compactMinDeleted: nonNegative(10_000),
  // Checked by resolveKafkaConfig against KAFKA_SCHEMA (`false` and null mean none).
  kafka: true,
  limits: DATASET_LIMITS_SCHEMA,
  graphql: flag(),
});

/** `server`. */
export const SERVER_SCHEMA: Schema = mapping({ admin: { ...label, default: 'ianode_admin' }, dataDir: folder });

/** `writes`. */
export const WRITES_SCHEMA: Schema = mapping({ allowUnreadableLabels: flag(false), updateLoadDir: folder });

/** `security`. */
export const SECURITY_SCHEMA: Schema = mapping({
  jwksUrl: text(), albSigners: texts(), openIdProviderUrl: text(), userAttributesUrl: text(), attributeHierarchyUrl: text(),
  userClaims: texts(), groupsClaim: text(), clientIds: texts(),
  audience: { type: ['string', 'array'], items: { type: 'string' }, message: 'must be a text or a list of texts' },
  acceptAccessTokens: flag(), revocationUrl: text(), revocationPollMs: nonNegative(), attributeCacheMs: nonNegative(30_000),
  unknownUsers: { enum: ['deny', 'empty'], default: 'deny', message: 'must be deny or empty, got {value}' },
  attributeFormat: { enum: [...ATTRIBUTE_FORMATS], default: 'auto', message: `must be ${ATTRIBUTE_FORMATS.join(', ')}, got {value}` },
  tokenHeaders: {
    type: 'array', minItems: 1, default: [{ header: 'Authorization', prefix: 'Bearer' }], message: 'must be a non-empty list of { header, prefix }',
    items: mapping({ header: true, prefix: true }, { message: 'must be a mapping { header, prefix }' }),
  },
});

/** `cors` (`origins` is read by parseCorsOrigins of @ianode/service: a list or a comma-separated text). */
export const CORS_SCHEMA: Schema = mapping({ origins: true });

/** `console`: what the browser is told (routes/console.ts); each defaults to the `security` setting it overrides. */
export const CONSOLE_SCHEMA: Schema = mapping({ issuer: text(), clientId: text(), accessServiceUrl: text(), dir: folder });

/** The file's top level: each section's schema, with `{}` for a section left out (so its defaults apply). */
const CONFIG_SCHEMA: Schema = mapping({
  // Each dataset is checked by resolveDatasetConfig, which names it (`dataset`, `datasets[1]`).
  dataset: true,
  datasets: { type: 'array', minItems: 1, message: 'must be a non-empty list of datasets' },
  server: { ...SERVER_SCHEMA, default: {} },
  writes: { ...WRITES_SCHEMA, default: {} },
  limits: { ...LIMITS_SCHEMA, default: {} },
  security: { ...SECURITY_SCHEMA, default: {} },
  graphql: flag(false),
  cors: { ...CORS_SCHEMA, default: {} },
  audit: { ...AUDIT_SCHEMA, default: {} },
  // Checked by resolveBackupConfig (BACKUP_SCHEMA), or a resolved one kept.
  backup: true,
  console: { ...CONSOLE_SCHEMA, default: {} },
}, { message: 'must be a mapping' });

/** The configuration with nothing set: every default (not frozen: a start for callers' own). */
export function defaultConfig(): GraphServerConfig {
  return resolveInput({});
}

/**
 * Defaults, then `input`, checked section by section against the schemas (an unknown key, a value
 * of the wrong kind: `TypeError` naming the path, and for an unknown key the nearest known one),
 * then what a schema cannot say (labels, names used twice, header names). The result is frozen.
 */
export function resolveConfig(input: GraphServerConfigInput = {}): GraphServerConfig {
  return deepFreeze(resolveInput(input));
}

function resolveInput(given: GraphServerConfigInput): GraphServerConfig {
  // A resolved configuration (createGraphServer accepts one) has both, `dataset` being `datasets[0]`.
  if (given?.dataset !== undefined && Array.isArray(given.datasets) && given.datasets[0] === given.dataset) given = { ...given, dataset: undefined };
  const input = plainCopy(given) as Record<string, unknown>;
  if (input !== null && typeof input === 'object' && input.dataset !== undefined && input.datasets !== undefined) {
    throw new TypeError('the configuration has both dataset and datasets: give one dataset as `dataset`, or all of them as the list `datasets`');
  }
  checkSection(CONFIG_SCHEMA, input, '');
  const checked = input as unknown as Omit<GraphServerConfig, 'dataset' | 'datasets' | 'cors' | 'backup'> & Pick<GraphServerConfigInput, 'dataset' | 'datasets' | 'cors' | 'backup'>;
  const inputs = checked.datasets ?? [checked.dataset ?? {}];
  const datasets = inputs.map((entry, i) => resolveDatasetConfig(entry, checked.datasets === undefined ? 'dataset' : `datasets[${i}]`));
  const names = new Set<string>();
  const folders = new Map<string, string>();
  for (const dataset of datasets) {
    if (names.has(dataset.name)) throw new TypeError(`datasets: the name ${JSON.stringify(dataset.name)} is used twice`);
    names.add(dataset.name);
    if (dataset.storage !== undefined) {
      const other = folders.get(dataset.storage);
      if (other !== undefined) throw new TypeError(`datasets ${other} and ${dataset.name} have the same storage folder ${JSON.stringify(dataset.storage)}`);
      folders.set(dataset.storage, dataset.name);
    }
  }
  try {
    validateLabel(checked.server.admin);
  } catch (error) {
    throw new TypeError(`server.admin: ${(error as Error).message}`);
  }
  const backup = checked.backup;
  return {
    dataset: datasets[0]!,
    datasets,
    server: checked.server,
    writes: checked.writes,
    limits: checked.limits,
    security: { ...checked.security, tokenHeaders: checkTokenHeaders(checked.security.tokenHeaders) },
    graphql: checked.graphql,
    cors: { origins: parseCorsOrigins(checked.cors?.origins, 'cors.origins') },
    audit: resolveAuditConfig(checked.audit),
    // An already resolved configuration (createGraphServer accepts one) keeps its backup settings.
    backup: backup === undefined ? undefined : backup !== null && typeof backup === 'object' && 'everyMs' in backup ? (backup as ResolvedBackupConfig) : resolveBackupConfig(backup),
    console: checked.console,
  };
}

/** A first path segment the server keeps for itself (`/$/…`, the console's). */
export function isReservedName(segment: string): boolean {
  return RESERVED_NAMES.has(segment);
}

/** One dataset of the configuration (or of `POST /$/datasets`), over the defaults; `where` names it in errors. */
export function resolveDatasetConfig(input: DatasetConfigInput, where = 'dataset'): DatasetConfig {
  const dataset = plainCopy(input) as DatasetConfig;
  checkSection(DATASET_SCHEMA, dataset, where);
  try {
    // The default label is data-side: read as uploads are (legacy fallback); permissions are strict.
    dataset.defaultLabel = readLabel(dataset.defaultLabel, { legacy: dataset.labels.legacy });
  } catch (error) {
    throw new TypeError(`${where}.defaultLabel: ${(error as Error).message}`);
  }
  for (const operation of ['read', 'write', 'admin'] as const) {
    try {
      validateLabel(dataset.permissions[operation]);
    } catch (error) {
      throw new TypeError(`${where}.permissions.${operation}: ${(error as Error).message}`);
    }
  }
  dataset.kafka = resolveKafkaConfig(dataset.kafka, `${where}.kafka`);
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
    // The schema made it a mapping of these two keys at most.
    const where = `security.tokenHeaders[${i}]`;
    const { header, prefix } = entry as Record<string, unknown>;
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
export async function loadConfigFile(path: string, env: Env): Promise<GraphServerConfigInput> {
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
export function securityFromEnv(env: Env): Partial<SecurityConfig> {
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

/** The `console` keys the environment sets (each wins over the file's). */
const CONSOLE_ENV: Record<keyof ConsoleConfig, string> = {
  issuer: 'CONSOLE_ISSUER',
  clientId: 'CONSOLE_CLIENT_ID',
  accessServiceUrl: 'CONSOLE_ACCESS_SERVICE_URL',
  dir: 'CONSOLE_DIR',
};

/**
 * The environment mapped onto the configuration, once, for `main.ts` (and the CLI): each variable
 * sets one key and wins over `file`'s value (empty strings count as unset):
 * the secure-mode variables (securityFromEnv) → `security.*`; `STORE_*` (storeTuningFromEnv) →
 * every dataset's store settings; `QUERY_WORKERS` → `limits.queryWorkers`; `CORS_ORIGINS` →
 * `cors.origins`; `KAFKA_BOOTSTRAP_SERVERS` → `brokers` of each dataset's `kafka` that names none;
 * `IANODE_UPDATE_LOAD_DIR` → `writes.updateLoadDir`; `CONSOLE_ISSUER`, `CONSOLE_CLIENT_ID`,
 * `CONSOLE_ACCESS_SERVICE_URL`, `CONSOLE_DIR` → `console.*`. Nothing else reads the environment.
 */
export function configFromEnv(env: Env, file: GraphServerConfigInput = {}): GraphServerConfigInput {
  const security = stripUndefined(securityFromEnv(env));
  const tuning = storeTuningFromEnv(env);
  const workers = env['QUERY_WORKERS'];
  if (workers !== undefined && workers.trim() !== '' && !/^\d+$/.test(workers.trim())) {
    throw new TypeError(`QUERY_WORKERS must be a whole number (0 = one per core), got ${JSON.stringify(workers)}`);
  }
  const corsOrigins = envValue(env, 'CORS_ORIGINS');
  const brokers = envValue(env, 'KAFKA_BOOTSTRAP_SERVERS');
  const loadDir = envValue(env, 'IANODE_UPDATE_LOAD_DIR');
  // Trimmed, blank = unset (as the console read them before).
  const consoleKeys = stripUndefined(Object.fromEntries(Object.entries(CONSOLE_ENV).map(([key, name]) => [key, env[name]?.trim() || undefined])) as Partial<ConsoleConfig>);
  /** A dataset of the file with the environment's store settings and Kafka brokers. */
  const dataset = (entry: DatasetConfigInput): DatasetConfigInput => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return entry; // resolveConfig names the mistake
    const kafka = entry.kafka as Record<string, unknown> | undefined;
    const needsBrokers = brokers !== undefined && kafka !== null && typeof kafka === 'object' && !Array.isArray(kafka) && kafka.brokers === undefined && kafka.bootstrapServers === undefined;
    return { ...entry, ...tuning, ...(needsBrokers ? { kafka: { ...kafka, brokers } } : {}) };
  };
  const datasets = Array.isArray(file.datasets) ? { datasets: file.datasets.map(dataset) } : file.datasets !== undefined ? {} : { dataset: dataset(file.dataset ?? {}) };
  return {
    ...file,
    ...datasets,
    ...(corsOrigins === undefined ? {} : { cors: { ...(file.cors ?? {}), origins: corsOrigins } }),
    ...(workers !== undefined && workers.trim() !== '' ? { limits: { ...(file.limits ?? {}), queryWorkers: Number(workers) } } : {}),
    ...(loadDir === undefined ? {} : { writes: { ...(file.writes ?? {}), updateLoadDir: loadDir } }),
    ...(Object.keys(consoleKeys).length === 0 ? {} : { console: { ...(file.console ?? {}), ...consoleKeys } }),
    security: { ...(file.security ?? {}), ...security },
  };
}

/** Reads the file and maps the environment over it (configFromEnv): what `main.ts` and the CLI start from. */
export async function configFromFileAndEnv(path: string | undefined, env: Env): Promise<GraphServerConfigInput> {
  return configFromEnv(env, path === undefined ? {} : await loadConfigFile(path, env));
}
