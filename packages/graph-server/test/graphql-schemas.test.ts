/** graphql-jena's four schemas over HTTP (issue 17): `/ds/graphql` and `/ds/ianode/graphql` (IES),
 * `/ds/traversal/graphql`, `/ds/dataset/graphql`, and their `validate` endpoints; each answers over
 * the caller's view (two users, different answers), with the same authentication and permission. */
import { describe, expect, it } from 'vitest';
import { graphqlServers } from './helpers.js';

const PREFIXES = `PREFIX ies: <http://ies.data.gov.uk/ontology/ies4#>
PREFIX : <http://example/>
`;
/** Everyone may read these. */
const PUBLIC = `${PREFIXES}
:luke a ies:Person ; :name "Luke Skywalker" .
:birth a ies:BirthState ; ies:isStartOf :luke ; ies:inPeriod :p1 .
:p1 ies:iso8601PeriodRepresentation "1977-05-25" .
:death a ies:DeathState ; ies:inPeriod :p2 .
:p2 ies:iso8601PeriodRepresentation "2019-12-20" .`;
/** Employees only. */
const EMPLOYEES = `${PREFIXES}
:luke :codename "red five" .
:death ies:isEndOf :luke .`;

const DIRECTORY = {
  'admin@test': ['employee', 'ianode_read'],
  'user@test': ['contractor', 'ianode_read'],
  'outsider@test': ['engineer'],
};

const fx = graphqlServers(DIRECTORY, async (store) => {
  await store.load(PUBLIC, { format: 'application/trig', label: '*' });
  await store.load(EMPLOYEES, { format: 'application/trig', label: 'employee' });
});

function post(path: string, query: string, user: string | null = 'user@test', variables?: Record<string, unknown>, url = fx.base) {
  return fetch(`${url}/ds${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(user ? { authorization: `Bearer ${fx.tokens[user]}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
}
async function data(path: string, query: string, user = 'user@test', variables?: Record<string, unknown>) {
  const r = await post(path, query, user, variables);
  const body = (await r.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
  expect(body.errors).toBeUndefined();
  expect(r.status).toBe(200);
  return body.data!;
}

const STATES = 'query State($u: String!) { states(uri: $u) { uri type start end period relations { predicate entity { uri } } } }';
const SEARCH = '{ searchWithMetadata(searchTerm: "red five", searchType: PHRASE) { maybeMore nodes { uri } } }';

describe('the IES schema at /ds/graphql and /ds/ianode/graphql', () => {
  for (const path of ['/graphql', '/ianode/graphql']) {
    it(`${path}: states with start/end, per user`, async () => {
      const user = (await data(path, STATES, 'user@test', { u: 'http://example/luke' })).states;
      const admin = (await data(path, STATES, 'admin@test', { u: 'http://example/luke' })).states;
      expect(user).toEqual([{ uri: 'http://example/birth', type: 'http://ies.data.gov.uk/ontology/ies4#BirthState', start: '1977-05-25', end: null, period: '1977-05-25', relations: [{ predicate: 'http://ies.data.gov.uk/ontology/ies4#inPeriod', entity: { uri: 'http://example/p1' } }] }]);
      expect(admin).toHaveLength(2);
      expect(admin).toContainEqual(expect.objectContaining({ uri: 'http://example/death', end: '2019-12-20' }));
    });
    it(`${path}: search finds only visible literals`, async () => {
      expect((await data(path, SEARCH, 'user@test')).searchWithMetadata).toEqual({ maybeMore: false, nodes: [] });
      expect((await data(path, SEARCH, 'admin@test')).searchWithMetadata).toEqual({ maybeMore: false, nodes: [{ uri: 'http://example/luke' }] });
    });
  }
});

describe('the Dataset and Traversal schemas', () => {
  it('/ds/dataset/graphql: quads of the caller\'s view', async () => {
    const q = '{ quads(subject: { kind: URI, value: "http://example/luke" }) { predicate { value } object { kind value } } }';
    const values = (d: Record<string, unknown>) => (d.quads as Array<{ object: { value: string } }>).map((x) => x.object.value).sort();
    expect(values(await data('/dataset/graphql', q, 'user@test'))).toEqual(['Luke Skywalker', 'http://ies.data.gov.uk/ontology/ies4#Person']);
    expect(values(await data('/dataset/graphql', q, 'admin@test'))).toEqual(['Luke Skywalker', 'http://ies.data.gov.uk/ontology/ies4#Person', 'red five']);
  });
  it('/ds/traversal/graphql: nodes and edges of the caller\'s view', async () => {
    const q = '{ nodes(starts: [{ kind: URI, value: "http://example/luke" }]) { node { value } incoming { edge { value } target { node { value } } } } }';
    const incoming = (d: Record<string, unknown>) => (d.nodes as Array<{ incoming: Array<{ target: { node: { value: string } } }> }>)[0]!.incoming.map((e) => e.target.node.value).sort();
    expect(incoming(await data('/traversal/graphql', q, 'user@test'))).toEqual(['http://example/birth']);
    expect(incoming(await data('/traversal/graphql', q, 'admin@test'))).toEqual(['http://example/birth', 'http://example/death']);
  });
  it('each path has its own schema: a Dataset query is a validation error at /ds/graphql', async () => {
    const r = await post('/graphql', '{ quads { subject { kind } } }');
    expect(r.status).toBe(400);
    expect(((await r.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
  it('the query page is served at every GraphQL path', async () => {
    const r = await fetch(`${fx.base}/ds/traversal/graphql`, { headers: { accept: 'text/html', authorization: `Bearer ${fx.tokens['user@test']}` } });
    expect(r.status).toBe(200);
    expect(await r.text()).toContain('/ds/traversal/graphql');
  });
});

describe('validate endpoints', () => {
  it('200 "Query is valid" / 400 with the errors, per schema; GET too', async () => {
    const ok = await post('/validate', STATES, 'user@test', { u: 'x' });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('Query is valid');
    const bad = await post('/validate', '{ states(uri: "x") { colour } }');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual([expect.objectContaining({ message: 'Cannot query field "colour" on type "State".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })]);
    expect((await post('/ianode/validate', STATES, 'user@test', { u: 'x' })).status).toBe(200);
    expect((await post('/traversal/validate', '{ nodes { node { value } } }')).status).toBe(200);
    expect((await post('/traversal/validate', STATES)).status).toBe(400);
    expect((await post('/dataset/validate', '{ quads { graph { value } } }')).status).toBe(200);
    const get = await fetch(`${fx.base}/ds/dataset/validate?${new URLSearchParams({ query: '{ quads { nope } }' })}`, { headers: { authorization: `Bearer ${fx.tokens['user@test']}` } });
    expect(get.status).toBe(400);
  });
  it('OPTIONS names the methods of every new path', async () => {
    for (const path of ['/ianode/graphql', '/traversal/graphql', '/dataset/graphql', '/validate', '/traversal/validate']) {
      const r = await fetch(`${fx.base}/ds${path}`, { method: 'OPTIONS' });
      expect(r.status, path).toBe(204);
      expect(r.headers.get('allow'), path).toMatch(/GET.*POST|POST.*GET/);
    }
  });
  it('the same authentication and permission as queries; off = 404', async () => {
    expect((await post('/validate', STATES, null)).status).toBe(401);
    expect((await post('/traversal/graphql', '{ nodes { node { value } } }', null)).status).toBe(401);
    expect((await post('/dataset/graphql', '{ quads { graph { value } } }', 'outsider@test')).status).toBe(403);
    expect((await post('/traversal/validate', '{ nodes { node { value } } }', 'user@test', undefined, fx.offBase)).status).toBe(404);
    expect((await post('/ianode/graphql', STATES, 'user@test', { u: 'x' }, fx.offBase)).status).toBe(404);
  });
});
