/**
 * RDF Patch (docs/graph-server.md, "RDF Patch"): `POST /ds/patch` through the one write boundary
 * (labels as uploads, a writer touches only quads it can see, one transaction, nothing stored on
 * a syntax error), and `applyPatch` inside a store transaction of one's own (the Kafka path).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePatch } from '@ianode/rdf';
import { openStore, type QuadStore } from '@ianode/store';
import { applyPatch, createGraphServer, GraphServerError, type GraphServer } from '../src/index.js';
import { accessStub, clearStore, CLIENT, ISSUER, jwksServer, makeKey, sign, type Key } from './helpers.js';

const DIRECTORY = {
  'writer@test': ['engineer', 'employee', 'ianode_admin', 'ianode_read'],
  'lowwriter@test': ['employee', 'ianode_admin', 'ianode_read'],
  'eng@test': ['engineer', 'ianode_read'],
  'emp@test': ['employee', 'ianode_read'],
};

let key: Key;
let jwks: Awaited<ReturnType<typeof jwksServer>>;
let access: Awaited<ReturnType<typeof accessStub>>;
const tokens: Record<string, string> = {};

interface Node {
  server: GraphServer;
  store: QuadStore;
  base: string;
}

async function node(secure = true): Promise<Node> {
  const store = await openStore({ defaultLabel: '!' });
  const security = secure ? { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] } : {};
  const server = await createGraphServer({ security, dataset: { name: 'ds', defaultLabel: '!' } }, { logger: false, store, jwksCooldownMs: 0 });
  return { server, store, base: await server.listen({ port: 0 }) };
}

/** `user` null: no token. */
async function call(n: Node, path: string, user: string | null, headers: Record<string, string>, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const auth: Record<string, string> = user === null ? {} : { authorization: `Bearer ${tokens[user]}` };
  const r = await fetch(n.base + path, { method: 'POST', headers: { ...auth, ...headers }, body });
  const text = await r.text();
  return { status: r.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const patch = (n: Node, body: string, user: string | null = 'writer', headers: Record<string, string> = {}) =>
  call(n, '/ds/patch', user, { 'content-type': 'application/rdf-patch', ...headers }, body);
const upload = (n: Node, body: string, user: string | null = 'writer', headers: Record<string, string> = {}) =>
  call(n, '/ds/upload', user, { 'content-type': 'application/n-quads', ...headers }, body);

async function select(n: Node, user: string | null): Promise<string[]> {
  const q = 'SELECT ?s ?p ?o ?g { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }';
  const auth: Record<string, string> = user === null ? {} : { authorization: `Bearer ${tokens[user]}` };
  const r = await fetch(`${n.base}/ds/query?query=${encodeURIComponent(q)}`, { headers: { ...auth, accept: 'application/sparql-results+json' } });
  expect(r.status).toBe(200);
  const body = (await r.json()) as { results: { bindings: Array<Record<string, { value: string }>> } };
  return body.results.bindings.map((b) => `${b.s!.value} ${b.p!.value} ${b.o!.value} ${b.g?.value ?? ''}`.trim()).sort();
}

const Q = (s: string, o: string, g?: string) => ({ s: `<http://e/${s}`, p: '<http://e/p', o, g: g === undefined ? '' : `<http://e/${g}` });

beforeAll(async () => {
  key = await makeKey('k1');
  jwks = await jwksServer([key]);
  access = await accessStub(DIRECTORY);
  for (const user of Object.keys(DIRECTORY)) tokens[user.split('@')[0]!] = await sign(key, { email: user });
});

afterAll(async () => {
  await jwks.close();
  await access.close();
});

describe('POST /ds/patch in secure mode', () => {
  let n: Node;
  let m: Node;
  beforeAll(async () => {
    [n, m] = await Promise.all([node(), node()]);
  });
  afterAll(async () => {
    await Promise.all([n.server.close(), m.server.close()]);
  });

  it('a patch with a Security-Label gives two users the same views as the same data uploaded with that label', async () => {
    await Promise.all([clearStore(n.store), clearStore(m.store)]);
    const engineerData = '<http://e/a> <http://e/p> "secret" .\n<http://e/b> <http://e/p> <http://e/c> <http://e/g> .\n';
    const employeeData = '<http://e/a> <http://e/p> "open"@en .\n<http://e/d> <http://e/p> "4"^^<http://www.w3.org/2001/XMLSchema#integer> <http://e/g> .\n';
    expect((await upload(n, engineerData, 'writer', { 'security-label': 'engineer' })).status).toBe(200);
    expect((await upload(n, employeeData, 'writer', { 'security-label': 'employee' })).status).toBe(200);

    const asPatch = (nquads: string) => 'TX .\n' + nquads.trim().split('\n').map((row) => `A ${row}`).join('\n') + '\nTC .\n';
    const engineer = await patch(m, asPatch(engineerData), 'writer', { 'security-label': 'engineer' });
    expect(engineer.status).toBe(200);
    expect(engineer.json).toMatchObject({ rows: 2, transactions: 1, aborted: 0, inserted: 2, relabelled: 0, deleted: 0, unchanged: 0, labels: [{ label: 'engineer', quads: 2 }] });
    expect(typeof engineer.json.txId).toBe('number');
    // The employee part written in the patch's short forms: a prefix, a number.
    const employee = await patch(m, 'PA ex: <http://e/> .\nA ex:a ex:p "open"@en .\nA ex:d ex:p 4 ex:g .\n', 'writer', { 'security-label': 'employee' });
    expect(employee.json).toMatchObject({ rows: 2, transactions: 1, inserted: 2, labels: [{ label: 'employee', quads: 2 }] });

    for (const user of ['eng', 'emp', 'writer']) expect(await select(m, user)).toEqual(await select(n, user));
    expect(await select(m, 'eng')).toEqual(['http://e/a http://e/p secret', 'http://e/b http://e/p http://e/c http://e/g']);
    expect(await select(m, 'emp')).toEqual(['http://e/a http://e/p open', 'http://e/d http://e/p 4 http://e/g']);
    for (const q of [Q('a', '"secret"'), Q('b', '<http://e/c', 'g'), Q('a', '"open"@en'), Q('d', '"4"^^http://www.w3.org/2001/XMLSchema#integer', 'g')]) {
      expect(m.store.labelOf(q)).toBe(n.store.labelOf(q));
    }
  });

  it('D of a quad the writer cannot see leaves it (data and label), and the reply does not tell', async () => {
    await clearStore(n.store);
    expect((await patch(n, 'A <http://e/a> <http://e/p> "secret" .', 'writer', { 'security-label': 'engineer' })).status).toBe(200);
    const hidden = await patch(n, 'D <http://e/a> <http://e/p> "secret" .', 'lowwriter', { 'security-label': 'employee' });
    const absent = await patch(n, 'D <http://e/a> <http://e/p> "never there" .', 'lowwriter', { 'security-label': 'employee' });
    expect(hidden.status).toBe(200);
    const { txId: _h, ...hiddenCounts } = hidden.json;
    const { txId: _a, ...absentCounts } = absent.json;
    expect(hiddenCounts).toEqual(absentCounts);
    expect(hiddenCounts).toMatchObject({ rows: 1, deleted: 0 });
    expect(n.store.labelOf(Q('a', '"secret"'))).toBe('engineer');
    // Nor can an A relabel it.
    const relabel = await patch(n, 'A <http://e/a> <http://e/p> "secret" .', 'lowwriter', { 'security-label': 'employee' });
    expect(relabel.status).toBe(200);
    expect(n.store.labelOf(Q('a', '"secret"'))).toBe('engineer');
    // The writer who can see it deletes it.
    expect((await patch(n, 'D <http://e/a> <http://e/p> "secret" .', 'writer')).json).toMatchObject({ deleted: 1 });
    expect(n.store.labelOf(Q('a', '"secret"'))).toBeUndefined();
  });

  it('refuses a label the writer could not read (LABEL_NOT_VISIBLE_TO_WRITER, the default included), nothing stored', async () => {
    await clearStore(n.store);
    const before = n.store.stats().txId;
    const noLabel = await patch(n, 'A <http://e/a> <http://e/p> "x" .', 'writer');
    expect(noLabel.status).toBe(400);
    expect(noLabel.json.code).toBe('LABEL_NOT_VISIBLE_TO_WRITER');
    expect(noLabel.json.message).toMatch(/the dataset's default label/);
    const other = await patch(n, 'A <http://e/a> <http://e/p> "x" .', 'lowwriter', { 'security-label': 'engineer' });
    expect(other.status).toBe(400);
    expect(other.json.code).toBe('LABEL_NOT_VISIBLE_TO_WRITER');
    expect(n.store.stats().quads).toBe(0);
    expect(n.store.stats().txId).toBe(before);
  });

  it('needs the write permission and a token', async () => {
    const reader = await patch(n, 'A <http://e/a> <http://e/p> "x" .', 'eng', { 'security-label': 'engineer' });
    expect(reader.status).toBe(403);
    const anonymous = await patch(n, 'A <http://e/a> <http://e/p> "x" .', null, { 'security-label': 'engineer' });
    expect(anonymous.status).toBe(401);
    expect(n.store.labelOf(Q('a', '"x"'))).toBeUndefined();
  });
});

describe('POST /ds/patch in open mode', () => {
  let n: Node;
  beforeAll(async () => {
    n = await node(false);
  });
  afterAll(async () => {
    await n.server.close();
  });

  it('applies several TX..TC blocks in order in one transaction; TA discards its block', async () => {
    await clearStore(n.store);
    const before = n.store.stats().txId;
    const body = [
      'H id <uuid:0686c69d-8f89-4496-acb5-744f0157a8db> .',
      'TX .',
      'A <http://e/a> <http://e/p> "1" .',
      'A <http://e/a> <http://e/p> "2" .',
      'TC .',
      'TX .',
      'A <http://e/a> <http://e/p> "aborted" .',
      'D <http://e/a> <http://e/p> "1" .',
      'TA .',
      'TX .',
      'D <http://e/a> <http://e/p> "2" .',
      'A <http://e/a> <http://e/p> "3" <http://e/g> .',
      'TC .',
    ].join('\n');
    const r = await patch(n, body, null, { 'security-label': 'employee' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ rows: 4, transactions: 2, aborted: 1, inserted: 2, deleted: 0, relabelled: 0, unchanged: 0, labels: [{ label: 'employee', quads: 2 }] });
    expect(r.json.txId).toBe(before + 1);
    expect(n.store.stats().txId).toBe(before + 1);
    expect(await select(n, null)).toEqual(['http://e/a http://e/p 1', 'http://e/a http://e/p 3 http://e/g']);
    expect(n.store.labelOf(Q('a', '"3"', 'g'))).toBe('employee');
    expect(n.store.labelOf(Q('a', '"aborted"'))).toBeUndefined();
  });

  it('a syntax error is 400 with line and column, and nothing is stored', async () => {
    await clearStore(n.store);
    const before = n.store.stats().txId;
    const r = await patch(n, 'TX .\nA <http://e/a> <http://e/p> "1" .\nA <http://e/a> <http://e/p> .\nTC .\n', null);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'RDF_SYNTAX', line: 3, column: 29 });
    expect(r.json.message).toMatch(/line 3, column 29: .*expected.*nothing was stored/);
    expect(n.store.stats().quads).toBe(0);
    expect(n.store.stats().txId).toBe(before);
  });

  it('blank node labels are the store blank nodes: the same label is the same node, in this and later patches', async () => {
    await clearStore(n.store);
    const r = await patch(n, 'A _:b1 <http://e/p> <_:b2> .\nA <_:b1> <http://e/q> "x" .', null);
    expect(r.json).toMatchObject({ inserted: 2 });
    expect(n.store.labelOf({ s: '_:b1', p: '<http://e/p', o: '_:b2', g: '' })).toBe('!');
    expect(n.store.labelOf({ s: '_:b1', p: '<http://e/q', o: '"x"', g: '' })).toBe('!');
    expect((await patch(n, 'D _:b1 <http://e/q> "x" .', null)).json).toMatchObject({ deleted: 1 });
    expect(n.store.stats().quads).toBe(1);
  });

  it('content types: text/rdf-patch accepted, RDF Thrift and others 415, none 400; a labels-graph row 400', async () => {
    await clearStore(n.store);
    expect((await call(n, '/ds/patch', null, { 'content-type': 'text/rdf-patch; charset=utf-8' }, 'A <http://e/a> <http://e/p> "t" .')).status).toBe(200);
    const thrift = await call(n, '/ds/patch', null, { 'content-type': 'application/rdf-patch+thrift' }, 'x');
    expect(thrift.status).toBe(415);
    expect(thrift.json.message).toMatch(/binary RDF Patch .* not supported: send the text form/);
    const turtle = await call(n, '/ds/patch', null, { 'content-type': 'text/turtle' }, '<http://e/a> <http://e/p> "t" .');
    expect(turtle.status).toBe(415);
    expect(turtle.json.message).toMatch(/application\/rdf-patch or text\/rdf-patch/);
    expect((await call(n, '/ds/patch', null, { 'content-type': 'application/rdf-patch; charset=latin1' }, 'TX .\nTC .')).status).toBe(415);
    const none = await fetch(`${n.base}/ds/patch`, { method: 'POST', body: new TextEncoder().encode('TX .\nTC .') });
    expect(none.status).toBe(400);
    expect(((await none.json()) as { message: string }).message).toMatch(/a patch needs a Content-Type/);
    const notUtf8 = await fetch(`${n.base}/ds/patch`, { method: 'POST', headers: { 'content-type': 'application/rdf-patch' }, body: new Uint8Array([0x41, 0x20, 0xff, 0x0a]) });
    expect(notUtf8.status).toBe(400);
    const labels = await patch(n, 'A <http://e/a> <http://e/p> "l" .\nA <http://e/a> <http://e/p> "m" <http://ndtp.co.uk/security#labels> .', null);
    expect(labels.status).toBe(400);
    expect(labels.json).toMatchObject({ code: 'BAD_REQUEST', line: 2 });
    expect(labels.json.message).toMatch(/labels graph/);
    expect(await select(n, null)).toEqual(['http://e/a http://e/p t']);
  });
});

describe('applyPatch inside a store transaction of its own (the Kafka connector path)', () => {
  it('applies adds with the label and deletes, all in the caller transaction; a throw rolls it back', async () => {
    const store = await openStore({ defaultLabel: '!' });
    try {
      const first = parsePatch('TX .\nA <http://e/a> <http://e/p> "1" .\nA <http://e/a> <http://e/p> "2" .\nTC .');
      const { value } = await store.write((tx) => applyPatch(tx, first, 'employee'));
      expect(value).toEqual({ rows: 2, transactions: 1, aborted: 0 });
      expect(store.labelOf(Q('a', '"1"'))).toBe('employee');
      await store.write((tx) => applyPatch(tx, parsePatch('D <http://e/a> <http://e/p> "1" .'), undefined));
      expect(store.labelOf(Q('a', '"1"'))).toBeUndefined();
      const bad = parsePatch('A <http://e/a> <http://e/p> "3" .\nA <http://e/a> <http://e/p> "4" <http://ndtp.co.uk/security#labels> .');
      await expect(store.write((tx) => applyPatch(tx, bad, 'employee'))).rejects.toBeInstanceOf(GraphServerError);
      expect(store.labelOf(Q('a', '"3"'))).toBeUndefined();
      expect(store.stats().quads).toBe(1);
    } finally {
      await store.close();
    }
  });
});
