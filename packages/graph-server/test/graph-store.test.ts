/**
 * SPARQL 1.1 Graph Store HTTP Protocol over HTTP (open mode): status codes of PUT/POST/DELETE,
 * HEAD, direct graph identification (graph IRI = request URL from the Host header), graph creation
 * by POST to the store, percent-encoded graph IRIs, multipart bodies.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseQuads } from '@ianode/rdf';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { clearStore, rawRequest } from './helpers.js';

const TTL = '<http://www.example/person/1> <http://xmlns.com/foaf/0.1/name> "Jane Doe" .';
const TTL2 = '<http://www.example/person/1> <http://xmlns.com/foaf/0.1/familyName> "Doe" .';

let server: GraphServer;
let base: string;
let host: string;

async function ask(query: string): Promise<boolean> {
  const r = await fetch(`${base}/ds?query=${encodeURIComponent(query)}`);
  return ((await r.json()) as { boolean: boolean }).boolean;
}

const turtle = { 'content-type': 'text/turtle; charset=utf-8' };
const gsp = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
  rawRequest(base, method, path, { host, ...(body === undefined ? {} : turtle), ...headers }, body);

beforeAll(async () => {
  server = await createGraphServer({}, { logger: false });
  base = await server.listen({ port: 0 });
  host = new URL(base).host;
});

afterAll(async () => {
  await server.close();
});

beforeEach(async () => {
  await clearStore(server.store);
});

describe('status codes', () => {
  it('PUT: 201 when it creates the graph, 200 when it replaces it; the default graph always exists (200)', async () => {
    const g = `graph=${encodeURIComponent('http://g/1')}`;
    expect((await gsp('PUT', `/ds/data?${g}`, TTL)).status).toBe(201);
    expect((await gsp('PUT', `/ds/data?${g}`, TTL2)).status).toBe(200);
    expect(await ask(`ASK { GRAPH <http://g/1> { ${TTL2} } FILTER NOT EXISTS { GRAPH <http://g/1> { ${TTL} } } }`)).toBe(true);
    expect((await gsp('PUT', '/ds/data?default', TTL)).status).toBe(200);
  });

  it('POST to a graph: 201 when that creates it, then 200', async () => {
    const g = `graph=${encodeURIComponent('http://g/2')}`;
    expect((await gsp('POST', `/ds/data?${g}`, TTL)).status).toBe(201);
    expect((await gsp('POST', `/ds/data?${g}`, TTL2)).status).toBe(200);
    expect(await ask(`ASK { GRAPH <http://g/2> { ${TTL} ${TTL2} } }`)).toBe(true);
  });

  it('GET, HEAD and DELETE of a graph that does not exist: 404; DELETE then GET: 404', async () => {
    const g = `graph=${encodeURIComponent('http://g/none')}`;
    expect((await gsp('GET', `/ds/data?${g}`)).status).toBe(404);
    const head = await gsp('HEAD', `/ds/data?${g}`, undefined, { accept: 'text/turtle' });
    expect(head.status).toBe(404);
    expect(head.text).toBe('');
    expect((await gsp('DELETE', `/ds/data?${g}`)).status).toBe(404);
    await gsp('PUT', `/ds/data?graph=${encodeURIComponent('http://g/3')}`, TTL);
    expect((await gsp('DELETE', `/ds/data?graph=${encodeURIComponent('http://g/3')}`)).status).toBe(204);
    expect((await gsp('GET', `/ds/data?graph=${encodeURIComponent('http://g/3')}`)).status).toBe(404);
  });

  it('HEAD of an existing graph: 200, the GET headers, no body', async () => {
    await gsp('PUT', `/ds/data?graph=${encodeURIComponent('http://g/4')}`, TTL);
    const head = await gsp('HEAD', `/ds/data?graph=${encodeURIComponent('http://g/4')}`, undefined, { accept: 'text/turtle; charset=utf-8' });
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/turtle; charset=utf-8');
    expect(head.text).toBe('');
  });

  it('PATCH: 405 with Allow', async () => {
    const r = await gsp('PATCH', '/ds/data?default', TTL);
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, HEAD, PUT, POST, DELETE');
  });
});

describe('graph IRIs given as parameters', () => {
  it('are decoded once and taken as given: %31 and %2531 name two graphs', async () => {
    expect((await gsp('PUT', '/ds/data?graph=http://www.example/person/%31.ttl', TTL)).status).toBe(201);
    expect((await gsp('PUT', '/ds/data?graph=http://www.example/person/%2531.ttl', TTL2)).status).toBe(201);
    expect(await ask(`ASK { GRAPH <http://www.example/person/1.ttl> { ${TTL} } GRAPH <http://www.example/person/%31.ttl> { ${TTL2} } }`)).toBe(true);
    const get = await gsp('GET', `/ds/data?graph=${encodeURIComponent('http://www.example/person/%31.ttl')}`, undefined, { accept: 'application/n-triples' });
    expect(get.text.trim()).toBe(TTL2);
  });

  it('are not normalised: no trailing slash added, no case folding', async () => {
    expect((await gsp('PUT', `/ds/data?graph=${encodeURIComponent('http://Example.org')}`, TTL)).status).toBe(201);
    expect(await ask(`ASK { GRAPH <http://Example.org> { ${TTL} } }`)).toBe(true);
    expect((await gsp('GET', `/ds/data?graph=${encodeURIComponent('http://example.org/')}`)).status).toBe(404);
  });
});

describe('direct graph identification: /ds/data/<path>', () => {
  it('names the graph whose IRI is the request URL (Host header + path); GET, HEAD, PUT, POST, DELETE', async () => {
    const h = { host: 'www.example' };
    expect((await gsp('PUT', '/ds/data/person/1.ttl', TTL, h)).status).toBe(201);
    const iri = 'http://www.example/ds/data/person/1.ttl';
    expect(await ask(`ASK { GRAPH <${iri}> { ${TTL} } }`)).toBe(true);
    // The same graph, named indirectly.
    const indirect = await gsp('GET', `/ds/data?graph=${encodeURIComponent(iri)}`, undefined, { accept: 'application/n-triples' });
    expect(indirect.text.trim()).toBe(TTL);
    const get = await gsp('GET', '/ds/data/person/1.ttl', undefined, { ...h, accept: 'text/turtle' });
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toBe('text/turtle; charset=utf-8');
    expect(parseQuads(get.text, { format: 'text/turtle' }).quads).toHaveLength(1);
    const head = await gsp('HEAD', '/ds/data/person/1.ttl', undefined, h);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect((await gsp('POST', '/ds/data/person/1.ttl', TTL2, h)).status).toBe(200);
    expect(await ask(`ASK { GRAPH <${iri}> { ${TTL} ${TTL2} } }`)).toBe(true);
    // Another Host is another graph.
    expect((await gsp('GET', '/ds/data/person/1.ttl', undefined, { host: 'other.example' })).status).toBe(404);
    expect((await gsp('DELETE', '/ds/data/person/1.ttl', undefined, h)).status).toBe(204);
    expect((await gsp('GET', '/ds/data/person/1.ttl', undefined, h)).status).toBe(404);
    expect((await gsp('DELETE', '/ds/data/person/1.ttl', undefined, h)).status).toBe(404);
  });

  it('keeps the path as sent (percent-encoding included); the default port is dropped, the host lower-cased', async () => {
    expect((await gsp('PUT', '/ds/data/a%2Fb', TTL, { host: 'WWW.Example:80' })).status).toBe(201);
    expect(await ask(`ASK { GRAPH <http://www.example/ds/data/a%2Fb> { ${TTL} } }`)).toBe(true);
  });

  it('relative IRIs in the body resolve against the graph IRI', async () => {
    expect((await gsp('PUT', '/ds/data/doc', '<> <http://p> <#me> .', { host: 'www.example' })).status).toBe(201);
    expect(await ask('ASK { GRAPH <http://www.example/ds/data/doc> { <http://www.example/ds/data/doc> <http://p> <http://www.example/ds/data/doc#me> } }')).toBe(true);
  });

  it('refuses what is not a plain graph URL: dot segments, no path, ?graph= as well, a Host that is no host', async () => {
    for (const path of ['/ds/data/a/../b', '/ds/data/a/%2E%2e/b', '/ds/data/./a', '/ds/data/', '/ds/data/a?graph=http://x', '/ds/data/a?default', '/ds/data/a|b']) {
      expect((await gsp('PUT', path, TTL)).status, path).toBe(400);
    }
    expect((await gsp('PUT', '/ds/data/a', TTL, { host: 'evil.example/x?' })).status).toBe(400);
    expect(server.store.stats().quads).toBe(0);
  });
});

describe('POST to the graph store creates a graph', () => {
  it('201, Location = the new graph IRI under /ds/data/, which is also its direct URL', async () => {
    const r = await gsp('POST', '/ds/data', TTL);
    expect(r.status).toBe(201);
    const location = r.headers.location as string;
    expect(location).toMatch(new RegExp(`^http://${host.replace(/\./g, '\\.')}/ds/data/[0-9a-f-]{36}$`));
    expect(JSON.parse(r.text)).toMatchObject({ quads: 1, graph: location });
    expect(await ask(`ASK { GRAPH <${location}> { ${TTL} } }`)).toBe(true);
    const direct = await fetch(location, { headers: { accept: 'application/n-triples' } });
    expect(direct.status).toBe(200);
    expect((await direct.text()).trim()).toBe(TTL);
    const indirect = await gsp('GET', `/ds/data?graph=${location}`);
    expect(indirect.status).toBe(200);
    // Every POST makes another graph.
    const second = await gsp('POST', '/ds/data', TTL);
    expect(second.headers.location).not.toBe(location);
  });

  it('a TriG or N-Quads body is still added to the dataset as it is (200)', async () => {
    const r = await gsp('POST', '/ds/data', '<http://s> <http://p> "d" . <http://g/t> { <http://s> <http://p> "in g" . }', { 'content-type': 'application/trig' });
    expect(r.status).toBe(200);
    expect(r.headers.location).toBeUndefined();
    expect(await ask('ASK { <http://s> <http://p> "d" GRAPH <http://g/t> { <http://s> <http://p> "in g" } }')).toBe(true);
  });

  it('a labels graph (either namespace) is refused: 400, nothing stored; labels arrive by /ds/upload only', async () => {
    for (const ns of ['http://ndtp.co.uk/security#', 'http://telicent.io/security#']) {
      const body = `<http://s> <http://p> "d" .\n<${ns}labels> { _:e <${ns}pattern> "<http://s> <http://p> \\"d\\"" ; <${ns}label> "*" . }`;
      const r = await gsp('POST', '/ds/data', body, { 'content-type': 'application/trig' });
      expect(r.status).toBe(400);
      expect(r.text).toContain('labels graphs are read by POST /ds/upload only');
      expect(await ask('ASK { <http://s> <http://p> "d" }')).toBe(false);
    }
  });
});

describe('multipart bodies', () => {
  const boundary = 'a6fe4cd636164618814be9f8d3d1a0de';
  const part = (name: string, type: string, text: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n${text}\r\n`;
  const multipart = (...parts: string[]) => parts.join('') + `--${boundary}--\r\n`;
  const type = { 'content-type': `multipart/form-data; boundary=${boundary}` };

  it('POST with several RDF parts adds them all to the graph', async () => {
    const g = `graph=${encodeURIComponent('http://g/m')}`;
    await gsp('PUT', `/ds/data?${g}`, TTL);
    const body = multipart(part('a.ttl', 'text/turtle; charset=utf-8', TTL2), part('b.nt', 'application/octet-stream', '<http://www.example/person/1> <http://xmlns.com/foaf/0.1/givenName> "Jane" .\n'));
    const r = await gsp('POST', `/ds/data?${g}`, undefined, type);
    expect(r.status).toBe(400); // no body, no parts
    const ok = await rawRequest(base, 'POST', `/ds/data?${g}`, { host, ...type }, body);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text)).toMatchObject({ quads: 2 });
    expect(await ask(`ASK { GRAPH <http://g/m> { ${TTL} ${TTL2} <http://www.example/person/1> <http://xmlns.com/foaf/0.1/givenName> "Jane" } }`)).toBe(true);
  });

  it('a part without a file name counts when it declares an RDF type; a plain form field is no RDF (415)', async () => {
    const field = (name: string, type: string | undefined, text: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n${type === undefined ? '' : `Content-Type: ${type}\r\n`}\r\n${text}\r\n`;
    const g = `/ds/data?graph=${encodeURIComponent('http://g/f')}`;
    const ok = await rawRequest(base, 'POST', g, { host, ...type }, multipart(field('data', 'text/turtle', TTL)));
    expect(ok.status).toBe(201);
    const plain = await rawRequest(base, 'POST', g, { host, ...type }, multipart(field('data', 'text/turtle', TTL2), field('comment', undefined, TTL2)));
    expect(plain.status).toBe(415);
    expect(await ask(`ASK { GRAPH <http://g/f> { ${TTL2} } }`)).toBe(false);
  });

  it('a part that is not RDF: 415, nothing stored', async () => {
    const body = multipart(part('a.ttl', 'text/turtle', TTL2), part('notes.pdf', 'application/pdf', '%PDF-1.4'));
    const r = await rawRequest(base, 'POST', `/ds/data?graph=${encodeURIComponent('http://g/x')}`, { host, ...type }, body);
    expect(r.status).toBe(415);
    expect(server.store.stats().quads).toBe(0);
  });
});
