/**
 * Answer formats over HTTP (open mode): RDF/XML in (upload, GSP, LOAD) and out (CONSTRUCT,
 * DESCRIBE, GSP GET), the `format` / `output` parameters, `Vary`, gzip / deflate / br, and a
 * result over the row limit (refused before the first byte, or cut with a marker after it).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { isomorphic } from 'rdf-isomorphic';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseQuads } from '@ianode/rdf';
import { parseRdfXml } from '@ianode/testkit';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { negotiateEncoding } from '../src/routes/respond.js';
import { heldTimers } from './helpers.js';

const RDFXML = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example/">
  <rdf:Description rdf:about="http://example/x">
    <ex:name xml:lang="en">Ex &amp; Co</ex:name>
    <ex:age rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">7</ex:age>
    <ex:knows><rdf:Description><ex:name>anon</ex:name></rdf:Description></ex:knows>
  </rdf:Description>
</rdf:RDF>
`;

interface Raw {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** The transfer ended without its terminating chunk (the response was cut). */
  cut: boolean;
}

/** A request through node:http: no automatic decompression, and a cut response is seen as such. */
function raw(url: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const parts: Buffer[] = [];
      let cut = false;
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('aborted', () => (cut = true));
      res.on('error', () => (cut = true));
      res.on('close', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts), cut: cut || !res.complete }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function decode(r: Raw): string {
  const coding = r.headers['content-encoding'];
  if (coding === 'gzip') return gunzipSync(r.body).toString('utf8');
  if (coding === 'deflate') return inflateSync(r.body).toString('utf8');
  if (coding === 'br') return brotliDecompressSync(r.body).toString('utf8');
  expect(coding).toBeUndefined();
  return r.body.toString('utf8');
}

const q = (query: string) => encodeURIComponent(query);

let server: GraphServer;
let base: string;
let loadDir: string;
/** The query workers' timers; held while a test must see what a job does without them. */
const workerTimers = heldTimers();
/** A named graph of eight triples the tests read (see beforeAll). */
const OUT_GRAPH = 'http://x/out';

async function count(graph?: string): Promise<number> {
  const where = graph === undefined ? '{ ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } }' : `GRAPH <${graph}> { ?s ?p ?o }`;
  const r = await fetch(`${base}/ds/query?query=${q(`SELECT (COUNT(*) AS ?n) WHERE { ${where} }`)}`, { headers: { accept: 'application/sparql-results+json' } });
  return Number(((await r.json()) as { results: { bindings: Array<{ n: { value: string } }> } }).results.bindings[0]!.n.value);
}

beforeAll(async () => {
  loadDir = await mkdtemp(path.join(tmpdir(), 'ianode-answers-'));
  server = await createGraphServer({ limits: { uploadBytes: 1 << 20 }, graphql: true, writes: { updateLoadDir: loadDir } }, { logger: false, queryTimers: workerTimers.timers });
  base = await server.listen({ port: 0 });
  const lines: string[] = [];
  for (let i = 0; i < 600; i++) lines.push(`<http://x/r${i}> <http://x/k> ${i} .`);
  lines.push('<http://x/g> { <http://x/g1> <http://x/in> "named" }');
  await server.store.load(lines.join('\n'), { format: 'application/trig' });
  // What the "out" tests read, loaded here and never written by a test: the RDF/XML example as
  // <http://example/out> in the default graph, and eight triples in <http://x/out> (the tests of
  // "RDF/XML in" write other subjects and graphs).
  const upload = await fetch(`${base}/ds/upload`, { method: 'POST', headers: { 'content-type': 'application/rdf+xml' }, body: RDFXML.replace(/example\/x/, 'example/out') });
  expect(upload.status).toBe(200);
  for (const [method, body] of [['PUT', RDFXML], ['POST', RDFXML.replace(/example\/x/, 'example/y')]] as const) {
    expect((await fetch(`${base}/ds/data?graph=${OUT_GRAPH}`, { method, headers: { 'content-type': 'application/rdf+xml' }, body })).ok).toBe(true);
  }
});

afterEach(() => workerTimers.pass());

afterAll(async () => {
  await server.close();
  await rm(loadDir, { recursive: true, force: true });
});

describe('RDF/XML in', () => {
  it('upload: stored as triples; a parse error is 400 with line and column, nothing stored', async () => {
    const before = await count();
    const r = await fetch(`${base}/ds/upload`, { method: 'POST', headers: { 'content-type': 'application/rdf+xml' }, body: RDFXML });
    expect(r.status, await r.clone().text()).toBe(200);
    expect(await r.json()).toMatchObject({ quads: 4, triples: 4 });
    expect(await count()).toBe(before + 4);
    const bad = await fetch(`${base}/ds/upload`, { method: 'POST', headers: { 'content-type': 'application/rdf+xml' }, body: RDFXML.replace('</ex:age>', '</ex:oops>') });
    expect(bad.status).toBe(400);
    const error = (await bad.json()) as { code: string; line: number; column: number; message: string };
    expect(error).toMatchObject({ code: 'RDF_SYNTAX', line: 5 });
    expect(error.column).toBeGreaterThan(0);
    expect(error.message).toMatch(/RDF\/XML/);
    expect(await count()).toBe(before + 4);
  });

  it('no external entity is read; inline entities are not expanded recursively', async () => {
    const before = await count();
    const external = `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example/">
  <rdf:Description rdf:about="http://example/xxe"><ex:v>&secret;</ex:v></rdf:Description>
</rdf:RDF>`;
    const r = await fetch(`${base}/ds/upload`, { method: 'POST', headers: { 'content-type': 'application/rdf+xml' }, body: external });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ code: 'RDF_SYNTAX' });
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [ <!ENTITY a "aaaaaaaaaa"> <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"> <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"> ]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example/">
  <rdf:Description rdf:about="http://example/laughs"><ex:v>&c;</ex:v></rdf:Description>
</rdf:RDF>`;
    const l = await fetch(`${base}/ds/upload`, { method: 'POST', headers: { 'content-type': 'application/rdf+xml' }, body: laughs });
    if (l.status === 200) {
      const v = await fetch(`${base}/ds/query?query=${q('SELECT ?v WHERE { <http://example/laughs> ?p ?v }')}`, { headers: { accept: 'application/sparql-results+json' } });
      const value = ((await v.json()) as { results: { bindings: Array<{ v: { value: string } }> } }).results.bindings[0]!.v.value;
      expect(value.length).toBeLessThan(100);
      await fetch(`${base}/ds/update`, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: 'DELETE WHERE { <http://example/laughs> ?p ?o }' });
    } else expect(l.status).toBe(400);
    expect(await count()).toBe(before);
  });

  it('Security-Label applies to an RDF/XML upload (triples, as Turtle)', async () => {
    const body = RDFXML.replace(/example\/x/, 'example/labelled');
    const r = await fetch(`${base}/ds/upload`, { method: 'POST', headers: { 'content-type': 'application/rdf+xml', 'security-label': 'rdfxml-test' }, body });
    expect(r.status).toBe(200);
    expect(server.store.snapshot().view((label) => label === 'rdfxml-test').count({})).toBe(4);
  });

  it('multipart upload of a .rdf file', async () => {
    const form = new FormData();
    form.append('file', new Blob([RDFXML.replace(/example\/x/, 'example/m')]), 'data.rdf');
    const r = await fetch(`${base}/ds/upload`, { method: 'POST', body: form });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ quads: 4 });
  });

  it('Graph Store PUT and POST of RDF/XML go to the named graph', async () => {
    const put = await fetch(`${base}/ds/data?graph=http://x/rx`, { method: 'PUT', headers: { 'content-type': 'application/rdf+xml' }, body: RDFXML });
    expect(put.status).toBe(201);
    expect(await count('http://x/rx')).toBe(4);
    const post = await fetch(`${base}/ds/data?graph=http://x/rx`, { method: 'POST', headers: { 'content-type': 'application/rdf+xml; charset=utf-8' }, body: RDFXML.replace(/example\/x/, 'example/y') });
    expect(post.status).toBe(200);
    expect(await count('http://x/rx')).toBe(8);
    const bad = await fetch(`${base}/ds/data?graph=http://x/rx`, { method: 'PUT', headers: { 'content-type': 'application/rdf+xml' }, body: '<rdf:RDF' });
    expect(bad.status).toBe(400);
    expect(await count('http://x/rx')).toBe(8);
  });

  it('SPARQL Update LOAD of a .rdf file', async () => {
    const file = path.join(loadDir, 'data.rdf');
    await writeFile(file, RDFXML);
    // writes.updateLoadDir (IANODE_UPDATE_LOAD_DIR through configFromEnv) is the server's loadDir.
    const r = await fetch(`${base}/ds/update`, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: `LOAD <${pathToFileURL(file).href}> INTO GRAPH <http://x/loaded>` });
    expect(r.status, await r.clone().text()).toBe(200);
    expect(await count('http://x/loaded')).toBe(4);
  });
});

describe('RDF/XML out', () => {
  it('CONSTRUCT, DESCRIBE and GSP GET with Accept: application/rdf+xml', async () => {
    const construct = await fetch(`${base}/ds/query?query=${q('CONSTRUCT WHERE { <http://example/out> ?p ?o } LIMIT 10')}`, { headers: { accept: 'application/rdf+xml' } });
    expect(construct.status).toBe(200);
    expect(construct.headers.get('content-type')).toBe('application/rdf+xml; charset=utf-8');
    const quads = await parseRdfXml(await construct.text());
    expect(quads).toHaveLength(3);
    const turtle = await fetch(`${base}/ds/query?query=${q('CONSTRUCT WHERE { <http://example/out> ?p ?o } LIMIT 10')}`, { headers: { accept: 'text/turtle' } });
    expect(isomorphic(quads, parseQuads(await turtle.text(), { format: 'text/turtle' }).quads)).toBe(true);
    const describe = await fetch(`${base}/ds/query?query=${q('DESCRIBE <http://example/out>')}`, { headers: { accept: 'application/rdf+xml' } });
    const described = await parseRdfXml(await describe.text());
    const describedTurtle = await fetch(`${base}/ds/query?query=${q('DESCRIBE <http://example/out>')}`, { headers: { accept: 'text/turtle' } });
    expect(described.length).toBeGreaterThanOrEqual(3);
    expect(isomorphic(described, parseQuads(await describedTurtle.text(), { format: 'text/turtle' }).quads)).toBe(true);
    const gsp = await fetch(`${base}/ds/data?graph=${OUT_GRAPH}`, { headers: { accept: 'application/rdf+xml' } });
    expect(gsp.status).toBe(200);
    expect(await parseRdfXml(await gsp.text())).toHaveLength(8);
    // The whole dataset has named graphs: RDF/XML cannot carry it.
    const dataset = await fetch(`${base}/ds/data`, { headers: { accept: 'application/rdf+xml' } });
    expect(dataset.status).toBe(406);
  });

  it('a predicate RDF/XML cannot write is refused before the first byte (406 naming it)', async () => {
    const r = await fetch(`${base}/ds/query?query=${q('CONSTRUCT { ?s <http://x/1> ?o } WHERE { ?s <http://x/k> ?o } LIMIT 3')}`, { headers: { accept: 'application/rdf+xml' } });
    expect(r.status).toBe(406);
    expect(((await r.json()) as { message: string }).message).toContain('<http://x/1>');
  });
});

describe('format= and output=', () => {
  const select = q('SELECT ?o WHERE { <http://x/r1> ?p ?o }');
  const construct = q('CONSTRUCT WHERE { <http://x/r1> ?p ?o }');
  it.each([
    ['format=json', select, 'application/sparql-results+json'],
    ['format=xml', select, 'application/sparql-results+xml'],
    ['output=csv', select, 'text/csv'],
    ['format=tsv', select, 'text/tab-separated-values'],
    ['format=application/sparql-results%2Bxml', select, 'application/sparql-results+xml'],
    ['format=xml', construct, 'application/rdf+xml'],
    ['format=rdfxml', construct, 'application/rdf+xml'],
    ['format=json', construct, 'application/ld+json'],
    ['output=ttl', construct, 'text/turtle'],
    ['format=turtle', construct, 'text/turtle'],
    ['format=nt', construct, 'application/n-triples'],
    ['format=nq', construct, 'application/n-quads'],
    ['format=trig', construct, 'application/trig'],
    ['format=jsonld', construct, 'application/ld+json'],
    ['format=application/rdf+xml', construct, 'application/rdf+xml'],
    // SPARQLWrapper repeats each format as a name and a media type, on format, output and results.
    ['format=tsv&format=text/tab-separated-values&output=tsv&output=text/tab-separated-values&results=tsv', select, 'text/tab-separated-values'],
    ['format=json-ld&format=application/ld%2Bjson,application/x-json%2Bld&output=json-ld', construct, 'application/ld+json'],
    ['format=rdf%2Bxml&format=application/rdf%2Bxml&output=rdf%2Bxml', construct, 'application/rdf+xml'],
    ['format=csv&output=json', select, 'text/csv'],
  ])('%s overrides Accept', async (param, query, type) => {
    const r = await fetch(`${base}/ds/query?query=${query}&${param}`, { headers: { accept: 'image/png' } });
    expect(r.status, await r.clone().text()).toBe(200);
    expect(r.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
  });

  it('in a POST form, on /ds and /ds/sparql, and on a Graph Store GET', async () => {
    const form = await fetch(`${base}/ds/sparql`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ query: 'SELECT * WHERE { ?s ?p ?o } LIMIT 1', output: 'xml' }) });
    expect(form.headers.get('content-type')).toContain('application/sparql-results+xml');
    const ds = await fetch(`${base}/ds?query=${select}&format=csv`);
    expect(ds.headers.get('content-type')).toContain('text/csv');
    const gsp = await fetch(`${base}/ds/data?graph=${OUT_GRAPH}&format=nt`, { headers: { accept: 'text/turtle' } });
    expect(gsp.headers.get('content-type')).toContain('application/n-triples');
  });

  it('an unknown value is 400 naming it; a format that cannot carry the answer is 406', async () => {
    const unknown = await fetch(`${base}/ds/query?query=${select}&format=yaml`);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { message: string }).message).toContain('"yaml"');
    const gsp = await fetch(`${base}/ds/data?graph=${OUT_GRAPH}&output=pdf`);
    expect(gsp.status).toBe(400);
    const wrongKind = await fetch(`${base}/ds/query?query=${construct}&format=csv`);
    expect(wrongKind.status).toBe(406);
    expect(((await wrongKind.json()) as { message: string }).message).toContain('"csv"');
  });
});

describe('Vary', () => {
  it('every negotiated answer, its errors included, varies on Accept and Accept-Encoding', async () => {
    const answers = await Promise.all([
      fetch(`${base}/ds/query?query=${q('ASK {}')}`),
      fetch(`${base}/ds/data?graph=${OUT_GRAPH}`),
      fetch(`${base}/ds`),
      fetch(`${base}/ds/query?query=${q('ASK {}')}`, { headers: { accept: 'image/png' } }),
      fetch(`${base}/ds/query?query=${q('SELECT')}`),
      fetch(`${base}/ds/data?graph=http://x/none`),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 406, 400, 404]);
    for (const r of answers) expect(r.headers.get('vary')).toBe('Accept, Accept-Encoding');
  });
});

describe('compression', () => {
  it('negotiates by Accept-Encoding with q-values', () => {
    expect(negotiateEncoding(undefined)).toBe('identity');
    expect(negotiateEncoding('')).toBe('identity');
    expect(negotiateEncoding('identity')).toBe('identity');
    expect(negotiateEncoding('gzip, deflate, br')).toBe('br');
    expect(negotiateEncoding('gzip;q=1.0, br;q=0.5')).toBe('gzip');
    expect(negotiateEncoding('br;q=0, gzip;q=0.1')).toBe('gzip');
    expect(negotiateEncoding('deflate')).toBe('deflate');
    expect(negotiateEncoding('*;q=0.3, br;q=0.2')).toBe('gzip');
    expect(negotiateEncoding('*;q=0')).toBe('identity');
    expect(negotiateEncoding('zstd, compress')).toBe('identity');
  });

  const cases: Array<[string, string, Record<string, string>]> = [
    ['SELECT JSON', `/ds/query?query=${q('SELECT ?s ?o WHERE { ?s <http://x/k> ?o }')}`, { accept: 'application/sparql-results+json' }],
    ['CONSTRUCT Turtle', `/ds/query?query=${q('CONSTRUCT WHERE { ?s <http://x/k> ?o }')}`, { accept: 'text/turtle' }],
    ['GSP GET', '/ds/data?default', { accept: 'application/n-triples' }],
  ];
  it.each(cases)('%s: gzip, deflate and br decompress to the identity answer', async (_name, url, headers) => {
    const identity = await raw(base + url, headers);
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.length).toBeGreaterThan(10_000);
    for (const coding of ['gzip', 'deflate', 'br']) {
      const r = await raw(base + url, { ...headers, 'accept-encoding': coding });
      expect(r.status).toBe(200);
      expect(r.headers['content-encoding']).toBe(coding);
      expect(r.headers.vary).toBe('Accept, Accept-Encoding');
      expect(r.cut).toBe(false);
      expect(r.body.length).toBeLessThan(identity.body.length / 2);
      expect(decode(r)).toBe(identity.body.toString('utf8'));
    }
  });

  it('GraphQL: a large answer is compressed, a small one is not', async () => {
    const body = JSON.stringify({ query: '{ node(uri: "http://x/r1") { id properties { predicate value } } }' });
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    const small = await raw(`${base}/ds/graphql`, { ...headers, 'accept-encoding': 'gzip' }, 'POST', body);
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toBe('Accept, Accept-Encoding');
    const bigQuery = JSON.stringify({ query: `{ ${Array.from({ length: 60 }, (_, i) => `n${i}: node(uri: "http://x/r${i}") { id properties { predicate value } }`).join(' ')} }` });
    const identity = await raw(`${base}/ds/graphql`, headers, 'POST', bigQuery);
    expect(identity.body.length).toBeGreaterThan(1024);
    for (const coding of ['br', 'gzip']) {
      const r = await raw(`${base}/ds/graphql`, { ...headers, 'accept-encoding': coding }, 'POST', bigQuery);
      expect(r.headers['content-encoding']).toBe(coding);
      expect(decode(r)).toBe(identity.body.toString('utf8'));
    }
  });

  it('a client that leaves in the middle of a compressed answer cancels its worker job', async () => {
    const big = `/ds/query?query=${q('SELECT * WHERE { ?a <http://x/k> ?x . ?b <http://x/k> ?y }')}`;
    const killed = server.pool.stats().killed;
    // The pool's grace timer (it terminates a worker that has not noticed the client left) is held:
    // only the job's own check can free the worker, however slow the machine.
    workerTimers.hold();
    let busyWhileAnswering = 0;
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(base + big, { headers: { 'accept-encoding': 'gzip', accept: 'text/tab-separated-values' } }, (res) => {
        expect(res.headers['content-encoding']).toBe('gzip');
        res.once('data', () => {
          busyWhileAnswering = server.pool.stats().busy;
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => undefined);
      req.on('close', () => resolve());
      req.end();
      setTimeout(() => reject(new Error('no data')), 10_000);
    });
    expect(busyWhileAnswering).toBe(1);
    while (server.pool.stats().busy > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.pool.stats().busy).toBe(0);
    // Cancelled by the job's own check, not by terminating its worker.
    expect(server.pool.stats().killed).toBe(killed);
  });
});

describe('a result over the row limit', () => {
  let small: GraphServer;
  let smallBase: string;
  beforeAll(async () => {
    small = await createGraphServer({ limits: { resultRows: 40, uploadBytes: 1 << 22 } }, { logger: false });
    smallBase = await small.listen({ port: 0 });
    const lines: string[] = [];
    // Rows of about 3 kB: the first chunk (64 KiB) of an answer is ready after about 20 of them.
    for (let i = 0; i < 60; i++) lines.push(`<http://x/r${i}> <http://x/big> "${String(i).padStart(3, '0')}${'x'.repeat(3000)}" .`);
    await small.store.load(lines.join('\n'), { format: 'application/n-triples' });
  });
  afterAll(() => small.close());

  it('known before the first byte (ORDER BY materialises; small rows): 413 naming the limit', async () => {
    // ORDER BY over rows that would otherwise stream past the first chunk: sorted first, refused first.
    for (const query of ['SELECT ?o WHERE { ?s <http://x/big> ?o } ORDER BY ?o', 'SELECT ?s WHERE { ?s ?p ?o } ORDER BY ?s', 'SELECT ?s WHERE { ?s ?p ?o }', 'SELECT ?s (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?s']) {
      const r = await raw(`${smallBase}/ds/query?query=${q(query)}`, { 'accept-encoding': 'gzip' });
      expect(r.status, query).toBe(413);
      const body = JSON.parse(r.body.toString('utf8')) as { code: string; message: string };
      expect(body.message).toContain('40 rows');
      expect(body.message).toMatch(/LIMIT/);
    }
  });

  it('found after the first byte: the response is cut (no terminating chunk), after a marker where the format has comments', async () => {
    const query = `/ds/query?query=${q('CONSTRUCT WHERE { ?s <http://x/big> ?o }')}`;
    const turtle = await raw(smallBase + query, { accept: 'application/n-triples' });
    expect(turtle.status).toBe(200);
    expect(turtle.cut).toBe(true);
    const text = turtle.body.toString('utf8');
    expect(text).toMatch(/\n# ERROR: the answer is incomplete: .*more than 40 rows/);
    const gz = await raw(smallBase + query, { accept: 'text/turtle', 'accept-encoding': 'gzip' });
    expect(gz.status).toBe(200);
    expect(gz.cut).toBe(true);
    // A compressed answer that was cut: what arrived still inflates (each chunk is flushed).
    const { createGunzip } = await import('node:zlib');
    const inflated = await new Promise<string>((resolve) => {
      const gunzip = createGunzip();
      const parts: Buffer[] = [];
      gunzip.on('data', (b: Buffer) => parts.push(b));
      gunzip.on('error', () => resolve(Buffer.concat(parts).toString('utf8')));
      gunzip.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      gunzip.end(gz.body);
    });
    expect(inflated).toMatch(/# ERROR: the answer is incomplete: .*more than 40 rows/);
    const json = await raw(`${smallBase}/ds/query?query=${q('SELECT ?o WHERE { ?s <http://x/big> ?o }')}`, { accept: 'application/sparql-results+json' });
    expect(json.status).toBe(200);
    expect(json.cut).toBe(true);
    expect(() => JSON.parse(json.body.toString('utf8'))).toThrow();
    const xml = await raw(`${smallBase}/ds/query?query=${q('SELECT ?o WHERE { ?s <http://x/big> ?o }')}`, { accept: 'application/sparql-results+xml' });
    expect(xml.cut).toBe(true);
    expect(xml.body.toString('utf8')).toMatch(/<!-- ERROR: the answer is incomplete: .*more than 40 rows/);
  });
});
