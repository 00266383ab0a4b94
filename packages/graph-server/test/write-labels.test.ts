/**
 * Writes and labels (docs/graph-server.md, "Writes and labels" and "Write replies"): a write whose
 * resulting label its writer could not read is refused (400 LABEL_NOT_VISIBLE_TO_WRITER, nothing
 * stored) unless `writes.allowUnreadableLabels`; every write reply lists the labels its quads got
 * and counts what really changed (a quad already there with the same label is `unchanged`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type QuadStore } from '@ianode/store';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { accessStub, clearStore, CLIENT, ISSUER, jwksServer, makeKey, sign, type Key } from './helpers.js';

const DIRECTORY = {
  'writer@test': ['engineer', 'ianode_admin', 'ianode_read'],
};

let key: Key;
let jwks: Awaited<ReturnType<typeof jwksServer>>;
let access: Awaited<ReturnType<typeof accessStub>>;
let token: string;

interface Node {
  server: GraphServer;
  store: QuadStore;
  base: string;
}

async function node(options: { secure?: boolean; allowUnreadableLabels?: boolean } = {}): Promise<Node> {
  const store = await openStore({ defaultLabel: '!' });
  const security = options.secure === false ? {} : { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] };
  const server = await createGraphServer(
    { security, dataset: { name: 'ds', defaultLabel: '!' }, ...(options.allowUnreadableLabels === undefined ? {} : { writes: { allowUnreadableLabels: options.allowUnreadableLabels } }) },
    { logger: false, store, jwksCooldownMs: 0 },
  );
  return { server, store, base: await server.listen({ port: 0 }) };
}

const TRIPLE = { s: '<http://e/s', p: '<http://e/p', o: '"v"', g: '' };
const TURTLE = '<http://e/s> <http://e/p> "v" .';

async function call(n: Node, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(n.base + path, { method, headers: { authorization: `Bearer ${token}`, ...headers }, ...(body === undefined ? {} : { body }) });
  const text = await r.text();
  return { status: r.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const upload = (n: Node, body: string, headers: Record<string, string> = {}) => call(n, 'POST', '/ds/upload', { 'content-type': 'text/turtle', ...headers }, body);
const update = (n: Node, text: string, headers: Record<string, string> = {}) => call(n, 'POST', '/ds/update', { 'content-type': 'application/sparql-update', ...headers }, text);
const put = (n: Node, body: string, headers: Record<string, string> = {}) =>
  call(n, 'PUT', `/ds/data?graph=${encodeURIComponent('http://e/g')}`, { 'content-type': 'text/turtle', ...headers }, body);

async function select(n: Node): Promise<string[]> {
  const q = 'SELECT ?s ?p ?o { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }';
  const r = await fetch(`${n.base}/ds/query?query=${encodeURIComponent(q)}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/sparql-results+json' } });
  expect(r.status).toBe(200);
  const body = (await r.json()) as { results: { bindings: Array<Record<string, { value: string }>> } };
  return body.results.bindings.map((b) => `${b.s!.value} ${b.p!.value} ${b.o!.value}`).sort();
}

beforeAll(async () => {
  key = await makeKey('k1');
  jwks = await jwksServer([key]);
  access = await accessStub(DIRECTORY);
  token = await sign(key, { email: 'writer@test' });
});

afterAll(async () => {
  await jwks.close();
  await access.close();
});

describe('a write whose label its writer could not read', () => {
  let n: Node;
  beforeAll(async () => {
    n = await node();
  });
  afterAll(async () => {
    await n.server.close();
  });

  it('is refused through upload, update (INSERT DATA, INSERT WHERE) and GSP, naming the default label and the fix; nothing is stored', async () => {
    await clearStore(n.store);
    const before = n.store.stats().txId;
    const refusals = [
      await upload(n, TURTLE),
      await update(n, 'INSERT DATA { <http://e/s> <http://e/p> "v" }'),
      await update(n, 'INSERT { <http://e/s> <http://e/p> "v" } WHERE {}'),
      await put(n, TURTLE),
      await call(n, 'POST', '/ds/data?default', { 'content-type': 'text/turtle' }, TURTLE),
    ];
    for (const r of refusals) {
      expect(r.status).toBe(400);
      expect(r.json.code).toBe('LABEL_NOT_VISIBLE_TO_WRITER');
      expect(r.json.message).toMatch(/"!" \(the dataset's default label[^)]*\) on 1 quad\b/);
      expect(r.json.message).toMatch(/send a Security-Label header your attributes satisfy/i);
      expect(r.json.message).toMatch(/nothing was stored/);
    }
    expect(n.store.labelOf(TRIPLE)).toBeUndefined();
    expect(n.store.labelOf({ ...TRIPLE, g: '<http://e/g' })).toBeUndefined();
    expect(n.store.stats().quads).toBe(0);
    expect(n.store.stats().txId).toBe(before);
  });

  it('names a Security-Label the writer does not hold, and labels-graph labels it does not hold', async () => {
    await clearStore(n.store);
    const header = await upload(n, TURTLE, { 'security-label': 'employee' });
    expect(header.status).toBe(400);
    expect(header.json.message).toMatch(/"employee" on 1 quad\b/);
    expect(header.json.message).not.toMatch(/default label/);
    const trig = `PREFIX authz: <http://ndtp.co.uk/security#>
<http://e/s> <http://e/p> "v" , "w" .
GRAPH authz:labels { [ authz:pattern '<http://e/s> <http://e/p> "w"' ; authz:label "clearance=TS" ] . }`;
    const graph = await call(n, 'POST', '/ds/upload', { 'content-type': 'text/trig', 'security-label': 'engineer' }, trig);
    expect(graph.status).toBe(400);
    expect(graph.json.message).toMatch(/"clearance=TS" on 1 quad\b/);
    expect(graph.json.message).not.toMatch(/"engineer"/);
    expect(n.store.stats().quads).toBe(0);
  });

  it('with a label the writer holds: stored, the reply lists it, and the writer reads the data back', async () => {
    await clearStore(n.store);
    const r = await upload(n, `${TURTLE}\n<http://e/s> <http://e/p> "w" .`, { 'security-label': 'engineer' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ quads: 2, triples: 2, namedGraphQuads: 0, labelEntries: 0, inserted: 2, relabelled: 0, deleted: 0, unchanged: 0, labels: [{ label: 'engineer', quads: 2 }] });
    expect(r.json).not.toHaveProperty('quadCount');
    expect(await select(n)).toEqual(['http://e/s http://e/p v', 'http://e/s http://e/p w']);
  });

  it('counts are honest: a quad already there with the same label is unchanged, not inserted; a new label is a relabel; deletes count what was removed', async () => {
    await clearStore(n.store);
    expect((await upload(n, TURTLE, { 'security-label': 'engineer' })).json).toMatchObject({ inserted: 1, unchanged: 0 });
    const again = await upload(n, TURTLE, { 'security-label': 'engineer' });
    expect(again.json).toMatchObject({ quads: 1, inserted: 0, relabelled: 0, unchanged: 1, labels: [{ label: 'engineer', quads: 1 }] });
    const dup = await update(n, 'INSERT DATA { <http://e/s> <http://e/p> "v" . <http://e/s> <http://e/p> "x" }', { 'security-label': 'engineer' });
    expect(dup.json).toMatchObject({ operations: 1, inserted: 1, unchanged: 1, deleted: 0, labels: [{ label: 'engineer', quads: 2 }] });
    const relabel = await update(n, 'INSERT DATA { <http://e/s> <http://e/p> "v" }', { 'security-label': 'engineer | employee' });
    expect(relabel.json).toMatchObject({ inserted: 0, relabelled: 1, unchanged: 0, labels: [{ label: 'engineer | employee', quads: 1 }] });
    const del = await update(n, 'DELETE DATA { <http://e/s> <http://e/p> "x" . <http://e/s> <http://e/p> "never there" }');
    expect(del.json).toMatchObject({ inserted: 0, deleted: 1, labels: [] });
    // GSP PUT: the graph's quads replaced; those in both are unchanged.
    expect((await put(n, `${TURTLE}\n<http://e/s> <http://e/p> "y" .`, { 'security-label': 'engineer' })).json).toMatchObject({ quads: 2, inserted: 2, deleted: 0 });
    const replaced = await put(n, `${TURTLE}\n<http://e/s> <http://e/p> "z" .`, { 'security-label': 'engineer' });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ quads: 2, inserted: 1, deleted: 1, unchanged: 1, labels: [{ label: 'engineer', quads: 2 }] });
  });

  it('one write, several labels: each listed with its count, sorted', async () => {
    await clearStore(n.store);
    const trig = `PREFIX authz: <http://ndtp.co.uk/security#>
<http://e/a> <http://e/p> 1 . <http://e/b> <http://e/p> 2 . <http://e/c> <http://e/p> 3 .
GRAPH authz:labels { [ authz:pattern '<http://e/c> <http://e/p> 3' ; authz:label "*" ] . }`;
    const r = await call(n, 'POST', '/ds/upload', { 'content-type': 'text/trig', 'security-label': 'engineer' }, trig);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ quads: 3, labelEntries: 1, inserted: 3, labels: [{ label: '*', quads: 1 }, { label: 'engineer', quads: 2 }] });
  });
});

/** An upload without a Security-Label to a new node of `options`: stored under the dataset's
 * default label `!` and reported so; `then` looks further before the node closes. */
async function storedUnderDefault(options: Parameters<typeof node>[0], then: (n: Node) => Promise<void> = async () => {}): Promise<void> {
  const n = await node(options);
  try {
    const r = await upload(n, TURTLE);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ inserted: 1, labels: [{ label: '!', quads: 1 }] });
    expect(n.store.labelOf(TRIPLE)).toBe('!');
    await then(n);
  } finally {
    await n.server.close();
  }
}

describe('writes.allowUnreadableLabels: true', () => {
  it('stores the write under the label the writer cannot read, and says which label it got', async () => {
    await storedUnderDefault({ allowUnreadableLabels: true }, async (n) => {
      expect(await select(n)).toEqual([]);
    });
  });
});

describe('open mode (no writer identity)', () => {
  it('does not check labels: everyone reads everything, so every label is readable', async () => {
    await storedUnderDefault({ secure: false });
  });
});
