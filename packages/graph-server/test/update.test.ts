/**
 * SPARQL Update and Graph Store Protocol writes over HTTP (SPEC §3, §4): write permission, labels
 * on inserted quads, and a writer who can neither affect nor detect quads it cannot see, through
 * any update form or GSP write; every write in the audit log.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { authority, clearStore, ISSUER, rawRequest, type Authority } from './helpers.js';

const PUBLIC = `PREFIX : <http://example/>
:pub :p "public" .
GRAPH :g { :pub :p "public" . }`;
const STAFF_DATA = `PREFIX : <http://example/>
:emp :p "staff only" .
GRAPH :g { :emp :p "staff only" . }`;

const DIRECTORY = {
  'admin@test': ['employee', 'ianode_admin', 'ianode_read'],
  'writer@test': ['engineer', 'ianode_admin', 'ianode_read'],
  'reader@test': ['engineer', 'employee', 'ianode_read'],
  'outsider@test': ['engineer'],
};

let idp: Authority;
let server: GraphServer;
let base: string;
const logLines: Record<string, unknown>[] = [];

let tokens: Record<string, string>;
const auth = (user: string) => ({ authorization: `Bearer ${tokens[user]}` });

async function sparqlUpdate(user: string, text: string, headers: Record<string, string> = {}, path = '/ds/update') {
  return fetch(base + path, { method: 'POST', headers: { ...auth(user), 'content-type': 'application/sparql-update', ...headers }, body: text });
}

/** Every (s, p, o, g) the admin (who sees everything here) gets back, as sorted strings. */
async function everything(user = 'admin'): Promise<string[]> {
  const q = 'SELECT ?s ?p ?o ?g { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }';
  const r = await fetch(`${base}/ds/query?query=${encodeURIComponent(q)}`, { headers: auth(user) });
  const body = (await r.json()) as { results: { bindings: Array<Record<string, { value: string }>> } };
  return body.results.bindings.map((b) => `${b.s!.value} ${b.p!.value} ${b.o!.value} ${b.g?.value ?? ''}`.trim()).sort();
}

const STAFF = ['http://example/emp http://example/p staff only', 'http://example/emp http://example/p staff only http://example/g'];

async function reset(): Promise<void> {
  await clearStore(server.store);
  await server.store.load(PUBLIC, { format: 'application/trig', label: '*' });
  await server.store.load(STAFF_DATA, { format: 'application/trig', label: 'employee' });
}

beforeAll(async () => {
  idp = await authority(DIRECTORY);
  tokens = idp.tokens;
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  server = await createGraphServer(
    { security: idp.security, dataset: { name: 'ds', defaultLabel: 'employee', permissions: { read: 'ianode_read | ianode_admin', write: 'ianode_admin' } } },
    { logger: { level: 'info', stream } as never, jwksCooldownMs: 0 },
  );
  base = await server.listen({ port: 0 });
});

afterAll(async () => {
  await server.close();
  await idp.close();
});

describe('SPARQL Update endpoint', () => {
  it('needs the write permission (403), answers counts, takes form update= on /ds', async () => {
    await reset();
    expect((await sparqlUpdate('reader', 'INSERT DATA { <http://e/a> <http://e/b> <http://e/c> }')).status).toBe(403);
    const r = await sparqlUpdate('writer', 'INSERT DATA { <http://e/a> <http://e/b> <http://e/c> }', { 'security-label': '*' });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ operations: 1, inserted: 1, deleted: 0 });
    const form = await fetch(`${base}/ds`, {
      method: 'POST',
      headers: { ...auth('writer'), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'update=' + encodeURIComponent('DELETE DATA { <http://e/a> <http://e/b> <http://e/c> }'),
    });
    expect(form.status).toBe(200);
    expect(await form.json()).toMatchObject({ deleted: 1 });
    expect((await sparqlUpdate('writer', 'INSERT DATA { <http://e/a> }')).status).toBe(400);
    expect((await sparqlUpdate('writer', 'INSERT DATA { <http://e/a> <http://e/b> 1 }', { 'security-label': 'a & (' })).status).toBe(400);
  });

  it('inserted quads take the Security-Label header; the default label the writer cannot see is refused, naming it', async () => {
    await reset();
    const labelled = await sparqlUpdate('writer', 'INSERT DATA { <http://e/x> <http://e/p> "labelled" }', { 'security-label': 'engineer' });
    expect(labelled.status).toBe(200);
    expect(await labelled.json()).toMatchObject({ inserted: 1, labels: [{ label: 'engineer', quads: 1 }] });
    const unlabelled = await sparqlUpdate('writer', 'INSERT DATA { <http://e/x> <http://e/p> "default" }');
    expect(unlabelled.status).toBe(400);
    const error = (await unlabelled.json()) as { code: string; message: string };
    expect(error.code).toBe('LABEL_NOT_VISIBLE_TO_WRITER');
    expect(error.message).toMatch(/"employee" \(the dataset's default label/);
    expect(error.message).toMatch(/Security-Label header/);
    expect(server.store.labelOf({ s: '<http://e/x', p: '<http://e/p', o: '"labelled"', g: '' })).toBe('engineer');
    expect(server.store.labelOf({ s: '<http://e/x', p: '<http://e/p', o: '"default"', g: '' })).toBeUndefined();
    // The admin holds `employee`: the default label is one it can read, so it may write unlabelled.
    const byAdmin = await sparqlUpdate('admin', 'INSERT DATA { <http://e/x> <http://e/p> "default" }');
    expect(byAdmin.status).toBe(200);
    expect(await byAdmin.json()).toMatchObject({ inserted: 1, labels: [{ label: 'employee', quads: 1 }] });
    const seen = await everything('writer');
    expect(seen).toContain('http://e/x http://e/p labelled');
    expect(seen).not.toContain('http://e/x http://e/p default');
  });

  const forms: [string, string][] = [
    ['DELETE DATA', 'DELETE DATA { <http://example/emp> <http://example/p> "staff only" . GRAPH <http://example/g> { <http://example/emp> <http://example/p> "staff only" } }'],
    ['DELETE WHERE', 'DELETE WHERE { ?s ?p ?o }'],
    ['DELETE/INSERT WHERE', 'DELETE { GRAPH ?g { ?s ?p ?o } } INSERT { ?s <http://e/was> ?o } WHERE { GRAPH ?g { ?s ?p ?o } }'],
    ['CLEAR ALL', 'CLEAR ALL'],
    ['DROP GRAPH', 'DROP GRAPH <http://example/g>'],
    ['COPY', 'COPY <http://example/g> TO <http://example/copy>'],
    ['MOVE', 'MOVE <http://example/g> TO DEFAULT'],
    ['ADD', 'ADD DEFAULT TO <http://example/g2>'],
    ['EXISTS probe', 'INSERT { <http://e/probe> <http://e/found> true } WHERE { FILTER EXISTS { <http://example/emp> ?p ?o } }'],
    ['re-INSERT of an invisible quad', 'INSERT DATA { <http://example/emp> <http://example/p> "staff only" }'],
  ];
  for (const [name, text] of forms) {
    it(`${name}: the writer cannot touch or detect the employee-only quads`, async () => {
      await reset();
      const r = await sparqlUpdate('writer', text, { 'security-label': '*' });
      expect(r.status).toBe(200);
      const answer = await r.json() as Record<string, unknown>;
      const all = await everything();
      expect(all.filter((l) => l.includes('staff only'))).toEqual(STAFF); // untouched, not copied
      expect(all.some((l) => l.includes('http://e/found'))).toBe(false);
      expect(server.store.labelOf({ s: '<http://example/emp', p: '<http://example/p', o: '"staff only"', g: '' })).toBe('employee');
      // The same request where the invisible quads never existed gets the same answer.
      await server.store.transaction((tx) => {
        for (const g of ['', '<http://example/g']) tx.delete({ s: '<http://example/emp', p: '<http://example/p', o: '"staff only"', g });
      });
      const after = await everything();
      await reset();
      await server.store.transaction((tx) => {
        for (const g of ['', '<http://example/g']) tx.delete({ s: '<http://example/emp', p: '<http://example/p', o: '"staff only"', g });
      });
      const clean = await sparqlUpdate('writer', text, { 'security-label': '*' });
      const cleanAnswer = await clean.json() as Record<string, unknown>;
      expect({ ...answer, txId: 0 }).toEqual({ ...cleanAnswer, txId: 0 });
      // (An insert of a quad that exists invisibly leaves it alone, so there the stores differ.)
      if (!name.startsWith('re-INSERT')) expect(await everything()).toEqual(after);
    });
  }

  it('several operations in one request are one transaction: a failure stores nothing', async () => {
    await reset();
    const before = await everything();
    const r = await sparqlUpdate('writer', 'INSERT DATA { <http://e/n> <http://e/p> 1 } ; CLEAR ALL ; LOAD <http://remote.example/data.ttl>');
    expect(r.status).toBe(501);
    expect(((await r.json()) as { message: string }).message).toMatch(/LOAD/);
    expect(await everything()).toEqual(before);
  });

  it('every write is in the audit log', async () => {
    logLines.length = 0;
    await sparqlUpdate('writer', 'INSERT DATA { <http://e/audit> <http://e/p> 1 }', { 'security-label': 'engineer' });
    const line = logLines.find((l) => l.audit === true);
    // Who wrote is the token's identity (iss, sub); the display name is there for people.
    expect(line).toMatchObject({ audit: true, user: 'writer@test', identity: JSON.stringify([ISSUER, 'writer@test']), operation: 'sparql-update', outcome: 'ok', inserted: 1 });
  });
});

describe('Graph Store Protocol writes', () => {
  const gsp = (user: string, method: string, query: string, body?: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/ds/data?${query}`, { method, headers: { ...auth(user), ...(body === undefined ? {} : { 'content-type': 'text/turtle' }), ...headers }, ...(body === undefined ? {} : { body }) });

  it('PUT replaces only visible quads; POST adds; DELETE removes visible quads; reads see them', async () => {
    await reset();
    expect((await gsp('reader', 'PUT', 'graph=http://example/g', '<http://e/a> <http://e/b> <http://e/c> .')).status).toBe(403);
    const put = await gsp('writer', 'PUT', 'graph=http://example/g', '<http://e/a> <http://e/b> <http://e/c> .', { 'security-label': '*' });
    expect(put.status).toBe(200);
    let all = await everything();
    expect(all).toContain('http://e/a http://e/b http://e/c http://example/g');
    expect(all).not.toContain('http://example/pub http://example/p public http://example/g');
    expect(all.filter((l) => l.includes('staff only'))).toEqual(STAFF);
    const post = await gsp('writer', 'POST', 'default', '<http://e/d> <http://e/b> <http://e/c> .', { 'security-label': '*' });
    expect(post.status).toBe(200);
    expect(await everything()).toContain('http://e/d http://e/b http://e/c');
    const del = await gsp('writer', 'DELETE', 'graph=http://example/g');
    expect(del.status).toBe(204);
    all = await everything();
    expect(all.filter((l) => l.endsWith('http://example/g'))).toEqual([STAFF[1]]);
    // The graph now holds only quads the writer cannot see: it does not exist for them.
    expect((await gsp('writer', 'DELETE', 'graph=http://example/g')).status).toBe(404);
    expect((await gsp('writer', 'DELETE', 'graph=http://example/never')).status).toBe(404);
    expect((await gsp('writer', 'PUT', '', '<http://e/a> <http://e/b> <http://e/c> .')).status).toBe(400);
    expect((await gsp('writer', 'PUT', 'default', '<http://e/a> <http://e/b> .')).status).toBe(400);
    expect(logLines.some((l) => l.audit === true && l.operation === 'gsp-delete')).toBe(true);
  });
});

describe('secure mode: direct identification, POST creation, HEAD, update dataset, service description', () => {
  /** A graph only employees see, named as a direct URL on host hr.example. */
  const HR = 'http://hr.example/ds/data/people';
  const HR_TRIPLE = '<http://example/emp> <http://example/salary> "100" .';
  const hr = { host: 'hr.example' };
  const as = (user: string) => ({ ...hr, authorization: `Bearer ${tokens[user]}` });
  const turtle = { 'content-type': 'text/turtle' };

  async function resetWithHr(): Promise<void> {
    await reset();
    await server.store.load(`<${HR}> { ${HR_TRIPLE} }`, { format: 'application/trig', label: 'employee' });
  }
  const hrQuadLabel = () => server.store.labelOf({ s: '<http://example/emp', p: '<http://example/salary', o: '"100"', g: '<' + HR });

  it('without a token every new route answers 401 and shows nothing', async () => {
    await resetWithHr();
    const requests: Array<[string, string, Record<string, string>, string?]> = [
      ['GET', '/ds/data/people', hr],
      ['HEAD', '/ds/data/people', hr],
      ['PUT', '/ds/data/people', { ...hr, ...turtle }, '<http://e/a> <http://e/b> <http://e/c> .'],
      ['POST', '/ds/data/people', { ...hr, ...turtle }, '<http://e/a> <http://e/b> <http://e/c> .'],
      ['DELETE', '/ds/data/people', hr],
      ['POST', '/ds/data', { ...hr, ...turtle }, '<http://e/a> <http://e/b> <http://e/c> .'],
      ['HEAD', `/ds/data?graph=${encodeURIComponent(HR)}`, hr],
      ['GET', '/ds', hr],
      ['GET', '/ds/update', hr],
      ['GET', '/ds/query', hr],
      // The router decodes the path; the auth check must not be fooled by the raw URL.
      ['GET', `/%64s/query?query=${encodeURIComponent('SELECT * { GRAPH ?g { ?s ?p ?o } }')}`, hr],
      ['GET', '/%64s/data/people', hr],
    ];
    for (const [method, path, headers, body] of requests) {
      const r = await rawRequest(base, method, path, headers, body);
      expect(r.status, `${method} ${path}`).toBe(401);
      expect(r.headers['www-authenticate'], `${method} ${path}`).toBe('Bearer realm="ianode"');
      expect(r.text).not.toContain('100');
      expect(r.text).not.toContain('staff only');
    }
    expect(hrQuadLabel()).toBe('employee');
    expect(await everything()).toHaveLength(STAFF.length + 3);
  });

  it('a Host header naming a graph reaches only what the caller may see', async () => {
    await resetWithHr();
    // The writer (not an employee) cannot see the graph: it does not exist for them, by any method.
    expect((await rawRequest(base, 'GET', '/ds/data/people', as('writer'))).status).toBe(404);
    expect((await rawRequest(base, 'HEAD', '/ds/data/people', as('writer'))).status).toBe(404);
    expect((await rawRequest(base, 'GET', `/ds/data?graph=${encodeURIComponent(HR)}`, as('writer'))).status).toBe(404);
    expect((await rawRequest(base, 'DELETE', '/ds/data/people', as('writer'))).status).toBe(404);
    expect(hrQuadLabel()).toBe('employee');
    // PUT answers as for a new graph, and leaves the invisible quad and its label alone.
    const put = await rawRequest(base, 'PUT', '/ds/data/people', { ...as('writer'), ...turtle, 'security-label': '*' }, '<http://e/w> <http://e/p> "mine" .');
    expect(put.status).toBe(201);
    expect(hrQuadLabel()).toBe('employee');
    const seen = await rawRequest(base, 'GET', '/ds/data/people', { ...as('writer'), accept: 'application/n-triples' });
    expect(seen.status).toBe(200);
    expect(seen.text.trim()).toBe('<http://e/w> <http://e/p> "mine" .');
    const admin = await rawRequest(base, 'GET', '/ds/data/people', { ...as('admin'), accept: 'application/n-triples' });
    expect(admin.text).toContain('"100"');
    expect(admin.text).toContain('"mine"');
    // The employee sees the graph through the same URL; HEAD says so without a body.
    const head = await rawRequest(base, 'HEAD', '/ds/data/people', as('reader'));
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('writes through direct URLs and POST creation need the write permission (403, nothing stored)', async () => {
    await resetWithHr();
    const before = await everything();
    for (const [method, path] of [['PUT', '/ds/data/new'], ['POST', '/ds/data/new'], ['POST', '/ds/data'], ['DELETE', '/ds/data/people']] as const) {
      const r = await rawRequest(base, method, path, { ...as('reader'), ...turtle }, method === 'DELETE' ? undefined : '<http://e/a> <http://e/b> <http://e/c> .');
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(JSON.parse(r.text).message).toContain('write');
    }
    expect(await everything()).toEqual(before);
  });

  it('POST creation takes the Security-Label, is audited, and its Location obeys the label', async () => {
    await resetWithHr();
    logLines.length = 0;
    const r = await rawRequest(base, 'POST', '/ds/data', { ...as('admin'), ...turtle, 'security-label': 'employee' }, '<http://e/new> <http://e/p> "created" .');
    expect(r.status).toBe(201);
    const location = r.headers.location as string;
    expect(location).toMatch(/^http:\/\/hr\.example\/ds\/data\/[0-9a-f-]{36}$/);
    expect(server.store.labelOf({ s: '<http://e/new', p: '<http://e/p', o: '"created"', g: '<' + location })).toBe('employee');
    expect(logLines.find((l) => l.audit === true && l.operation === 'gsp-post')).toMatchObject({ outcome: 'ok', user: 'admin@test', graph: location, created: true, label: 'employee' });
    const path = new URL(location).pathname;
    expect((await rawRequest(base, 'GET', path, as('writer'))).status).toBe(404);
    const reader = await rawRequest(base, 'GET', path, { ...as('reader'), accept: 'application/n-triples' });
    expect(reader.status).toBe(200);
    expect(reader.text).toContain('"created"');
  });

  it('using-graph-uri cannot widen what an update reads', async () => {
    await reset();
    const r = await sparqlUpdate('writer', 'INSERT { GRAPH <http://e/copy> { ?s ?p ?o } } WHERE { ?s ?p ?o }', { 'security-label': '*' }, `/ds/update?using-graph-uri=${encodeURIComponent('http://example/g')}`);
    expect(r.status).toBe(200);
    const copied = (await everything()).filter((l) => l.endsWith('http://e/copy'));
    expect(copied).toEqual(['http://example/pub http://example/p public http://e/copy']);
  });

  it('the service description needs a token and the read permission, and shows no data', async () => {
    await resetWithHr();
    const outsider = await rawRequest(base, 'GET', '/ds', as('outsider'));
    expect(outsider.status).toBe(403);
    const r = await rawRequest(base, 'GET', '/ds', as('reader'));
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/turtle; charset=utf-8');
    expect(r.text).toContain('<http://hr.example/ds>');
    for (const secret of ['staff only', '"100"', 'http://example/', HR]) expect(r.text).not.toContain(secret);
  });
});
