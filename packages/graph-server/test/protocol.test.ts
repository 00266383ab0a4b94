/**
 * SPARQL 1.1 Protocol details over HTTP (open mode): the update dataset parameters, the base IRI,
 * one query/update per request, UTF-8 bodies, methods, and the service description.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseQuads, type Quad } from '@ianode/rdf';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { clearStore, rawRequest } from './helpers.js';

const SD = 'http://www.w3.org/ns/sparql-service-description#';
const DOC = '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Document>';
const DATA = `
GRAPH <http://d/1> { <http://d/1> ${DOC} . }
GRAPH <http://d/2> { <http://d/2> ${DOC} . }
GRAPH <http://d/3> { <http://d/3> ${DOC} . }`;

let server: GraphServer;
let base: string;

async function ask(query: string): Promise<boolean> {
  const r = await fetch(`${base}/ds?query=${encodeURIComponent(query)}`);
  expect(r.status).toBe(200);
  return ((await r.json()) as { boolean: boolean }).boolean;
}

async function quadCount(): Promise<number> {
  return server.store.stats().quads;
}

const update = (text: string, query = '', path = '/ds', type = 'application/sparql-update') =>
  fetch(`${base}${path}${query}`, { method: 'POST', headers: { 'content-type': type }, body: text });

beforeAll(async () => {
  server = await createGraphServer({}, { logger: false });
  base = await server.listen({ port: 0 });
});

afterAll(async () => {
  await server.close();
});

beforeEach(async () => {
  await clearStore(server.store);
  await server.store.load(DATA, { format: 'application/trig' });
});

describe('update dataset: using-graph-uri / using-named-graph-uri', () => {
  const COPY = `INSERT { GRAPH <http://out> { ?s <http://in> ?in } } WHERE {
    { GRAPH ?g { ?s a <http://xmlns.com/foaf/0.1/Document> } BIND(?g AS ?in) } UNION { ?s a <http://xmlns.com/foaf/0.1/Document> BIND("default" AS ?in) } }`;
  const out = async () => {
    const r = await fetch(`${base}/ds?query=${encodeURIComponent('SELECT ?s ?in { GRAPH <http://out> { ?s <http://in> ?in } } ORDER BY ?s')}`);
    const body = (await r.json()) as { results: { bindings: Array<Record<string, { value: string }>> } };
    return body.results.bindings.map((b) => `${b.s!.value} ${b.in!.value}`);
  };

  it('using-graph-uri is the WHERE default graph, using-named-graph-uri its named graphs (URL, /ds)', async () => {
    const r = await update(COPY, `?using-graph-uri=${encodeURIComponent('http://d/1')}&using-named-graph-uri=${encodeURIComponent('http://d/2')}`);
    expect(r.status).toBe(200);
    expect(await out()).toEqual(['http://d/1 default', 'http://d/2 http://d/2']);
  });

  it('several using-graph-uri merge into the default graph; form fields work on /ds/update', async () => {
    const form = new URLSearchParams({ update: COPY });
    form.append('using-graph-uri', 'http://d/1');
    form.append('using-graph-uri', 'http://d/3');
    const r = await update(form.toString(), '', '/ds/update', 'application/x-www-form-urlencoded');
    expect(r.status).toBe(200);
    expect(await out()).toEqual(['http://d/1 default', 'http://d/3 default']);
  });

  it('only using-named-graph-uri: an empty default graph', async () => {
    expect((await update(COPY, `?using-named-graph-uri=${encodeURIComponent('http://d/3')}`)).status).toBe(200);
    expect(await out()).toEqual(['http://d/3 http://d/3']);
  });

  it('without the parameters the whole store is the WHERE dataset', async () => {
    expect((await update(COPY)).status).toBe(200);
    expect(await out()).toEqual(['http://d/1 http://d/1', 'http://d/2 http://d/2', 'http://d/3 http://d/3']);
  });

  for (const [clause, text] of [
    ['WITH', 'WITH <http://d/1> INSERT { ?s <http://p> 1 } WHERE { ?s ?p ?o }'],
    ['USING', 'INSERT { ?s <http://p> 1 } USING <http://d/1> WHERE { ?s ?p ?o }'],
    ['USING NAMED', 'INSERT { ?s <http://p> 1 } USING NAMED <http://d/1> WHERE { GRAPH ?g { ?s ?p ?o } }'],
  ] as const) {
    it(`${clause} in the update together with the parameters: 400, nothing written`, async () => {
      const before = await quadCount();
      const r = await update(`INSERT DATA { <http://x> <http://y> 1 } ; ${text}`, `?using-named-graph-uri=${encodeURIComponent('http://d/2')}`);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { message: string }).message).toMatch(/USING, USING NAMED or WITH/);
      expect(await quadCount()).toBe(before);
      // The same update without the parameters runs.
      expect((await update(text)).status).toBe(200);
    });
  }

  it('dataset parameters of the other operation: 400', async () => {
    expect((await update('CLEAR ALL', `?default-graph-uri=${encodeURIComponent('http://d/1')}`)).status).toBe(400);
    expect((await fetch(`${base}/ds?query=${encodeURIComponent('ASK {}')}&using-graph-uri=${encodeURIComponent('http://d/1')}`)).status).toBe(400);
    expect(await quadCount()).toBe(3);
  });
});

describe('base IRI', () => {
  it('relative IRIs of an update resolve against the endpoint URL', async () => {
    expect((await update('INSERT DATA { GRAPH <http://base-test> { <http://s> <http://p> <test> } }')).status).toBe(200);
    expect(await ask(`ASK { GRAPH <http://base-test> { <http://s> <http://p> <${base}/test> } }`)).toBe(true);
  });

  it('relative IRIs of a query resolve against the endpoint URL', async () => {
    const r = await fetch(`${base}/ds/query?query=${encodeURIComponent('SELECT (STR(<x>) AS ?iri) {}')}`);
    const body = (await r.json()) as { results: { bindings: Array<{ iri: { value: string } }> } };
    expect(body.results.bindings[0]!.iri.value).toBe(`${base}/ds/x`); // RFC 3986: <x> against .../ds/query
  });

  it('a configured base IRI wins', async () => {
    const other = await createGraphServer({}, { logger: false, baseIRI: 'http://configured/base/' });
    const url = await other.listen({ port: 0 });
    const r = await fetch(`${url}/ds/update`, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: 'INSERT DATA { <s> <p> <o> }' });
    expect(r.status).toBe(200);
    expect(other.store.labelOf({ s: '<http://configured/base/s', p: '<http://configured/base/p', o: '<http://configured/base/o', g: '' })).toBeDefined();
    await other.close();
  });
});

describe('requests the protocol refuses', () => {
  it('two query= or update= values: 400, over URL, form and body', async () => {
    expect((await fetch(`${base}/ds?query=${encodeURIComponent('ASK {}')}&query=${encodeURIComponent('SELECT * {}')}`)).status).toBe(400);
    expect((await update('update=CLEAR%20NAMED&update=CLEAR%20DEFAULT', '', '/ds', 'application/x-www-form-urlencoded')).status).toBe(400);
    expect((await fetch(`${base}/ds?query=${encodeURIComponent('ASK {}')}`, { method: 'POST', headers: { 'content-type': 'application/sparql-query' }, body: 'ASK {}' })).status).toBe(400);
    expect(await quadCount()).toBe(3);
  });

  it('an update by GET: 405 with Allow: POST, nothing changed', async () => {
    for (const path of ['/ds', '/ds/update', '/ds/query']) {
      const r = await fetch(`${base}${path}?update=${encodeURIComponent('CLEAR ALL')}`);
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
    }
    expect(await quadCount()).toBe(3);
  });

  it('methods other than GET and POST: 405 with Allow', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const r = await fetch(`${base}/ds?query=${encodeURIComponent('ASK {}')}`, { method });
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('GET, HEAD, POST');
    }
  });

  it('bodies that are not UTF-8: 415 for a declared charset, 400 for other bytes', async () => {
    const utf16 = Buffer.from('\ufeffASK {}', 'utf16le');
    const declared = await fetch(`${base}/ds`, { method: 'POST', headers: { 'content-type': 'application/sparql-query; charset=UTF-16' }, body: utf16 });
    expect(declared.status).toBe(415);
    const undeclared = await fetch(`${base}/ds`, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: Buffer.from('INSERT DATA { <http://a> <http://b> "caf\xe9" }', 'latin1') });
    expect(undeclared.status).toBe(400);
    expect(((await undeclared.json()) as { message: string }).message).toMatch(/not UTF-8/);
    const form = await fetch(`${base}/ds`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'update=INSERT%20DATA%20%7B%3Chttp%3A%2F%2Fa%3E%20%3Chttp%3A%2F%2Fb%3E%20%22%E9%22%7D' });
    expect(form.status).toBe(400);
    expect(await quadCount()).toBe(3);
    // UTF-8 with charset=utf-8 is fine, and non-ASCII text round-trips.
    const ok = await fetch(`${base}/ds`, { method: 'POST', headers: { 'content-type': 'application/sparql-update; charset=utf-8' }, body: 'INSERT DATA { <http://a> <http://b> "café" }' });
    expect(ok.status).toBe(200);
    expect(await ask('ASK { <http://a> <http://b> "café" }')).toBe(true);
  });

  it('a POST without a Content-Type: 400; of another type: 415', async () => {
    const none = await rawRequest(base, 'POST', '/ds', { host: new URL(base).host }, 'query=ASK%20%7B%7D');
    expect(none.status).toBe(400);
    expect((await update('ASK {}', '', '/ds', 'text/plain')).status).toBe(415);
    expect((await update('CLEAR ALL', '', '/ds', 'text/plain')).status).toBe(415);
    expect(await quadCount()).toBe(3);
  });
});

describe('service description (GET on an endpoint without a query)', () => {
  const describeAt = async (path: string, accept?: string) => {
    const r = await fetch(`${base}${path}`, { headers: accept === undefined ? {} : { accept } });
    expect(r.status).toBe(200);
    const type = r.headers.get('content-type')!;
    const quads = parseQuads(await r.text(), { format: type.split(';')[0] as 'text/turtle' }).quads;
    return { type, quads };
  };
  const objects = (quads: Quad[], p: string) => quads.filter((q) => q.predicate.value === SD + p).map((q) => q.object.value).sort();

  it('/ds: Turtle by default, sd:endpoint is the URL asked, every language, the result formats, a default dataset', async () => {
    const { type, quads } = await describeAt('/ds');
    expect(type).toBe('text/turtle; charset=utf-8');
    expect(objects(quads, 'endpoint')).toEqual([`${base}/ds`]);
    expect(objects(quads, 'supportedLanguage')).toEqual([SD + 'SPARQL10Query', SD + 'SPARQL11Query', SD + 'SPARQL11Update']);
    expect(objects(quads, 'resultFormat')).toContain('http://www.w3.org/ns/formats/SPARQL_Results_JSON');
    expect(objects(quads, 'resultFormat')).toContain('http://www.w3.org/ns/formats/Turtle');
    expect(quads.some((q) => q.predicate.value.endsWith('#type') && q.object.value === SD + 'Service')).toBe(true);
    expect(objects(quads, 'defaultGraph')).toHaveLength(1);
    expect(objects(quads, 'feature')).toEqual([]);
    // It describes the service, not the data.
    expect(quads.some((q) => q.object.value.startsWith('http://d/'))).toBe(false);
  });

  it('/ds/query lists the query languages, /ds/update only SPARQL 1.1 Update', async () => {
    const query = await describeAt('/ds/query');
    expect(objects(query.quads, 'endpoint')).toEqual([`${base}/ds/query`]);
    expect(objects(query.quads, 'supportedLanguage')).toEqual([SD + 'SPARQL10Query', SD + 'SPARQL11Query']);
    const upd = await describeAt('/ds/update');
    expect(objects(upd.quads, 'endpoint')).toEqual([`${base}/ds/update`]);
    expect(objects(upd.quads, 'supportedLanguage')).toEqual([SD + 'SPARQL11Update']);
    expect(objects(upd.quads, 'resultFormat')).toEqual([]);
  });

  it('is content-negotiated; Turtle when no RDF format is acceptable; the Host header names the endpoint', async () => {
    const nt = await describeAt('/ds', 'application/n-triples');
    expect(nt.type).toBe('application/n-triples; charset=utf-8');
    expect(objects(nt.quads, 'endpoint')).toEqual([`${base}/ds`]);
    const html = await describeAt('/ds', 'text/html');
    expect(html.type).toBe('text/turtle; charset=utf-8');
    const named = await rawRequest(base, 'GET', '/ds/sparql', { host: 'sparql.example:8080' });
    expect(named.status).toBe(200);
    expect(named.text).toContain('<http://sparql.example:8080/ds/sparql>');
    expect((await rawRequest(base, 'GET', '/ds', { host: 'bad host' })).status).toBe(400);
  });

  it('HEAD answers the headers only; a GET with other protocol parameters but no query is still 400', async () => {
    const head = await rawRequest(base, 'HEAD', '/ds', { host: new URL(base).host });
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/turtle; charset=utf-8');
    expect(head.text).toBe('');
    expect((await fetch(`${base}/ds?default-graph-uri=${encodeURIComponent('http://d/1')}`)).status).toBe(400);
  });
});
