/**
 * Configuration files and the environment, the same way in every service.
 *
 * **The one `${VAR}` rule** (docs/operations.md, "Configuration files"). Every YAML or JSON file a
 * service reads (the graph server's configuration, the IdP's and the access service's seed
 * files) is parsed first; then, in each scalar *value* (never a key, never a comment):
 *
 * - `${NAME}` is replaced by the environment variable `NAME`; set but empty counts as unset.
 * - `${NAME:-default}` is replaced by `NAME`, or by `default` when it is unset or empty.
 * - An unset `${NAME}` without a default is an error naming the variable and the value's place
 *   (`security.jwksUrl`): a silently empty `JWKS_URL` would mean open mode.
 * - `$${` stands for a literal `${` (nothing is substituted in what follows it).
 * - Anything else (`$NAME`, `${not a name}`) is left as it is.
 * - An environment value can never change the document's structure: it lands inside one value.
 *   An unquoted YAML value that comes out as a number or `true`/`false` is read as one (as if
 *   written there: `queryTimeoutMs: ${QUERY_TIMEOUT_MS:-60000}` is a number); a quoted value, and
 *   every value of a JSON file, stays a string.
 */
import { readFile } from 'node:fs/promises';
import { isScalar, parseDocument, visit, type Scalar } from 'yaml';

/** The environment as the loaders read it (`process.env`, or a plain object in tests). */
export type Env = Readonly<Record<string, string | undefined>>;

/** A configuration text or value that breaks the rule; `path` names the value (`limits.queryTimeoutMs`). */
export class ConfigError extends TypeError {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** `$${` (an escaped `${`), or `${NAME}` / `${NAME:-default}`. */
const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** A value of the environment, with set-but-empty counted as unset. */
export function envValue(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** A comma-separated list (`TOKEN_CLIENT_IDS=a, b`), items trimmed and empty ones dropped; unset = undefined. */
export function envList(env: Env, name: string): string[] | undefined {
  return envValue(env, name)
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** `true` only for the text `true`; unset = undefined; anything else is false (as every service read them). */
export function envFlag(env: Env, name: string): boolean | undefined {
  const value = envValue(env, name);
  return value === undefined ? undefined : value === 'true';
}

/**
 * The `${VAR}` rule applied to one string (see the module comment). `path` names the value in
 * the error of an unset variable.
 */
export function substituteEnv(text: string, env: Env, path = 'configuration'): string {
  return text.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
    if (name === undefined) return '${';
    const value = envValue(env, name);
    if (value !== undefined) return value;
    if (fallback !== undefined) return fallback;
    throw new ConfigError(`${path}: \${${name}} names the environment variable ${name}, which is not set (and no default is given: \${${name}:-default})`, path);
  });
}

/** The rule over a parsed document: every string value, at any depth (keys are left alone). */
export function substituteEnvDeep(value: unknown, env: Env, path = ''): unknown {
  if (typeof value === 'string') return substituteEnv(value, env, path || 'configuration');
  if (Array.isArray(value)) return value.map((item, i) => substituteEnvDeep(item, env, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteEnvDeep(item, env, path ? `${path}.${key}` : key)]));
  }
  return value;
}

/** YAML 1.2 core-schema numbers and booleans: what an unquoted value that comes out as one is read as. */
function plainScalar(text: string): string | number | boolean {
  if (text === 'true' || text === 'True' || text === 'TRUE') return true;
  if (text === 'false' || text === 'False' || text === 'FALSE') return false;
  if (/^[-+]?(?:[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/.test(text)) {
    if (text.startsWith('0o')) return parseInt(text.slice(2), 8);
    if (text.startsWith('0x')) return parseInt(text.slice(2), 16);
    return Number(text);
  }
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(text)) return Number(text);
  return text;
}

export type ConfigFormat = 'yaml' | 'json';

/**
 * Parses a configuration text (YAML, or JSON) and applies the `${VAR}` rule to its values.
 * Throws `ConfigError` for a syntax error (naming `source`) or an unset variable.
 */
export function parseConfigText(text: string, options: { env?: Env; format?: ConfigFormat; source?: string } = {}): unknown {
  const { env = process.env, format = 'yaml', source = 'configuration' } = options;
  if (format === 'json') {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`${source} is not valid JSON: ${(error as Error).message}`, '');
    }
    return substituteEnvDeep(raw, env);
  }
  const doc = parseDocument(text);
  const syntax = doc.errors[0];
  if (syntax !== undefined) throw new ConfigError(`${source} is not valid YAML: ${syntax.message}`, '');
  visit(doc, {
    Scalar(key, node, ancestors) {
      if (key === 'key' || typeof node.value !== 'string' || !node.value.includes('$')) return;
      const path = pathOf(ancestors, node);
      const replaced = substituteEnv(node.value, env, path || 'configuration');
      if (replaced === node.value) return;
      (node as Scalar<unknown>).value = node.type === 'PLAIN' ? plainScalar(replaced) : replaced;
    },
  });
  try {
    return doc.toJS();
  } catch (error) {
    throw new ConfigError(`${source} is not valid YAML: ${(error as Error).message}`, '');
  }
}

/** `a.b[2].c`: where a scalar stands, from the visitor's ancestors (for error messages). */
function pathOf(ancestors: readonly unknown[], node: unknown): string {
  let path = '';
  const chain = [...ancestors, node];
  for (let i = 0; i < chain.length - 1; i += 1) {
    const parent = chain[i] as { items?: unknown[]; key?: unknown; value?: unknown };
    const child = chain[i + 1];
    if (parent !== null && typeof parent === 'object' && 'key' in parent && parent.value === child) {
      const key = isScalar(parent.key) ? String(parent.key.value) : String(parent.key);
      path = path ? `${path}.${key}` : key;
    } else if (Array.isArray(parent?.items) && !('key' in (child as object))) {
      path = `${path}[${parent.items.indexOf(child)}]`;
    }
  }
  return path;
}

/** Reads a YAML or JSON file (JSON by its `.json` ending) and applies the `${VAR}` rule. */
export async function readConfigFile(path: string, env: Env = process.env): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  return parseConfigText(text, { env, format: /\.json$/i.test(path) ? 'json' : 'yaml', source: path });
}
