/** Round trips over HTTP (open mode): every result format, every upload format, errors and limits. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQuads } from '@ianode/rdf';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { jsonLdToNQuads } from '../src/jsonld.js';
import { parseResults } from '../src/sparql-results.js';

const TTL = '@prefix : <http://example/> .\n:a :p "one" .\n:b :p 2 .\n:c :q :a .\n';

/** Two servers with the same limits: `server` holds TTL (default graph) and one named graph and
 * no test writes to it, so every read sees the same data; the tests that write use `writable`. */
let server: GraphServer;
let base: string;
let writable: GraphServer;
let writableBase: string;

async function upload(body: string | FormData, type?: string, headers: Record<string, string> = {}, url = writableBase) {
  return fetch(`${url}/ds/upload`, { method: 'POST', headers: { ...(type ? { 'content-type': type } : {}), ...headers }, body });
}

async function count(): Promise<number> {
  const r = await fetch(`${writableBase}/ds/query`, { method: 'POST', headers: { 'content-type': 'application/sparql-query' }, body: 'SELECT (COUNT(*) AS ?n) WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }' });
  const body = (await r.json()) as { results: { bindings: Array<{ n: { value: string } }> } };
  return Number(body.results.bindings[0]!.n.value);
}

beforeAll(async () => {
  const config = { limits: { uploadBytes: 4096, resultRows: 20 } };
  [server, writable] = await Promise.all([createGraphServer(config, { logger: false }), createGraphServer(config, { logger: false })]);
  [base, writableBase] = await Promise.all([server.listen({ port: 0 }), writable.listen({ port: 0 })]);
  expect((await upload(TTL, 'text/turtle', {}, base)).status).toBe(200);
  expect((await upload('<http://x/g> { <http://x/s> <http://x/p> "in g" . }', 'application/trig', {}, base)).status).toBe(200);
});

afterAll(async () => {
  await Promise.all([server.close(), writable.close()]);
});

describe('SPARQL result formats', () => {
  for (const type of ['application/sparql-results+json', 'application/sparql-results+xml', 'text/csv', 'text/tab-separated-values']) {
    it(`SELECT as ${type}`, async () => {
      const r = await fetch(`${base}/ds?query=${encodeURIComponent('SELECT ?s ?o WHERE { ?s <http://example/p> ?o } ORDER BY ?s')}`, { headers: { accept: type } });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain(type);
      const parsed = parseResults(await r.text(), type);
      expect(parsed.type).toBe('bindings');
      if (parsed.type === 'bindings') expect([...parsed.solutions]).toHaveLength(2);
    });
  }
  it('ASK as JSON', async () => {
    const r = await fetch(`${base}/ds?query=${encodeURIComponent('ASK { ?s ?p "one" }')}`);
    expect(await r.json()).toMatchObject({ boolean: true });
  });
  for (const type of ['text/turtle', 'application/n-triples', 'application/n-quads', 'application/trig']) {
    it(`CONSTRUCT as ${type}`, async () => {
      const r = await fetch(`${base}/ds/sparql`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: type }, body: new URLSearchParams({ query: 'CONSTRUCT WHERE { ?s ?p ?o }' }) });
      expect(r.status).toBe(200);
      expect(parseQuads(await r.text(), { format: type as 'text/turtle' }).quads).toHaveLength(3);
    });
  }
  it('CONSTRUCT as JSON-LD', async () => {
    const r = await fetch(`${base}/ds?query=${encodeURIComponent('CONSTRUCT WHERE { ?s ?p ?o }')}`, { headers: { accept: 'application/ld+json' } });
    const nq = await jsonLdToNQuads(await r.text(), undefined);
    expect(nq.trim().split('\n')).toHaveLength(3);
  });
  it('406 when no format fits', async () => {
    const r = await fetch(`${base}/ds?query=${encodeURIComponent('SELECT * WHERE { ?s ?p ?o }')}`, { headers: { accept: 'image/png' } });
    expect(r.status).toBe(406);
  });
  it('SPARQL syntax error: 400 with position', async () => {
    const r = await fetch(`${base}/ds?query=${encodeURIComponent('SELECT * WHERE { ?s ?p }')}`);
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ code: 'SPARQL_SYNTAX' });
  });
  it('row cap: 413', async () => {
    const r = await fetch(`${base}/ds?query=${encodeURIComponent('SELECT ?a WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }')}`);
    expect(r.status).toBe(413);
  });
  it('update and graph store writes answer (open mode); PUT needs ?default or ?graph=', async () => {
    const r = await fetch(`${writableBase}/ds/update`, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: 'INSERT DATA { <a:a> <a:b> <a:c> } ; DELETE DATA { <a:a> <a:b> <a:c> }' });
    expect(r.status).toBe(200);
    // Counts are what the request did to the store, per quad: added then removed again is nothing.
    expect(await r.json()).toMatchObject({ operations: 2, inserted: 0, deleted: 0, labels: [] });
    const added = await fetch(`${writableBase}/ds/update`, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: 'INSERT DATA { <a:a> <a:b> <a:c> }' });
    expect(await added.json()).toMatchObject({ operations: 1, inserted: 1, deleted: 0, labels: [{ label: '!', quads: 1 }] });
    const removed = await fetch(`${writableBase}/ds/update`, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: 'DELETE DATA { <a:a> <a:b> <a:c> }' });
    expect(await removed.json()).toMatchObject({ operations: 1, inserted: 0, deleted: 1 });
    expect((await fetch(`${writableBase}/ds/data`, { method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: TTL })).status).toBe(400);
  });
});

describe('uploads', () => {
  const cases: Array<[string, string, number]> = [
    ['application/trig', '<http://x/s> <http://x/p> "trig" . <http://x/g> { <http://x/s> <http://x/p> "in g" . }', 2],
    ['application/n-triples', '<http://x/s> <http://x/p> "nt" .\n', 1],
    ['application/n-quads', '<http://x/s> <http://x/p> "nq" <http://x/g2> .\n', 1],
    ['application/ld+json', JSON.stringify({ '@id': 'http://x/s', 'http://x/p': 'jsonld' }), 1],
  ];
  for (const [type, body, quads] of cases) {
    it(`${type}`, async () => {
      const before = await count();
      const r = await upload(body, type);
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ quads });
      expect(await count()).toBe(before + quads);
    });
  }
  it('multipart file upload', async () => {
    const form = new FormData();
    form.append('file', new Blob(['<http://x/m> <http://x/p> "multipart" .\n']), 'data.nt');
    const r = await upload(form);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ quads: 1 });
  });
  it('parse error: 400 with line and column, nothing stored', async () => {
    const before = await count();
    const r = await upload('<http://x/ok> <http://x/p> "fine" .\n<http://x/s> <http://x/p> oops .\n', 'text/turtle');
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ code: 'RDF_SYNTAX', line: 2, column: expect.any(Number) });
    expect(await count()).toBe(before);
  });
  it('malformed Security-Label: 400 with position, nothing stored', async () => {
    const before = await count();
    const r = await upload('<http://x/l> <http://x/p> "l" .', 'text/turtle', { 'security-label': 'a & & b' });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ code: 'LABEL_SYNTAX', position: expect.any(Number) });
    expect(await count()).toBe(before);
  });
  it('missing content type: 400; unsupported: 415; too large: 413', async () => {
    expect((await fetch(`${writableBase}/ds/upload`, { method: 'POST', body: new Uint8Array([1, 2]) })).status).toBe(400);
    expect((await upload('x', 'application/pdf')).status).toBe(415);
    expect((await upload(`<http://x/big> <http://x/p> "${'x'.repeat(5000)}" .`, 'text/turtle')).status).toBe(413);
  });
});

describe('graph store reads', () => {
  it('?default, ?graph=, HEAD and 404 for an unknown graph', async () => {
    const d = await fetch(`${base}/ds/data?default`, { headers: { accept: 'application/n-triples' } });
    expect(d.status).toBe(200);
    expect(await d.text()).toContain('"one"');
    const g = await fetch(`${base}/ds/get?graph=${encodeURIComponent('http://x/g')}`, { headers: { accept: 'application/n-triples' } });
    expect((await g.text()).trim()).toBe('<http://x/s> <http://x/p> "in g" .');
    expect((await fetch(`${base}/ds/get?graph=${encodeURIComponent('http://x/none')}`)).status).toBe(404);
    expect((await fetch(`${base}/ds/data`, { method: 'HEAD' })).status).toBe(200);
  });
});

describe('query time limit', () => {
  let slow: GraphServer;
  let slowBase: string;
  beforeAll(async () => {
    // 1 s, not less: the limit counts from the request's arrival (the hand-over to a query worker
    // included), and a loaded CI machine can take tens of milliseconds for the next small query.
    // Eager workers: the query after the cancelled one finds the spare ready, not a thread start
    // (which would count against its 1 s on a loaded machine).
    slow = await createGraphServer({ limits: { queryTimeoutMs: 1000 } }, { logger: false, queryWorkerStart: 'eager' });
    slowBase = await slow.listen({ port: 0 });
    const lines: string[] = [];
    for (let i = 0; i < 2000; i++) lines.push(`<http://x/r${i}> <http://x/k> ${i} .`);
    await slow.store.load(lines.join('\n'), { format: 'text/turtle' });
  });
  afterAll(() => slow.close());

  it('cancels a query over the limit with 503 QUERY_TIMEOUT (its 8e9 rows could never be counted in time) and goes on serving', async () => {
    // 8e9 rows to count: nothing can be sent before the deadline, and nothing is held (no row
    // budget to run into first).
    const cross = 'SELECT (COUNT(*) AS ?n) { ?a <http://x/k> ?x . ?b <http://x/k> ?y . ?c <http://x/k> ?z }';
    const r = await fetch(`${slowBase}/ds?query=${encodeURIComponent(cross)}`);
    expect(r.status).toBe(503);
    const body = (await r.json()) as { code: string; message: string };
    expect(body.code).toBe('QUERY_TIMEOUT');
    expect(body.message).toMatch(/1000 ms/);
    // The cancelled query no longer holds the event loop: the next one is answered.
    const ok = await fetch(`${slowBase}/ds?query=${encodeURIComponent('ASK { <http://x/r1> <http://x/k> 1 }')}`);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { boolean: boolean }).boolean).toBe(true);
  });
});

describe('GraphQL time limit', () => {
  let slow: GraphServer;
  let slowBase: string;
  beforeAll(async () => {
    slow = await createGraphServer({ graphql: true, limits: { queryTimeoutMs: 1 } }, { logger: false });
    slowBase = await slow.listen({ port: 0 });
    // One node with 100,000 properties: collecting them takes well over the 1 ms limit, and the
    // second node's read then finds the deadline passed.
    const lines: string[] = [];
    for (let i = 0; i < 100_000; i++) lines.push(`<http://x/hub> <http://x/p${i % 50}> "v${i}" .`);
    lines.push('<http://x/other> <http://x/p> "o" .');
    await slow.store.load(lines.join('\n'), { format: 'application/n-triples' });
  });
  afterAll(() => slow.close());

  it('a request over the limit is 503 QUERY_TIMEOUT with no partial data', async () => {
    const query = '{ a: node(uri: "http://x/hub") { properties { value } } b: node(uri: "http://x/other") { properties { value } } }';
    const r = await fetch(`${slowBase}/ds/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    expect(r.status).toBe(503);
    const body = (await r.json()) as { data?: unknown; errors: Array<{ extensions: { code: string } }> };
    expect(body.errors.map((e) => e.extensions.code)).toEqual(['QUERY_TIMEOUT']);
    expect(body).not.toHaveProperty('data');
  });
});
