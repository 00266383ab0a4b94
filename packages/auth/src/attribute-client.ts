import { readAttributes, UnreadableAttribute, type AttributeFormat, type AttributeValueParser } from './attribute-format.js';
import { AuthError, invalidToken } from './errors.js';

export interface AttributeClientOptions {
  /**
   * The access service (`USER_ATTRIBUTES_URL`): a base address such as `http://localhost:8091`
   * (then `/users/lookup/{user}` is appended) or a template containing `{user}`.
   */
  baseUrl: string;
  /**
   * Where hierarchies are looked up (`ATTRIBUTE_HIERARCHY_URL`): a template containing `{name}`, or a
   * base address (then `/hierarchies/lookup/{name}` is appended). Default: derived from `baseUrl`.
   */
  hierarchyUrl?: string;
  /**
   * The format of the access service's answers (src/attribute-format.ts): `ianode` (SPEC §6),
   * `reference` (the reference access service: quoted values, groups as `G:and` / `G:or`), or
   * `auto` (decided per answer; the default when `parseAttributeValue` is given, else `ianode`).
   * An answer the format cannot read fails closed (`ATTRIBUTES_UNAVAILABLE`, 503).
   */
  format?: AttributeFormat;
  /** Reads one reference attribute-value (`@ianode/abac`'s `parseAttributeValue`, legacy on); needed to read the reference format. */
  parseAttributeValue?: AttributeValueParser;
  /** How long answers are kept per user (and per hierarchy name); default 30 s. */
  cacheTtlMs?: number;
  /** Most users kept in the cache (default 10 000; the oldest entry goes first). */
  cacheMaxEntries?: number;
  /** Time limit of one request (default 5 s). */
  timeoutMs?: number;
  /** Time limit of all look-ups for one request together (`resolve`; default 5 s). */
  deadlineMs?: number;
  fetch?: typeof globalThis.fetch;
  now?: () => number;
}

/** Whose attributes: the identity key (`iss`, `sub`) caches by, and the subject the URL names. */
export interface Subject {
  /** `identityKey(iss, sub)`: the cache key. */
  identity: string;
  /** `sub`: what `{user}` of the lookup URL becomes. */
  subject: string;
}

/**
 * What the access service said of a caller: `known` (an entry; active, or an answer without an
 * `active` field), `unknown` (404: no entry in its directory) or `inactive` (`active: false`; its
 * attributes are then always empty).
 */
export type DirectoryStatus = 'known' | 'unknown' | 'inactive';

/** Everything one request needs: the attribute strings and the hierarchies of valued attributes. */
export interface Resolved {
  attributes: string[];
  hierarchies: Map<string, string[]>;
  /** Whether the access service knows the caller (the graph server refuses unknown callers by default). */
  status: DirectoryStatus;
}

interface Lookup {
  attributes: string[];
  status: DirectoryStatus;
}

export interface AttributeClient {
  /**
   * The attribute strings of a caller (`clearance=S`, `ianode_read`, …), asked with the caller's own
   * token at `/users/lookup/{sub}` and cached by (iss, sub), never by a display name. An unknown user
   * has none (`[]`). Throws `ATTRIBUTES_UNAVAILABLE` when the access service cannot be reached or
   * answers nonsense, `INVALID_TOKEN` when it refuses the token.
   */
  attributesFor(token: string, who: Subject): Promise<string[]>;
  /**
   * The attributes of a caller and the hierarchies of every attribute they hold with a value (not
   * `true`/`false`), the hierarchies fetched in parallel, all under one deadline (`deadlineMs`):
   * past it, `ATTRIBUTES_UNAVAILABLE`.
   */
  resolve(token: string, who: Subject): Promise<Resolved>;
  /** The tiers (least to most privileged) of a hierarchy, or `undefined` when there is none. */
  hierarchy(name: string, token?: string): Promise<string[] | undefined>;
  /** Forgets cached answers (of one identity key, or all). */
  clear(identity?: string): void;
  /** The lookup URL of a user (for messages and tests). */
  lookupUrl(user: string): string;
  /** The hierarchy URL of a name. */
  hierarchyLookupUrl(name: string): string;
}

interface Entry<T> {
  value: T;
  expires: number;
}

const UNAVAILABLE = 'attribute service unavailable';

/** A client of the access service for the graph server: per-user cache, fail closed. */
export function createAttributeClient(options: AttributeClientOptions): AttributeClient {
  const ttl = options.cacheTtlMs ?? 30_000;
  const maxEntries = options.cacheMaxEntries ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const deadlineMs = options.deadlineMs ?? 5_000;
  const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const now = options.now ?? Date.now;
  const parseAttributeValue = options.parseAttributeValue;
  const format = options.format ?? (parseAttributeValue === undefined ? 'ianode' : 'auto');
  if (format !== 'ianode' && parseAttributeValue === undefined) throw new TypeError(`attribute format ${format} needs parseAttributeValue (@ianode/abac)`);
  const userTemplate = userTemplateOf(options.baseUrl);
  const hierarchyTemplate = hierarchyTemplateOf(options.hierarchyUrl, options.baseUrl);

  const users = new Map<string, Entry<Lookup>>();
  const hierarchies = new Map<string, Entry<string[] | undefined>>();
  const pendingUsers = new Map<string, Promise<Lookup>>();
  const pendingHierarchies = new Map<string, Promise<string[] | undefined>>();

  const lookupUrl = (user: string) => userTemplate.replaceAll('{user}', encodeURIComponent(user));
  const hierarchyLookupUrl = (name: string) => hierarchyTemplate.replaceAll('{name}', encodeURIComponent(name));

  async function getJson(url: string, token: string | undefined): Promise<{ status: number; body: unknown }> {
    let response: Response;
    try {
      response = await fetchFn(url, {
        headers: { accept: 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (cause) {
      throw new AuthError('ATTRIBUTES_UNAVAILABLE', UNAVAILABLE, { cause: new Error(`${url}: unreachable`, { cause }) });
    }
    const text = await response.text().catch(() => '');
    if (response.status === 404 || response.status === 401) return { status: response.status, body: undefined };
    if (!response.ok) {
      throw new AuthError('ATTRIBUTES_UNAVAILABLE', UNAVAILABLE, { cause: new Error(`${url}: answered HTTP ${response.status}`) });
    }
    try {
      return { status: response.status, body: JSON.parse(text) };
    } catch (cause) {
      throw new AuthError('ATTRIBUTES_UNAVAILABLE', UNAVAILABLE, { cause: new Error(`${url}: not JSON`, { cause }) });
    }
  }

  function remember<T>(cache: Map<string, Entry<T>>, key: string, value: T): void {
    cache.delete(key);
    if (cache.size >= maxEntries) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    cache.set(key, { value, expires: now() + ttl });
  }

  function cached<T>(cache: Map<string, Entry<T>>, key: string): Entry<T> | undefined {
    const entry = cache.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires <= now()) {
      cache.delete(key);
      return undefined;
    }
    return entry;
  }

  async function fetchAttributes(token: string, subject: string): Promise<Lookup> {
    const url = lookupUrl(subject);
    const { status, body } = await getJson(url, token);
    if (status === 401) throw invalidToken('rejected', new Error(`${url}: the access service refused the token`));
    if (status === 404) return { attributes: [], status: 'unknown' };
    const answer = body as { attributes?: unknown; active?: unknown } | null;
    const attributes = answer?.attributes;
    if (!Array.isArray(attributes) || !attributes.every((a): a is string => typeof a === 'string')) {
      throw new AuthError('ATTRIBUTES_UNAVAILABLE', UNAVAILABLE, { cause: new Error(`${url}: no attributes list in the answer`) });
    }
    // Only a real `false` marks an inactive entry; whatever it lists, it then holds nothing.
    if (answer?.active === false) return { attributes: [], status: 'inactive' };
    try {
      return { attributes: readAttributes(attributes, format, parseAttributeValue), status: 'known' };
    } catch (cause) {
      if (!(cause instanceof UnreadableAttribute)) throw cause;
      // Never a partial list: one string the format cannot read fails the whole answer closed.
      throw new AuthError('ATTRIBUTES_UNAVAILABLE', UNAVAILABLE, { cause: new Error(`${url}: unreadable attribute in the answer (${format} format): ${cause.message}`) });
    }
  }

  async function fetchHierarchy(name: string, token: string | undefined): Promise<string[] | undefined> {
    const url = hierarchyLookupUrl(name);
    const { status, body } = await getJson(url, token);
    if (status === 401) throw invalidToken('rejected', new Error(`${url}: the access service refused the token`));
    if (status === 404) return undefined;
    // ianode answers `{ name, tiers }`, the reference `{ uuid, name, tiers, readonly }`; RDF-ABAC
    // also reads `levels` when there is no `tiers`.
    const answer = body as { tiers?: unknown; levels?: unknown } | null;
    const tiers = answer?.tiers ?? answer?.levels;
    if (!Array.isArray(tiers) || !tiers.every((t): t is string => typeof t === 'string')) {
      throw new AuthError('ATTRIBUTES_UNAVAILABLE', UNAVAILABLE, { cause: new Error(`${url}: no tiers list in the answer`) });
    }
    return tiers;
  }

  return {
    lookupUrl,
    hierarchyLookupUrl,
    attributesFor,
    hierarchy,
    async resolve(token, who) {
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), deadlineMs);
      timer.unref?.();
      try {
        const { attributes, status } = await beforeDeadline(lookupFor(token, who), deadline.signal);
        const names = valuedNames(attributes);
        const tiers = await beforeDeadline(Promise.all(names.map((name) => hierarchy(name, token))), deadline.signal);
        const hierarchies = new Map<string, string[]>();
        names.forEach((name, i) => {
          const list = tiers[i];
          if (list !== undefined && list.length > 0) hierarchies.set(name, list);
        });
        return { attributes: [...attributes], hierarchies, status };
      } finally {
        clearTimeout(timer);
      }
    },
    clear(identity) {
      if (identity === undefined) {
        users.clear();
        hierarchies.clear();
      } else {
        users.delete(identity);
      }
    },
  };

  async function attributesFor(token: string, who: Subject): Promise<string[]> {
    return [...(await lookupFor(token, who)).attributes];
  }

  async function lookupFor(token: string, who: Subject): Promise<Lookup> {
    const key = who.identity;
    const hit = cached(users, key);
    if (hit !== undefined) return hit.value;
    let pending = pendingUsers.get(key);
    if (pending === undefined) {
      pending = fetchAttributes(token, who.subject)
        .then((lookup) => {
          remember(users, key, lookup);
          return lookup;
        })
        .finally(() => pendingUsers.delete(key));
      pendingUsers.set(key, pending);
    }
    return pending;
  }

  async function hierarchy(name: string, token?: string): Promise<string[] | undefined> {
      const hit = cached(hierarchies, name);
      if (hit !== undefined) return hit.value === undefined ? undefined : [...hit.value];
      let pending = pendingHierarchies.get(name);
      if (pending === undefined) {
        pending = fetchHierarchy(name, token)
          .then((tiers) => {
            remember(hierarchies, name, tiers);
            return tiers;
          })
          .finally(() => pendingHierarchies.delete(name));
        pendingHierarchies.set(name, pending);
      }
    const tiers = await pending;
    return tiers === undefined ? undefined : [...tiers];
  }
}

/** Names of the attributes held with a value other than true/false (the ones a hierarchy can matter for). */
function valuedNames(attributes: readonly string[]): string[] {
  const names = new Set<string>();
  for (const attribute of attributes) {
    const at = attribute.indexOf('=');
    if (at <= 0) continue;
    const value = attribute.slice(at + 1);
    if (value !== 'true' && value !== 'false') names.add(attribute.slice(0, at));
  }
  return [...names];
}

/** `promise`, or `ATTRIBUTES_UNAVAILABLE` once `signal` aborts (the one deadline of a request). */
function beforeDeadline<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(deadlineError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(deadlineError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function deadlineError(): AuthError {
  return new AuthError('ATTRIBUTES_UNAVAILABLE', UNAVAILABLE, { cause: new Error('attribute and hierarchy look-ups over the deadline') });
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function userTemplateOf(baseUrl: string): string {
  if (baseUrl.includes('{user}')) return baseUrl;
  return `${trimSlash(baseUrl)}/users/lookup/{user}`;
}

function hierarchyTemplateOf(hierarchyUrl: string | undefined, baseUrl: string): string {
  if (hierarchyUrl !== undefined) {
    return hierarchyUrl.includes('{name}') ? hierarchyUrl : `${trimSlash(hierarchyUrl)}/hierarchies/lookup/{name}`;
  }
  if (!baseUrl.includes('{user}')) return `${trimSlash(baseUrl)}/hierarchies/lookup/{name}`;
  const at = baseUrl.indexOf('/users/lookup/{user}');
  if (at >= 0) return `${baseUrl.slice(0, at)}/hierarchies/lookup/{name}`;
  return `${new URL(baseUrl.replaceAll('{user}', 'user')).origin}/hierarchies/lookup/{name}`;
}
