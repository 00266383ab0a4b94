/** `/ds/graphql` over HTTP (SPEC §4, §5): same tokens, permission and views as SPARQL; the
 * GraphQL-over-HTTP conventions; the query page; switched off = 404. */
import { describe, expect, it } from 'vitest';
import { ADMIN_AND_USER, graphqlServers, labelledTrig, SPEC_EXAMPLE } from './helpers.js';

const DATA = labelledTrig([...SPEC_EXAMPLE, [':person9876 :knows :person4321', 'employee']]);

const DIRECTORY = { ...ADMIN_AND_USER, 'outsider@test': ['engineer'] };

const EXAMPLE = '{ node(uri: "http://example/person4321") { id properties { predicate value } } }';
const EXACT = '{"data":{"node":{"id":"http://example/person4321","properties":[{"predicate":"http://example/phone","value":"0400 111 333"}]}}}';

const fx = graphqlServers(DIRECTORY, (store) => store.load(DATA, { format: 'application/trig' }));

function post(body: unknown, user: string | null = 'user@test', headers: Record<string, string> = {}, url = fx.base) {
  return fetch(`${url}/ds/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(user ? { authorization: `Bearer ${fx.tokens[user]}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function get(params: Record<string, string>, user: string | null = 'user@test', headers: Record<string, string> = {}) {
  return fetch(`${fx.base}/ds/graphql?${new URLSearchParams(params)}`, { headers: { ...(user ? { authorization: `Bearer ${fx.tokens[user]}` } : {}), ...headers } });
}

describe('POST and GET', () => {
  it('the SPEC §5 example, exactly, for the ordinary user (POST and GET)', async () => {
    const r = await post({ query: EXAMPLE });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await r.text()).toBe(EXACT);
    const g = await get({ query: EXAMPLE });
    expect(g.status).toBe(200);
    expect(await g.text()).toBe(EXACT);
  });
  it('the admin sees more of the same node, through the same view as SPARQL', async () => {
    const q = '{ node(uri: "http://example/person4321") { inRels { domain_id predicate } } p: node(uri: "http://example/person9876") { properties { value } } }';
    expect(await (await post({ query: q }, 'admin@test')).json()).toEqual({
      data: { node: { inRels: [{ domain_id: 'http://example/person9876', predicate: 'http://example/knows' }] }, p: { properties: [{ value: '9876' }] } },
    });
    expect(await (await post({ query: q }, 'user@test')).json()).toEqual({ data: { node: { inRels: [] }, p: null } });
  });
  it('variables and operationName (POST body and GET parameters)', async () => {
    const query = 'query A($u: String!) { node(uri: $u) { id } } query B { x: node(uri: "http://nowhere") { id } }';
    const r = await post({ query, variables: { u: 'http://example/person4321' }, operationName: 'A' });
    expect(await r.json()).toEqual({ data: { node: { id: 'http://example/person4321' } } });
    const g = await get({ query, variables: JSON.stringify({ u: 'http://example/person4321' }), operationName: 'A' });
    expect(await g.json()).toEqual({ data: { node: { id: 'http://example/person4321' } } });
  });
  it('application/graphql-response+json when asked', async () => {
    const r = await post({ query: EXAMPLE }, 'user@test', { accept: 'application/graphql-response+json, application/json;q=0.9' });
    expect(r.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(await r.text()).toBe(EXACT);
  });
  it('no header depends on hidden data: a node hidden from the caller and one that does not exist answer alike', async () => {
    // person9876 exists, but every triple about it is labelled `employee`; the user is a contractor.
    const answer = async (uri: string) => {
      const r = await post({ query: `{ node(uri: "${uri}") { id properties { value } inRels { domain_id } } }` });
      const headers = Object.fromEntries([...r.headers].filter(([name]) => name !== 'date' && name !== 'x-request-id'));
      return { status: r.status, headers, body: await r.text() };
    };
    const hidden = await answer('http://example/person9876');
    const absent = await answer('http://example/person0000');
    expect(hidden.body).toBe('{"data":{"node":null}}');
    expect(hidden).toEqual(absent);
    expect(Object.keys(hidden.headers).filter((name) => name.startsWith('x-'))).toEqual([]);
  });
});

describe('errors', () => {
  it('no token: 401 with the challenge; no read permission: 403 naming the operation', async () => {
    const anonymous = await post({ query: EXAMPLE }, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('Bearer');
    expect(await anonymous.text()).not.toContain('0400');
    const outsider = await post({ query: EXAMPLE }, 'outsider@test');
    expect(outsider.status).toBe(403);
    expect((await outsider.json()) as { message: string }).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('read') });
  });
  it('parse, validation and limit errors: 400 with GraphQL errors (both media types)', async () => {
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const parse = await post({ query: '{ node(uri: ' }, 'user@test', { accept });
      expect(parse.status).toBe(400);
      expect(((await parse.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    }
    const unknown = await post({ query: '{ node(uri: "a") { colour } }' });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ errors: [{ message: 'Cannot query field "colour" on type "Node".' }] });
    let deep = 'id';
    for (let i = 0; i < 6; i++) deep = `outRels(limit: 1) { range { ${deep} } }`;
    const tooDeep = await post({ query: `{ node(uri: "a") { ${deep} } }` });
    expect(tooDeep.status).toBe(400);
    expect(await tooDeep.json()).toMatchObject({ errors: [{ extensions: { code: 'DEPTH_LIMIT' } }] });
    const noQuery = await post({ variables: {} });
    expect(noQuery.status).toBe(400);
    expect(await noQuery.json()).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST' } }] });
  });
  it('a limit over 250: a GraphQL error next to the data (200)', async () => {
    const r = await post({ query: '{ node(uri: "http://example/person4321") { properties(limit: 251) { value } } }' });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ data: { node: null }, errors: [{ extensions: { code: 'BAD_PAGING' }, path: ['node', 'properties'] }] });
  });
  it('bad bodies: not JSON 400, other content types 415, bad variables 400', async () => {
    expect((await post('{not json')).status).toBe(400);
    const text = await fetch(`${fx.base}/ds/graphql`, { method: 'POST', headers: { authorization: `Bearer ${fx.tokens['user@test']}`, 'content-type': 'text/plain' }, body: EXAMPLE });
    expect(text.status).toBe(415);
    expect((await get({ query: EXAMPLE, variables: '{oops' })).status).toBe(400);
  });
  it('graphql: false answers 404', async () => {
    const r = await post({ query: EXAMPLE }, 'user@test', {}, fx.offBase);
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('graphql: false') });
  });
});

describe('query page', () => {
  it('a browser asking for HTML gets a self-contained page (no external assets)', async () => {
    const r = await get({}, 'user@test', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await r.text();
    expect(html).toContain('<textarea id="query"');
    expect(html).toContain('fetch(');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!example\/)/);
  });
  it('puts a given query in the page, escaped', async () => {
    const html = await (await get({ query: '{ node(uri: "</textarea><script>") { id } }' }, 'user@test', { accept: 'text/html' })).text();
    expect(html).not.toContain('</textarea><script>');
    expect(html).toContain('&#60;/textarea&#62;');
  });
  it('the page also needs a token', async () => {
    expect((await get({}, null, { accept: 'text/html' })).status).toBe(401);
  });
});
