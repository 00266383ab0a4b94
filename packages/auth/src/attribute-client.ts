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
  /** How long answers are kept per user (and per hierarchy name); default 30 s. */
  cacheTtlMs?: number;
  /** Most users kept in the cache (default 10 000; the oldest entry goes first). */
  cacheMaxEntries?: number;
  /** Time limit of one request (default 5 s). */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  now?: () => number;
}

export interface AttributeClient {
  /**
   * The attribute strings of `user` (`clearance=S`, `ianode_read`, …), asked with the caller's own
   * token. An unknown user has none (`[]`). Throws `ATTRIBUTES_UNAVAILABLE` when the access service
   * cannot be reached or answers nonsense, `INVALID_TOKEN` when it refuses the token.
   */
  attributesFor(token: string, user: string): Promise<string[]>;
  /** The tiers (least to most privileged) of a hierarchy, or `undefined` when there is none. */
  hierarchy(name: string, token?: string): Promise<string[] | undefined>;
  /** Forgets cached answers (of one user, or all). */
  clear(user?: string): void;
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
  const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const now = options.now ?? Date.now;
  const userTemplate = userTemplateOf(options.baseUrl);
  const hierarchyTemplate = hierarchyTemplateOf(options.hierarchyUrl, options.baseUrl);

  const users = new Map<string, Entry<string[]>>();
  const hierarchies = new Map<string, Entry<string[] | undefined>>();
  const pendingUsers = new Map<string, Promise<string[]>>();
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

  async function fetchAttributes(token: string, user: string): Promise<string[]> {
    const url = lookupUrl(user);
    const { status, body } = await getJson(url, token);
    if (status === 401) throw invalidToken('rejected', new Error(`${url}: the access service refused the token`));
    if (status === 404) return [];
    const attributes = (body as { attributes?: unknown } | null)?.attributes;
    if (!Array.isArray(attributes) || !attributes.every((a): a is string => typeof a === 'string')) {
      throw new AuthError('ATTRIBUTES_UNAVAILABLE', UNAVAILABLE, { cause: new Error(`${url}: no attributes list in the answer`) });
    }
    return attributes;
  }

  async function fetchHierarchy(name: string, token: string | undefined): Promise<string[] | undefined> {
    const url = hierarchyLookupUrl(name);
    const { status, body } = await getJson(url, token);
    if (status === 401) throw invalidToken('rejected', new Error(`${url}: the access service refused the token`));
    if (status === 404) return undefined;
    const tiers = (body as { tiers?: unknown } | null)?.tiers;
    if (!Array.isArray(tiers) || !tiers.every((t): t is string => typeof t === 'string')) {
      throw new AuthError('ATTRIBUTES_UNAVAILABLE', UNAVAILABLE, { cause: new Error(`${url}: no tiers list in the answer`) });
    }
    return tiers;
  }

  return {
    lookupUrl,
    hierarchyLookupUrl,
    async attributesFor(token, user) {
      const hit = cached(users, user);
      if (hit !== undefined) return [...hit.value];
      let pending = pendingUsers.get(user);
      if (pending === undefined) {
        pending = fetchAttributes(token, user)
          .then((attributes) => {
            remember(users, user, attributes);
            return attributes;
          })
          .finally(() => pendingUsers.delete(user));
        pendingUsers.set(user, pending);
      }
      return [...(await pending)];
    },
    async hierarchy(name, token) {
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
    },
    clear(user) {
      if (user === undefined) {
        users.clear();
        hierarchies.clear();
      } else {
        users.delete(user);
      }
    },
  };
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
