import { describe, expect, it } from 'vitest';
import { createAttributeClient, identityKey } from '../src/index.js';
import { deadUrl, refusal } from './fixtures.js';

interface Call {
  url: string;
  authorization: string | null;
}

/** An injected fetch answering from a table of URL → [status, body]. */
function fakeFetch(routes: Record<string, [number, unknown] | (() => [number, unknown])>) {
  const calls: Call[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = String(input);
    calls.push({ url, authorization: new Headers(init?.headers).get('authorization') });
    const route = routes[url];
    if (route === undefined) return new Response('{"code":"NOT_FOUND"}', { status: 404 });
    const [status, body] = typeof route === 'function' ? route() : route;
    if (status === 0) throw new TypeError('fetch failed');
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status });
  };
  return { fetch, calls };
}

const who = (sub: string) => ({ identity: identityKey('http://idp.test/pool', sub), subject: sub });
const BASE = 'http://access.test:8091';
const ALICE = `${BASE}/users/lookup/alice%40example.org`;

describe('createAttributeClient', () => {
  it('looks a user up with the caller token and caches per user for the TTL', async () => {
    let attributes = ['clearance=S', 'ianode_read'];
    const { fetch, calls } = fakeFetch({ [ALICE]: () => [200, { id: 'alice@example.org', attributes }] });
    const clock = { t: 0 };
    const client = createAttributeClient({ baseUrl: `${BASE}/`, fetch, now: () => clock.t });
    expect(await client.attributesFor('tok-1', who('alice@example.org'))).toEqual(['clearance=S', 'ianode_read']);
    expect(calls).toEqual([{ url: ALICE, authorization: 'Bearer tok-1' }]);

    attributes = ['clearance=TS'];
    clock.t = 29_999;
    expect(await client.attributesFor('tok-1', who('alice@example.org'))).toEqual(['clearance=S', 'ianode_read']);
    expect(calls).toHaveLength(1);
    clock.t = 30_000;
    expect(await client.attributesFor('tok-2', who('alice@example.org'))).toEqual(['clearance=TS']);
    expect(calls).toHaveLength(2);
    client.clear(who('alice@example.org').identity);
    await client.attributesFor('tok-2', who('alice@example.org'));
    expect(calls).toHaveLength(3);
  });

  it('shares one request between concurrent callers for a user', async () => {
    const { fetch, calls } = fakeFetch({ [ALICE]: [200, { attributes: ['a'] }] });
    const client = createAttributeClient({ baseUrl: BASE, fetch });
    const answers = await Promise.all(Array.from({ length: 5 }, () => client.attributesFor('t', who('alice@example.org'))));
    expect(answers).toEqual(Array.from({ length: 5 }, () => ['a']));
    expect(calls).toHaveLength(1);
  });

  it('resolve says whether the access service knows the caller: known, unknown (404), inactive (active: false, attributes dropped)', async () => {
    const BOB = `${BASE}/users/lookup/bob`;
    const CAROL = `${BASE}/users/lookup/carol`;
    const { fetch, calls } = fakeFetch({ [ALICE]: [200, { attributes: ['a'], active: true }], [BOB]: [200, { attributes: ['ianode_read'], active: false }], [CAROL]: [200, { attributes: [] }] });
    const client = createAttributeClient({ baseUrl: BASE, fetch });
    expect(await client.resolve('t', who('alice@example.org'))).toMatchObject({ attributes: ['a'], status: 'known' });
    expect(await client.resolve('t', who('bob'))).toMatchObject({ attributes: [], status: 'inactive' });
    expect(await client.resolve('t', who('carol'))).toMatchObject({ attributes: [], status: 'known' });
    expect(await client.resolve('t', who('nobody'))).toMatchObject({ attributes: [], status: 'unknown' });
    // The status is cached with the attributes.
    expect(await client.resolve('t', who('nobody'))).toMatchObject({ status: 'unknown' });
    expect(await client.attributesFor('t', who('bob'))).toEqual([]);
    expect(calls).toHaveLength(4);
  });

  it('gives an unknown user no attributes', async () => {
    const { fetch } = fakeFetch({});
    const client = createAttributeClient({ baseUrl: BASE, fetch });
    expect(await client.attributesFor('t', who('nobody'))).toEqual([]);
  });

  it.each([
    ['a server error', [500, { code: 'INTERNAL' }]],
    ['a 403', [403, { code: 'FORBIDDEN' }]],
    ['HTML', [200, '<html>proxy login</html>']],
    ['no attributes list', [200, { id: 'x' }]],
    ['non-string attributes', [200, { attributes: ['a', 1] }]],
    ['a network failure', [0, null]],
  ] as const)('fails closed on %s', async (_name, answer) => {
    const { fetch } = fakeFetch({ [ALICE]: answer as [number, unknown] });
    const client = createAttributeClient({ baseUrl: BASE, fetch });
    const error = await refusal(client.attributesFor('t', who('alice@example.org')));
    expect(error.code).toBe('ATTRIBUTES_UNAVAILABLE');
    expect(error.message).toBe('attribute service unavailable');
  });

  it('does not cache a failure', async () => {
    let up = false;
    const { fetch } = fakeFetch({ [ALICE]: () => (up ? [200, { attributes: ['a'] }] : [503, {}]) });
    const client = createAttributeClient({ baseUrl: BASE, fetch });
    await refusal(client.attributesFor('t', who('alice@example.org')));
    up = true;
    expect(await client.attributesFor('t', who('alice@example.org'))).toEqual(['a']);
  });

  it('reports a token the access service refuses as INVALID_TOKEN', async () => {
    const { fetch } = fakeFetch({ [ALICE]: [401, { code: 'INVALID_TOKEN' }] });
    const client = createAttributeClient({ baseUrl: BASE, fetch });
    expect((await refusal(client.attributesFor('t', who('alice@example.org')))).code).toBe('INVALID_TOKEN');
  });

  it('fails closed when nothing listens', async () => {
    const client = createAttributeClient({ baseUrl: await deadUrl() });
    expect((await refusal(client.attributesFor('t', who('u')))).code).toBe('ATTRIBUTES_UNAVAILABLE');
    expect((await refusal(client.hierarchy('clearance'))).code).toBe('ATTRIBUTES_UNAVAILABLE');
  });

  it('fills a {user} template, and derives the hierarchy URL from it', () => {
    const client = createAttributeClient({ baseUrl: 'http://a:8091/v1/users/lookup/{user}' });
    expect(client.lookupUrl('a b/c')).toBe('http://a:8091/v1/users/lookup/a%20b%2Fc');
    expect(client.hierarchyLookupUrl('clearance')).toBe('http://a:8091/v1/hierarchies/lookup/clearance');
    const other = createAttributeClient({ baseUrl: 'http://a:8091/attrs?u={user}' });
    expect(other.lookupUrl('x@y')).toBe('http://a:8091/attrs?u=x%40y');
    expect(other.hierarchyLookupUrl('c')).toBe('http://a:8091/hierarchies/lookup/c');
    expect(createAttributeClient({ baseUrl: BASE, hierarchyUrl: 'http://h/tiers/{name}' }).hierarchyLookupUrl('c')).toBe('http://h/tiers/c');
    expect(createAttributeClient({ baseUrl: BASE, hierarchyUrl: 'http://h/' }).hierarchyLookupUrl('c')).toBe('http://h/hierarchies/lookup/c');
  });

  it('looks up hierarchies, caches them, and answers undefined for an unknown one', async () => {
    const { fetch, calls } = fakeFetch({ [`${BASE}/hierarchies/lookup/clearance`]: [200, { name: 'clearance', tiers: ['O', 'OS', 'S', 'TS'] }] });
    const client = createAttributeClient({ baseUrl: BASE, fetch });
    expect(await client.hierarchy('clearance', 'tok')).toEqual(['O', 'OS', 'S', 'TS']);
    expect(await client.hierarchy('clearance')).toEqual(['O', 'OS', 'S', 'TS']);
    expect(await client.hierarchy('colour')).toBeUndefined();
    expect(await client.hierarchy('colour')).toBeUndefined();
    expect(calls.map((c) => [c.url, c.authorization])).toEqual([
      [`${BASE}/hierarchies/lookup/clearance`, 'Bearer tok'],
      [`${BASE}/hierarchies/lookup/colour`, null],
    ]);
  });

  it('fails closed on a malformed hierarchy answer', async () => {
    const { fetch } = fakeFetch({ [`${BASE}/hierarchies/lookup/c`]: [200, { tiers: 'O,S' }] });
    const client = createAttributeClient({ baseUrl: BASE, fetch });
    expect((await refusal(client.hierarchy('c'))).code).toBe('ATTRIBUTES_UNAVAILABLE');
  });

  it('bounds the cache', async () => {
    const { fetch, calls } = fakeFetch({ [`${BASE}/users/lookup/a`]: [200, { attributes: [] }], [`${BASE}/users/lookup/b`]: [200, { attributes: [] }] });
    const client = createAttributeClient({ baseUrl: BASE, fetch, cacheMaxEntries: 1 });
    await client.attributesFor('t', who('a'));
    await client.attributesFor('t', who('b'));
    await client.attributesFor('t', who('a'));
    expect(calls).toHaveLength(3);
  });

  it('caches by (iss, sub): the same subject at another issuer, or another subject, is looked up on its own', async () => {
    const { fetch, calls } = fakeFetch({ [`${BASE}/users/lookup/s1`]: [200, { attributes: ['clearance=TS'] }], [`${BASE}/users/lookup/s2`]: [200, { attributes: [] }] });
    const client = createAttributeClient({ baseUrl: BASE, fetch });
    const a = { identity: identityKey('http://idp-a', 's1'), subject: 's1' };
    const b = { identity: identityKey('http://idp-b', 's1'), subject: 's1' };
    const c = { identity: identityKey('http://idp-a', 's2'), subject: 's2' };
    expect(await client.attributesFor('ta', a)).toEqual(['clearance=TS']);
    expect(await client.attributesFor('tc', c)).toEqual([]);
    await client.attributesFor('tb', b);
    expect(calls.map((call) => call.authorization)).toEqual(['Bearer ta', 'Bearer tc', 'Bearer tb']);
    expect(identityKey('a', 'b\u0000c')).not.toBe(identityKey('a\u0000b', 'c'));
  });

  it('resolve fetches the hierarchies of valued attributes in parallel', async () => {
    const waiting: Array<() => void> = [];
    let started = 0;
    const fetch: typeof globalThis.fetch = async (input) => {
      const url = String(input);
      if (url.endsWith('/users/lookup/s')) return new Response(JSON.stringify({ attributes: ['clearance=S', 'rank=2', 'ianode_read', 'flag=true'] }));
      const name = url.split('/').pop()!;
      started += 1;
      // Each hierarchy answer waits until both requests have started: a sequential client would hang.
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (started === 2) waiting.splice(0).forEach((go) => go());
      });
      return new Response(JSON.stringify({ name, tiers: ['1', '2', '3'] }));
    };
    const client = createAttributeClient({ baseUrl: BASE, fetch, deadlineMs: 60_000 });
    const resolved = await client.resolve('t', who('s'));
    expect(resolved.attributes).toEqual(['clearance=S', 'rank=2', 'ianode_read', 'flag=true']);
    expect([...resolved.hierarchies.keys()].sort()).toEqual(['clearance', 'rank']);
    expect(started).toBe(2);
  });

  it('resolve fails closed with ATTRIBUTES_UNAVAILABLE once the one deadline passes', async () => {
    const fetch: typeof globalThis.fetch = async (input, init) => {
      if (String(input).endsWith('/users/lookup/s')) return new Response(JSON.stringify({ attributes: ['clearance=S'] }));
      // A hierarchy look-up that never answers within its own (long) time limit.
      return new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    };
    const client = createAttributeClient({ baseUrl: BASE, fetch, timeoutMs: 600_000, deadlineMs: 50 });
    const error = await refusal(client.resolve('t', who('s')));
    expect(error.code).toBe('ATTRIBUTES_UNAVAILABLE');
    expect(String((error.cause as Error).message)).toContain('deadline');
  });
});
