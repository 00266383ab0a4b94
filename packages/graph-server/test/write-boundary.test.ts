/**
 * One write boundary (docs/graph-server.md "Writes and labels"): through every write path — upload
 * with a `Security-Label`, upload with a labels-graph entry, SPARQL INSERT DATA, DELETE DATA,
 * DELETE/INSERT WHERE, GSP PUT, POST and DELETE — a writer who cannot see a quad can neither
 * change it (data or label) nor detect it. Each request runs against two servers, one whose store
 * holds the hidden quads and one whose store does not, and the replies must be byte-identical
 * (status, headers but the date, body with its txId and counts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type KeyQuad, type QuadStore } from '@ianode/store';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { accessStub, CLIENT, ISSUER, jwksServer, makeKey, rawRequest, sign, type Key, type RawResponse } from './helpers.js';

const DIRECTORY = {
  'admin@test': ['employee', 'ianode_admin', 'ianode_read'],
  'writer@test': ['engineer', 'ianode_admin', 'ianode_read'],
};

/** Quads both stores hold: visible to the writer. */
const PUBLIC = `PREFIX : <http://example/>
:pub :p "public" .
GRAPH :g { :pub :p "public" . }`;
/** The hidden quads: only in store A. */
const HIDDEN = `PREFIX : <http://example/>
:emp :p "staff only" .
GRAPH :g { :emp :p "staff only" . }`;
/** Store B's second commit instead, so both stores start at the same txId; no request names it. */
const DECOY = `PREFIX : <http://example/>
GRAPH :elsewhere { :x :p "elsewhere" . }`;

const HIDDEN_QUADS: KeyQuad[] = [
  { s: '<http://example/emp', p: '<http://example/p', o: '"staff only"', g: '' },
  { s: '<http://example/emp', p: '<http://example/p', o: '"staff only"', g: '<http://example/g' },
];
const TRIPLE = '<http://example/emp> <http://example/p> "staff only" .';
const labelsGraph = (label: string) => `PREFIX authz: <http://ndtp.co.uk/security#>
GRAPH authz:labels {
  [ authz:pattern '<http://example/emp> <http://example/p> "staff only"' ; authz:label "${label}" ] .
}`;

let key: Key;
let jwks: Awaited<ReturnType<typeof jwksServer>>;
let access: Awaited<ReturnType<typeof accessStub>>;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  key = await makeKey('k1');
  jwks = await jwksServer([key]);
  access = await accessStub(DIRECTORY);
  for (const user of Object.keys(DIRECTORY)) tokens[user] = await sign(key, { email: user });
});

afterAll(async () => {
  await jwks.close();
  await access.close();
});

interface Node {
  server: GraphServer;
  store: QuadStore;
  base: string;
}

/** A labels-graph entry for the hidden triple, without the triple: a pending label. */
const PENDING = `PREFIX authz: <http://ndtp.co.uk/security#>
GRAPH authz:labels { [ authz:pattern '<http://example/emp> <http://example/p> "staff only"' ; authz:label "employee" ] . }`;

async function node(withHidden: boolean | 'pending', allowUnreadableLabels = false): Promise<Node> {
  const store = await openStore({ defaultLabel: 'employee' });
  await store.load(PUBLIC, { format: 'application/trig', label: '*' });
  await store.load(withHidden === 'pending' ? PENDING : withHidden ? HIDDEN : DECOY, { format: 'application/trig', label: 'employee' });
  const server = await createGraphServer(
    { security: { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] }, dataset: { name: 'ds', defaultLabel: 'employee' }, writes: { allowUnreadableLabels } },
    { logger: false, store, jwksCooldownMs: 0 },
  );
  return { server, store, base: await server.listen({ port: 0 }) };
}

/** What a client can observe of a reply: status, headers but `date`, body. */
function observed(r: RawResponse): unknown {
  const { date: _date, ...headers } = r.headers;
  return { status: r.status, headers, text: r.text };
}

interface WriteCase {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const update = (text: string): Pick<WriteCase, 'method' | 'path' | 'headers' | 'body'> => ({
  method: 'POST', path: '/ds/update', headers: { 'content-type': 'application/sparql-update', 'security-label': '*' }, body: text,
});
const gsp = (method: string, body?: string): Pick<WriteCase, 'method' | 'path' | 'headers' | 'body'> => ({
  method, path: `/ds/data?graph=${encodeURIComponent('http://example/g')}`,
  headers: body === undefined ? {} : { 'content-type': 'text/turtle', 'security-label': '*' }, ...(body === undefined ? {} : { body }),
});

const CASES: WriteCase[] = [
  { name: 'upload with Security-Label *', method: 'POST', path: '/ds/upload', headers: { 'content-type': 'application/n-triples', 'security-label': '*' }, body: `${TRIPLE}\n` },
  { name: 'upload with a labels-graph entry *', method: 'POST', path: '/ds/upload', headers: { 'content-type': 'application/trig' }, body: labelsGraph('*') },
  { name: 'upload with a labels-graph entry ! (hiding it from its owners)', method: 'POST', path: '/ds/upload', headers: { 'content-type': 'application/trig' }, body: labelsGraph('!') },
  { name: 'SPARQL INSERT DATA', ...update(`INSERT DATA { ${TRIPLE} GRAPH <http://example/g> { ${TRIPLE} } }`) },
  { name: 'SPARQL DELETE DATA', ...update(`DELETE DATA { ${TRIPLE} GRAPH <http://example/g> { ${TRIPLE} } }`) },
  { name: 'SPARQL DELETE/INSERT WHERE', ...update('DELETE { ?s ?p ?o } INSERT { ?s ?p "changed" } WHERE { ?s ?p ?o }') },
  { name: 'GSP PUT', ...gsp('PUT', TRIPLE) },
  { name: 'GSP POST', ...gsp('POST', TRIPLE) },
  { name: 'GSP DELETE', ...gsp('DELETE') },
  {
    name: 'RDF Patch A and D with Security-Label *', method: 'POST', path: '/ds/patch', headers: { 'content-type': 'application/rdf-patch', 'security-label': '*' },
    body: `TX .\nA ${TRIPLE.slice(0, -1)}<http://example/g> .\nD ${TRIPLE}\nTC .\nTX .\nA ${TRIPLE}\nTC .\n`,
  },
];

describe('a writer can neither change nor detect a quad it cannot see', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const [a, b] = [await node(true), await node(false)];
      try {
        expect(a.store.stats().txId).toBe(b.store.stats().txId);
        const send = (n: Node) =>
          rawRequest(n.base, c.method, c.path, { ...c.headers, authorization: `Bearer ${tokens['writer@test']}`, 'x-request-id': 'same-id' }, c.body);
        const [ra, rb] = [await send(a), await send(b)];
        expect(ra.status).toBeLessThan(300);
        expect(observed(ra)).toEqual(observed(rb));
        // The hidden quads are exactly as they were, data and label.
        for (const q of HIDDEN_QUADS) expect(a.store.labelOf(q), `${q.g || 'default graph'}`).toBe('employee');
        // And the same request did reach what the writer can see (the test can fail).
        expect(a.store.stats().txId).toBe(b.store.stats().txId);
      } finally {
        await a.server.close();
        await b.server.close();
      }
    });
  }

  for (const c of CASES.filter((x) => x.name.startsWith('upload with Security-Label') || x.name === 'SPARQL INSERT DATA')) {
    it(`${c.name}: a pending label the writer cannot see is neither replaced nor detected`, async () => {
      const [a, b] = [await node('pending'), await node(false)];
      try {
        const send = (n: Node) =>
          rawRequest(n.base, c.method, c.path, { ...c.headers, authorization: `Bearer ${tokens['writer@test']}`, 'x-request-id': 'same-id' }, c.body);
        const [ra, rb] = [await send(a), await send(b)];
        expect(ra.status).toBe(200);
        expect(observed(ra)).toEqual(observed(rb));
        // The triple arrived under the label its owners chose for it, not the writer's.
        expect(a.store.labelOf(HIDDEN_QUADS[0]!)).toBe('employee');
        expect(b.store.labelOf(HIDDEN_QUADS[0]!)).toBe('*');
      } finally {
        await a.server.close();
        await b.server.close();
      }
    });
  }

  it('the writer still relabels and removes quads it can see, through upload and update', async () => {
    const a = await node(true);
    try {
      const pub: KeyQuad = { s: '<http://example/pub', p: '<http://example/p', o: '"public"', g: '' };
      const auth = { authorization: `Bearer ${tokens['writer@test']}` };
      const up = await rawRequest(a.base, 'POST', '/ds/upload', { ...auth, 'content-type': 'application/n-triples', 'security-label': 'engineer' }, '<http://example/pub> <http://example/p> "public" .');
      expect(up.status).toBe(200);
      expect(a.store.labelOf(pub)).toBe('engineer');
      const del = await rawRequest(a.base, 'POST', '/ds/update', { ...auth, 'content-type': 'application/sparql-update' }, 'DELETE DATA { <http://example/pub> <http://example/p> "public" }');
      expect(del.status).toBe(200);
      expect(a.store.labelOf(pub)).toBeUndefined();
      for (const q of HIDDEN_QUADS) expect(a.store.labelOf(q)).toBe('employee');
    } finally {
      await a.server.close();
    }
  });

  it("the labels graph labels the writer's own new quads; the rest would take a default label it cannot see: refused, unless the dataset allows it", async () => {
    const body = `PREFIX authz: <http://ndtp.co.uk/security#>
PREFIX : <http://example/ref/>
:person4321 :phone "0400 111 333" ; :empId 4321 .
GRAPH authz:labels { [ authz:pattern ':person4321 :phone "0400 111 333"' ; authz:label "*" ] . }`;
    const phone = { s: '<http://example/ref/person4321', p: '<http://example/ref/phone', o: '"0400 111 333"', g: '' };
    const empId = { s: '<http://example/ref/person4321', p: '<http://example/ref/empId', o: '"4321"^^http://www.w3.org/2001/XMLSchema#integer', g: '' };
    const a = await node(true);
    try {
      const r = await rawRequest(a.base, 'POST', '/ds/upload', { authorization: `Bearer ${tokens['writer@test']}`, 'content-type': 'text/trig' }, body);
      expect(r.status).toBe(400);
      const error = JSON.parse(r.text) as { code: string; message: string };
      expect(error.code).toBe('LABEL_NOT_VISIBLE_TO_WRITER');
      expect(error.message).toMatch(/"employee" \(the dataset's default label[^)]*\) on 1 quad\b/);
      expect(error.message).not.toMatch(/"\*"/); // the visible label is not what is wrong
      expect(a.store.labelOf(phone)).toBeUndefined();
      expect(a.store.labelOf(empId)).toBeUndefined();
    } finally {
      await a.server.close();
    }
    const allowed = await node(true, true);
    try {
      const r = await rawRequest(allowed.base, 'POST', '/ds/upload', { authorization: `Bearer ${tokens['writer@test']}`, 'content-type': 'text/trig' }, body);
      expect(r.status).toBe(200);
      expect(JSON.parse(r.text)).toMatchObject({ quads: 2, inserted: 2, labels: [{ label: '*', quads: 1 }, { label: 'employee', quads: 1 }] });
      expect(allowed.store.labelOf(phone)).toBe('*');
      expect(allowed.store.labelOf(empId)).toBe('employee');
    } finally {
      await allowed.server.close();
    }
  });

  it('a write that changes nothing still advances the txId', async () => {
    const a = await node(true);
    try {
      const before = a.store.stats().txId;
      const auth = { authorization: `Bearer ${tokens['writer@test']}`, 'content-type': 'application/sparql-update' };
      const r = await rawRequest(a.base, 'POST', '/ds/update', auth, 'DELETE DATA { <http://e/never> <http://e/p> 1 }');
      expect(JSON.parse(r.text)).toMatchObject({ deleted: 0, txId: before + 1 });
      // A refused write commits nothing: a GSP DELETE of a graph the writer cannot see is 404.
      const gone = await rawRequest(a.base, 'DELETE', `/ds/data?graph=${encodeURIComponent('http://example/none')}`, { authorization: auth.authorization });
      expect(gone.status).toBe(404);
      expect(a.store.stats().txId).toBe(before + 1);
    } finally {
      await a.server.close();
    }
  });
});
