/**
 * `dataset.labels.legacy` (issue 17 item 3; docs/graph-server.md "Configuration"): on by default,
 * as RDF-ABAC, a label that does not parse and holds none of `= space , ( ) < > { } ! *` is one
 * attribute name, from the Security-Label header, the labels graph and the default label alike;
 * off, such a label is a 400 and nothing is stored. Also, through the server, the labels graph's
 * graph-first 4-term pattern with a literal object and an xsd:base64Binary label (items 1-2).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphServer, resolveConfig, type GraphServer } from '../src/index.js';
import { accessStub, CLIENT, ISSUER, jwksServer, makeKey, sign, type Key } from './helpers.js';

const DIRECTORY = {
  'alice@test': ['ianode_read', 'ianode_admin', 'user@host', 'employees'],
  'bob@test': ['ianode_read', 'ianode_admin'],
};

let key: Key;
let jwks: Awaited<ReturnType<typeof jwksServer>>;
let access: Awaited<ReturnType<typeof accessStub>>;
let alice: string;
let bob: string;

async function node(legacy: boolean | undefined): Promise<{ server: GraphServer; base: string }> {
  const security = { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] };
  const dataset = { name: 'ds', defaultLabel: '!', ...(legacy === undefined ? {} : { labels: { legacy } }) };
  const server = await createGraphServer({ security, dataset }, { logger: false, jwksCooldownMs: 0 });
  return { server, base: await server.listen({ port: 0 }) };
}

/** `node(legacy)` for the tests of one describe block (filled in before them, closed after them). */
function useNode(legacy: boolean | undefined): Awaited<ReturnType<typeof node>> {
  const n = {} as Awaited<ReturnType<typeof node>>;
  beforeAll(async () => {
    Object.assign(n, await node(legacy));
  });
  afterAll(async () => {
    await n.server?.close();
  });
  return n;
}

async function upload(base: string, token: string, type: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const r = await fetch(`${base}/ds/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type, ...headers }, body });
  return { status: r.status, text: await r.text() };
}

async function select(base: string, token: string): Promise<string[]> {
  const q = 'SELECT ?s ?p ?o { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }';
  const r = await fetch(`${base}/ds/query?query=${encodeURIComponent(q)}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/sparql-results+json' } });
  expect(r.status).toBe(200);
  const body = (await r.json()) as { results: { bindings: Array<Record<string, { value: string }>> } };
  return body.results.bindings.map((b) => `${b.s!.value} ${b.p!.value} ${b.o!.value}`).sort();
}

const TRIG = `PREFIX authz: <http://telicent.io/security#>
PREFIX ex: <http://example/>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
GRAPH ex:g1 { ex:s ex:p2 "123" }
ex:a ex:p ex:b .
ex:c ex:p ex:d .
GRAPH authz:labels {
  [ authz:pattern 'ex:g1 ex:s ex:p2 "123"' ; authz:label "user@host" ] .
  [ authz:pattern 'ex:a ex:p ex:b' ; authz:label "ZW1wbG95ZWVz"^^xsd:base64Binary ] .
  [ authz:pattern 'ex:c ex:p ex:d' ; authz:label "*" ] .
}
`;

beforeAll(async () => {
  key = await makeKey('k1');
  jwks = await jwksServer([key]);
  access = await accessStub(DIRECTORY);
  alice = await sign(key, { email: 'alice@test' });
  bob = await sign(key, { email: 'bob@test' });
});

afterAll(async () => {
  await jwks.close();
  await access.close();
});

describe('labels.legacy on (the default)', () => {
  const n = useNode(undefined);

  it('a Security-Label user@host is one attribute: its holder sees the data, another user does not', async () => {
    const r = await upload(n.base, alice, 'text/turtle', '<http://e/s> <http://e/p> "v" .', { 'security-label': 'user@host' });
    expect(r.status, r.text).toBe(200);
    expect(await select(n.base, alice)).toContain('http://e/s http://e/p v');
    expect(await select(n.base, bob)).not.toContain('http://e/s http://e/p v');
  });

  it('the labels graph: legacy label, graph-first 4-term pattern with a literal object, base64 label', async () => {
    const r = await upload(n.base, alice, 'application/trig', TRIG);
    expect(r.status, r.text).toBe(200);
    const seenByAlice = await select(n.base, alice);
    expect(seenByAlice).toEqual(expect.arrayContaining(['http://example/s http://example/p2 123', 'http://example/a http://example/p http://example/b', 'http://example/c http://example/p http://example/d']));
    const seenByBob = await select(n.base, bob);
    expect(seenByBob).toContain('http://example/c http://example/p http://example/d');
    expect(seenByBob).not.toContain('http://example/s http://example/p2 123');
    expect(seenByBob).not.toContain('http://example/a http://example/p http://example/b');
  });

  it('a label with a character the fallback excludes is still a 400', async () => {
    const r = await upload(n.base, alice, 'text/turtle', '<http://e/x> <http://e/p> "v" .', { 'security-label': 'user@host, other' });
    expect(r.status).toBe(400);
  });
});

describe('labels.legacy off', () => {
  const n = useNode(false);

  it('refuses the legacy label in the header and in the labels graph; nothing is stored', async () => {
    const header = await upload(n.base, alice, 'text/turtle', '<http://e/s> <http://e/p> "v" .', { 'security-label': 'user@host' });
    expect(header.status).toBe(400);
    expect(header.text).toContain('malformed label');
    const graph = await upload(n.base, alice, 'application/trig', TRIG);
    expect(graph.status).toBe(400);
    expect(graph.text).toContain("'ex:g1 ex:s ex:p2 \\\"123\\\"'");
    expect(await select(n.base, alice)).toEqual([]);
  });
});

describe('configuration', () => {
  it('dataset.labels.legacy defaults to true and reads the default label with it; permissions stay strict', () => {
    const config = resolveConfig({ dataset: { defaultLabel: 'a.b.' } });
    expect(config.dataset.labels.legacy).toBe(true);
    expect(config.dataset.defaultLabel).toBe('"a.b."');
    expect(() => resolveConfig({ dataset: { defaultLabel: 'a.b.', labels: { legacy: false } } })).toThrow(/dataset\.defaultLabel/);
    expect(() => resolveConfig({ dataset: { permissions: { read: 'user@host' } } })).toThrow(/dataset\.permissions\.read/);
    expect(() => resolveConfig({ dataset: { labels: { legacy: 'yes' as unknown as boolean } } })).toThrow(/dataset\.labels\.legacy/);
  });
});
