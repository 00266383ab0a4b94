/**
 * Reference compatibility (issue 17, item 6; packages/access-service/README.md "Reference compatibility"):
 * with `compat: reference` the access service answers `/users/lookup/{user}` and
 * `/hierarchies/lookup/{name}` as the reference access service (ianode-access) does, so reference
 * clients (RDF-ABAC's remote attribute store in secure-agent-graph) can use it, and adds the
 * reference's `/users/retrieve/{sub}`, `/user-info/self` and `/countries`.
 *
 * The reference's answers, as its own tests and OpenAPI document show them:
 * - a lookup is `{ id, attributes: [...] }` where each user attribute is written under its DATA
 *   name with the value single-quoted (`classification='S'`, `permitted_nationalities='GBR'`), an
 *   attribute without a data name is left out, and each group `G` of the user is written twice,
 *   first all as `G:and`, then all as `G:or`; an inactive user has `attributes: []`;
 * - a hierarchy is looked up by the data name (`classification`), or with `?isUserAttribute=true`
 *   by the user-side name (`clearance`), and answers `{ uuid, name, tiers, readonly }` with the data
 *   name as `name`.
 *
 * Serving lookups without a token (as the reference does, and as RDF-ABAC's client needs: it sends
 * none) is `compat.unauthenticatedLookup: true`, never the default, and only to clients on a private
 * network: the addresses of `compat.trustedNetworks`, or, without that list, loopback and private
 * addresses while the service itself listens on such an address only.
 */
import { createHash } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import type { UserRecord } from './directory/types.js';
import { effectiveGroups } from './directory/data-attributes.js';

export interface CompatConfig {
  /** The only mode: answer as the reference access service. */
  mode: 'reference';
  /**
   * User-side attribute name → data-side name written in lookups (`null`: never written, as the
   * reference's `personnel_type`). Names not listed are written unchanged. Default: the reference's
   * own table, `DEFAULT_ATTRIBUTE_NAMES`.
   */
  attributeNames: Record<string, string | null>;
  /** Serve `/users/lookup` and `/users/retrieve` without a token to trusted clients (default false). */
  unauthenticatedLookup: boolean;
  /** CIDR blocks (or single addresses) whose clients may look up without a token. */
  trustedNetworks: string[];
}

/** The reference access service's default attributes: user-side name → data-side name. */
export const DEFAULT_ATTRIBUTE_NAMES: Readonly<Record<string, string | null>> = Object.freeze({
  clearance: 'classification',
  nationality: 'permitted_nationalities',
  deployed_organisation: 'permitted_organisations',
  personnel_type: null,
});

// Attribute names written bare; anything else is quoted (ianode's directory allows only words).
const BARE_NAME = /^[\p{L}\p{Nd}_](?:[\p{L}\p{M}\p{Nd}_.:+-]*[\p{L}\p{M}\p{Nd}_])?$/u;

/** Checks the `compat` section of the configuration file (throws `Error` naming the field). */
export function checkCompat(value: unknown, source: string): CompatConfig | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  if (value === 'reference') return { mode: 'reference', attributeNames: { ...DEFAULT_ATTRIBUTE_NAMES }, unauthenticatedLookup: false, trustedNetworks: [] };
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${source}: compat must be "reference" or a mapping with mode: reference`);
  const known = new Set(['mode', 'attributeNames', 'unauthenticatedLookup', 'trustedNetworks']);
  for (const key of Object.keys(value)) if (!known.has(key)) throw new Error(`${source}: unknown key compat.${key} (expected ${[...known].join(', ')})`);
  const { mode, attributeNames, unauthenticatedLookup, trustedNetworks } = value as Record<string, unknown>;
  if (mode !== 'reference') throw new Error(`${source}: compat.mode must be reference, got ${JSON.stringify(mode)}`);
  let names: Record<string, string | null> = { ...DEFAULT_ATTRIBUTE_NAMES };
  if (attributeNames !== undefined && attributeNames !== null) {
    if (typeof attributeNames !== 'object' || Array.isArray(attributeNames)) {
      throw new Error(`${source}: compat.attributeNames must be a mapping of user attribute names to data attribute names (or null)`);
    }
    names = {};
    const targets = new Map<string, string>();
    for (const [from, to] of Object.entries(attributeNames as Record<string, unknown>)) {
      if (!BARE_NAME.test(from)) throw new Error(`${source}: compat.attributeNames: ${JSON.stringify(from)} is not an attribute name`);
      if (to !== null && (typeof to !== 'string' || !BARE_NAME.test(to))) {
        throw new Error(`${source}: compat.attributeNames.${from} must be a data attribute name (a word) or null, got ${JSON.stringify(to)}`);
      }
      if (typeof to === 'string') {
        const other = targets.get(to);
        if (other !== undefined) throw new Error(`${source}: compat.attributeNames: ${other} and ${from} both map to ${to}; a data name needs one user name`);
        targets.set(to, from);
      }
      names[from] = to as string | null;
    }
  }
  // A data name given by a mapping must not also be kept as itself (two sources for one data name).
  for (const [from, to] of Object.entries(names)) {
    if (to !== null && to !== from && names[to] === to) throw new Error(`${source}: compat.attributeNames: ${from} maps to ${to}, which is also kept as itself`);
  }
  if (unauthenticatedLookup !== undefined && typeof unauthenticatedLookup !== 'boolean') throw new Error(`${source}: compat.unauthenticatedLookup must be true or false`);
  const networks: string[] = [];
  if (trustedNetworks !== undefined && trustedNetworks !== null) {
    if (!Array.isArray(trustedNetworks)) throw new Error(`${source}: compat.trustedNetworks must be a list of CIDR blocks`);
    trustedNetworks.forEach((entry: unknown, i) => {
      if (typeof entry !== 'string') throw new Error(`${source}: compat.trustedNetworks[${i}] must be a CIDR block such as 10.0.0.0/8`);
      parseCidr(entry, `${source}: compat.trustedNetworks[${i}]`);
      networks.push(entry);
    });
  }
  if (networks.length > 0 && unauthenticatedLookup !== true) {
    throw new Error(`${source}: compat.trustedNetworks is set but compat.unauthenticatedLookup is not true: it would have no effect`);
  }
  return { mode: 'reference', attributeNames: names, unauthenticatedLookup: unauthenticatedLookup === true, trustedNetworks: networks };
}

function parseCidr(text: string, where: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) throw new Error(`${where}: ${JSON.stringify(text)} is not an address or CIDR block`);
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (prefixText !== undefined && !/^\d+$/.test(prefixText))) {
    throw new Error(`${where}: ${JSON.stringify(text)} has a bad prefix length (0 to ${max})`);
  }
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

// Loopback, RFC 1918, link-local, carrier-grade NAT (RFC 6598) and IPv6 unique-local / link-local.
const PRIVATE_BLOCKS: ReadonlyArray<[string, number, 'ipv4' | 'ipv6']> = [
  ['127.0.0.0', 8, 'ipv4'], ['10.0.0.0', 8, 'ipv4'], ['172.16.0.0', 12, 'ipv4'], ['192.168.0.0', 16, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'], ['100.64.0.0', 10, 'ipv4'],
  ['::1', 128, 'ipv6'], ['fc00::', 7, 'ipv6'], ['fe80::', 10, 'ipv6'],
];

function blockListOf(entries: ReadonlyArray<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  // node:net's BlockList does the address arithmetic (IPv4-mapped IPv6 included).
  const list = new BlockList();
  for (const [address, prefix, family] of entries) list.addSubnet(address, prefix, family);
  return list;
}

const PRIVATE = blockListOf(PRIVATE_BLOCKS);

/** Whether `address` (a client or listening address) is loopback or private. */
export function isPrivateAddress(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (plain === 'localhost') return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(plain);
  const candidate = mapped ? mapped[1]! : plain;
  const version = isIP(candidate);
  if (version === 0) return false;
  return PRIVATE.check(candidate, version === 4 ? 'ipv4' : 'ipv6');
}

/** Who may look up without a token: a predicate over the client's socket address. */
export function trustedClients(config: CompatConfig): (address: string | undefined) => boolean {
  if (!config.unauthenticatedLookup) return () => false;
  if (config.trustedNetworks.length === 0) return (address) => address !== undefined && isPrivateAddress(address);
  const list = blockListOf(config.trustedNetworks.map((entry) => {
    const { address, prefix, family } = parseCidr(entry, 'compat.trustedNetworks');
    return [address, prefix, family];
  }));
  return (address) => {
    if (address === undefined) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    const candidate = mapped ? mapped[1]! : address;
    const version = isIP(candidate);
    return version !== 0 && list.check(candidate, version === 4 ? 'ipv4' : 'ipv6');
  };
}

/**
 * Refuses to listen on `host` when lookups without a token would then be open to other networks:
 * without `trustedNetworks`, the service must listen on a loopback or private address only (not
 * `0.0.0.0` / `::`, which take every interface).
 */
export function checkListenHost(config: CompatConfig | undefined, host: string): void {
  if (config === undefined || !config.unauthenticatedLookup || config.trustedNetworks.length > 0) return;
  if (!isPrivateAddress(host)) {
    throw new Error(
      `compat.unauthenticatedLookup is on without compat.trustedNetworks, so the service must listen on a loopback or private address, not ${host}: ` +
        'set HOST to such an address or list the networks allowed to look up without a token in compat.trustedNetworks',
    );
  }
}

/** The data-side name of a user attribute (`null`: not written). */
export function dataNameOf(config: CompatConfig, userName: string): string | null {
  return Object.prototype.hasOwnProperty.call(config.attributeNames, userName) ? config.attributeNames[userName]! : userName;
}

/** The user-side name whose data name is `dataName`, if any. */
export function userNameOf(config: CompatConfig, dataName: string): string | undefined {
  for (const [from, to] of Object.entries(config.attributeNames)) if (to === dataName) return from;
  // An unlisted name is its own data name; a listed one is renamed (or hidden) and not found by its own name.
  return Object.prototype.hasOwnProperty.call(config.attributeNames, dataName) ? undefined : dataName;
}

/** `text` in single quotes with Turtle escapes (the reference quotes every value with `'`). */
export function singleQuoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The reference's lookup attributes of a user: `data_name='value'` per value of each attribute that
 * has a data name, then `G:and` for every group, then `G:or` for every group. Inactive: none.
 */
export function referenceAttributes(config: CompatConfig, user: UserRecord, tokenGroups: readonly string[]): string[] {
  if (!user.active) return [];
  // A Set keeps the first-seen order: the attributes in order, each once.
  const out = new Set<string>();
  const add = (attribute: string) => out.add(attribute);
  for (const [name, values] of Object.entries(user.attributes)) {
    const dataName = dataNameOf(config, name);
    if (dataName === null) continue;
    const written = BARE_NAME.test(dataName) ? dataName : singleQuoted(dataName);
    for (const value of values) add(`${written}=${singleQuoted(value)}`);
  }
  const groups = effectiveGroups(user, tokenGroups);
  for (const group of groups) add(`${group}:and`);
  for (const group of groups) add(`${group}:or`);
  return [...out];
}

/** A stable UUID for a hierarchy (the reference answers its database id; ianode has none). */
export function hierarchyUuid(name: string): string {
  const hex = createHash('sha256').update(`ianode hierarchy ${name}`).digest('hex');
  // Laid out as a version 8 (name-based, custom hash) UUID of RFC 9562.
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
