/**
 * Provisioning (issue 15; docs/operations.md "Provisioning users"): how a user created in the
 * identity provider becomes able to read without an administrator's step.
 *
 * - **Rules** (`provisioning.autoActivate`): a caller with a valid token whose `cognito:groups`
 *   hold a rule's group, and whose directory entry is unknown or inactive, becomes active with the
 *   rule's attributes (those it does not hold yet), at its first `/whoami` or attribute lookup (the
 *   graph server's), or when the IdP notifies the user's creation. An entry an administrator made
 *   inactive (`active: false` through the admin API or a seed) is never reactivated by a rule.
 *   Each activation is an audit line (`event: auto-activate`, the entry, the rule's group, the
 *   attributes it added; never a token).
 * - **Notifications** (`provisioning.notifications`): the IdP POSTs
 *   `/provisioning/user-created` with a JWT it signs with the pool's own key (`token_use:
 *   user_created`, `aud` = the configured audience, at most `maxAgeSeconds` old, each `jti` once).
 *   The access service verifies it through the IdP's JWKS and issuer, the same ones user tokens are
 *   checked against; nothing is shared and nothing secret is configured. The user is recorded
 *   (inactive unless a rule activates it).
 */
import { parseConfigText } from '@ianode/service';
import { checkCompat, type CompatConfig } from './compat.js';
import { readFileSync } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import type { Directory } from './directory/directory.js';
import type { AttributeValues, UserRecord } from './directory/types.js';

export interface AutoActivateRule {
  /** A group of the token (`cognito:groups`, or the configured groups claim). */
  group: string;
  /** Attributes the entry gets when the rule activates it (only names it does not hold yet). */
  attributes?: Record<string, AttributeValues>;
}

export interface NotificationSettings {
  /** The `aud` the IdP's notification tokens carry (default `ianode-access-service`). */
  audience?: string;
  /** Oldest accepted notification token, by its `iat` (default 120 s). */
  maxAgeSeconds?: number;
}

export interface ProvisioningConfig {
  autoActivate?: AutoActivateRule[];
  /** Accept user-creation notifications from the IdP (`POST /provisioning/user-created`); off when absent. */
  notifications?: NotificationSettings;
}

export const DEFAULT_NOTIFICATION_AUDIENCE = 'ianode-access-service';

/** Checks a provisioning section (throws `Error` naming the field). */
export function checkProvisioning(value: unknown, source: string): ProvisioningConfig {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${source}: provisioning must be a mapping`);
  const known = new Set(['autoActivate', 'notifications']);
  for (const key of Object.keys(value)) if (!known.has(key)) throw new Error(`${source}: unknown key provisioning.${key} (expected ${[...known].join(', ')})`);
  const { autoActivate, notifications } = value as Record<string, unknown>;
  const rules: AutoActivateRule[] = [];
  if (autoActivate !== undefined && autoActivate !== null) {
    if (!Array.isArray(autoActivate)) throw new Error(`${source}: provisioning.autoActivate must be a list`);
    autoActivate.forEach((rule: unknown, i) => {
      const where = `${source}: provisioning.autoActivate[${i}]`;
      if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) throw new Error(`${where} must be a mapping with a group`);
      const { group, attributes, ...rest } = rule as Record<string, unknown>;
      if (Object.keys(rest).length > 0) throw new Error(`${where}: unknown key ${Object.keys(rest)[0]} (expected group, attributes)`);
      if (typeof group !== 'string' || group.trim() === '') throw new Error(`${where}.group must be a group name`);
      if (attributes !== undefined && attributes !== null && (typeof attributes !== 'object' || Array.isArray(attributes))) {
        throw new Error(`${where}.attributes must be a mapping of attribute names to values`);
      }
      rules.push({ group, attributes: (attributes ?? {}) as Record<string, AttributeValues> });
    });
  }
  let settings: NotificationSettings | undefined;
  if (notifications !== undefined && notifications !== null && notifications !== false) {
    if (notifications === true) settings = {};
    else if (typeof notifications !== 'object' || Array.isArray(notifications)) throw new Error(`${source}: provisioning.notifications must be true or a mapping`);
    else {
      const { audience, maxAgeSeconds, ...rest } = notifications as Record<string, unknown>;
      if (Object.keys(rest).length > 0) throw new Error(`${source}: unknown key provisioning.notifications.${Object.keys(rest)[0]}`);
      if (audience !== undefined && (typeof audience !== 'string' || audience === '')) throw new Error(`${source}: provisioning.notifications.audience must be a text`);
      if (maxAgeSeconds !== undefined && (typeof maxAgeSeconds !== 'number' || !(maxAgeSeconds > 0) || maxAgeSeconds > 3600)) {
        throw new Error(`${source}: provisioning.notifications.maxAgeSeconds must be a number of seconds between 1 and 3600`);
      }
      settings = { ...(audience === undefined ? {} : { audience }), ...(maxAgeSeconds === undefined ? {} : { maxAgeSeconds }) };
    }
  }
  return { autoActivate: rules, ...(settings === undefined ? {} : { notifications: settings }) };
}

/**
 * The access service's configuration file (`--config`): YAML or JSON with the `${VAR}` rule.
 * Sections: `provisioning` (above) and `compat` (src/compat.ts).
 */
export function readAccessConfigFile(
  path: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): { provisioning: ProvisioningConfig; compat?: CompatConfig } {
  let document: unknown;
  try {
    document = parseConfigText(readFileSync(path, 'utf8'), { env, format: /\.json$/i.test(path) ? 'json' : 'yaml', source: 'the configuration' });
  } catch (cause) {
    throw new Error(`cannot read configuration file ${path}: ${(cause as Error).message}`, { cause });
  }
  if (document === undefined || document === null) return { provisioning: {} };
  if (typeof document !== 'object' || Array.isArray(document)) throw new Error(`${path}: not a mapping`);
  const sections = new Set(['provisioning', 'compat']);
  for (const key of Object.keys(document)) if (!sections.has(key)) throw new Error(`${path}: unknown section ${JSON.stringify(key)} (expected ${[...sections].join(', ')})`);
  const compat = checkCompat((document as Record<string, unknown>).compat, path);
  return { provisioning: checkProvisioning((document as Record<string, unknown>).provisioning, path), ...(compat === undefined ? {} : { compat }) };
}

export interface Provisioner {
  readonly rules: readonly AutoActivateRule[];
  /** Whether a rule matches these token groups. */
  matches(groups: readonly string[]): boolean;
  /**
   * Applies the rules to an entry seen with these token groups: activates it (once) when a rule's
   * group is among them, it is inactive and no administrator deactivated it. Answers the entry as
   * it is now.
   */
  apply(user: UserRecord, groups: readonly string[], via: string): UserRecord;
}

export function createProvisioner(directory: Directory, rules: readonly AutoActivateRule[], log: FastifyBaseLogger): Provisioner {
  // A rule naming an undefined attribute or a value not allowed stops the start, not a sign-in.
  for (const rule of rules) {
    try {
      directory.validateAttributes(rule.attributes ?? {});
    } catch (error) {
      throw new Error(`provisioning rule for group ${rule.group}: ${(error as Error).message}`, { cause: error });
    }
  }
  const matching = (groups: readonly string[]) => rules.filter((rule) => groups.includes(rule.group));
  return {
    rules,
    matches: (groups) => matching(groups).length > 0,
    apply(user, groups, via) {
      if (user.active || user.deactivatedAt !== null) return user;
      const hits = matching(groups);
      if (hits.length === 0) return user;
      const attributes: Record<string, AttributeValues> = {};
      for (const rule of hits) for (const [name, values] of Object.entries(rule.attributes ?? {})) attributes[name] ??= values;
      const rule = hits.map((hit) => hit.group).join(',');
      const { user: after, activated } = directory.autoActivate(user.id, rule, attributes);
      if (activated) {
        log.info({ audit: true, event: 'auto-activate', target: after.id, rule, via, attributes: Object.keys(attributes) }, `audit auto-activate ok: ${after.id} by rule ${rule}`);
      }
      return after;
    },
  };
}
