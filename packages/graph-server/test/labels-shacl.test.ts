/**
 * `GET /{ds}/labels` (admin permission; the labels of the caller's view in RDF-ABAC's labels-graph
 * shape) and `POST /{ds}/shacl` (read permission; SHACL validation over the caller's view), issue
 * 17 item 8. The SHACL data and shapes extend those of RDF-ABAC's TestShaclABAC (whose own
 * cases are in conformance/rdf-abac/shacl-abac.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseQuads } from '@ianode/rdf';
import { createGraphServer } from '../src/index.js';
import { useSecureServer } from './helpers.js';
import { PERSON_SHAPES } from './conformance/rdf-abac/support.js';

const DIRECTORY = {
  'u1@test': ['ianode_read', 'manager'],
  'u2@test': ['ianode_read', 'engineer'],
  'admin@test': ['ianode_read', 'ianode_admin', 'manager'],
  'admin2@test': ['ianode_read', 'ianode_admin'],
  'loader@test': ['ianode_read', 'ianode_admin', 'manager', 'engineer'],
};

// TestShaclABAC.SHACL_TEST_DATA, and a third labelled triple in a named graph.
const DATA = `PREFIX authz: <http://telicent.io/security#>
PREFIX ex:    <http://example.org/ns#>
PREFIX foaf:  <http://xmlns.com/foaf/0.1/>
ex:Alice a foaf:Person ; foaf:givenName "Alice" ; foaf:knows ex:Bob .
ex:Bob a foaf:Person ; foaf:givenName "Bob" ; foaf:knows ex:Alice .
GRAPH ex:g { ex:Carol a foaf:Person ; foaf:givenName 42 . }
GRAPH authz:labels {
  [ authz:pattern '<http://example.org/ns#Alice> <http://xmlns.com/foaf/0.1/knows> <http://example.org/ns#Bob>' ; authz:label "manager" ] .
  [ authz:pattern '<http://example.org/ns#Bob> <http://xmlns.com/foaf/0.1/knows> <http://example.org/ns#Alice>' ; authz:label "manager" ] .
  [ authz:pattern 'ex:g ex:Carol foaf:givenName 42' ; authz:label "engineer" ] .
}
`;

// TestShaclABAC.PERSON_SHAPE_BAD / PERSON_SHAPE_GOOD.
const { BAD, GOOD } = PERSON_SHAPES;
const SH = 'http://www.w3.org/ns/shacl#';

// No test writes to this server's dataset (the dump test loads a server of its own).
const fx = useSecureServer(DIRECTORY, { data: DATA });

function get(path: string, who: string | undefined, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<Response> {
  return fetch(`${fx.base}${path}`, { method, headers: { ...(who ? { authorization: `Bearer ${fx.tokens[who]}` } : {}), ...headers }, ...(body === undefined ? {} : { body }) });
}

/** pattern -> label of a labels graph in Turtle. */
function labelsOf(turtle: string): Map<string, string> {
  const { quads } = parseQuads(turtle, { format: 'text/turtle' });
  const out = new Map<string, string>();
  for (const q of quads.filter((x) => x.predicate.value === 'http://telicent.io/security#pattern')) {
    const label = quads.find((x) => x.subject.equals(q.subject) && x.predicate.value === 'http://telicent.io/security#label');
    out.set(q.object.value, label!.object.value);
  }
  return out;
}

describe('GET /ds/labels', () => {
  it('needs the admin permission: a reader gets 403, no token 401', async () => {
    expect((await get('/ds/labels', 'u1')).status).toBe(403);
    expect((await get('/ds/labels', undefined)).status).toBe(401);
  });

  it("answers the labels of the administrator's view in the reference's shape (Turtle by default), GET and POST", async () => {
    for (const method of ['GET', 'POST']) {
      const r = await get('/ds/labels', 'loader', {}, method);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/turtle/);
      expect(labelsOf(await r.text())).toEqual(new Map([
        ['<http://example.org/ns#Alice> <http://xmlns.com/foaf/0.1/knows> <http://example.org/ns#Bob>', 'manager'],
        ['<http://example.org/ns#Bob> <http://xmlns.com/foaf/0.1/knows> <http://example.org/ns#Alice>', 'manager'],
        ['<http://example.org/ns#g> <http://example.org/ns#Carol> <http://xmlns.com/foaf/0.1/givenName> "42"^^<http://www.w3.org/2001/XMLSchema#integer>', 'engineer'],
      ]));
    }
  });

  it('leaves out what the administrator cannot see (kept difference: the reference dumps every label)', async () => {
    const withManager = labelsOf(await (await get('/ds/labels', 'admin')).text());
    expect([...withManager.values()]).toEqual(['manager', 'manager']);
    const without = await (await get('/ds/labels', 'admin2')).text();
    expect(labelsOf(without).size).toBe(0);
    expect(without).not.toContain('Carol');
    expect(without).not.toContain('knows');
  });

  it('negotiates the format (Accept, format=) and answers 406 for a non-RDF type', async () => {
    const nt = await get('/ds/labels', 'loader', { accept: 'application/n-triples' });
    expect(nt.headers.get('content-type')).toMatch(/^application\/n-triples/);
    expect((await nt.text()).trim().split('\n')).toHaveLength(6);
    const jsonld = await get('/ds/labels?format=json-ld', 'loader');
    expect(jsonld.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expect((await get('/ds/labels', 'loader', { accept: 'text/csv' })).status).toBe(406);
  });

  it('a dump uploaded into a fresh dataset labels the same quads the same way', async () => {
    const dump = await (await get('/ds/labels', 'loader', { accept: 'application/n-triples' })).text();
    const security = fx.server.config.security;
    const other = await createGraphServer({ security, dataset: { name: 'ds', defaultLabel: '*' } }, { logger: false, jwksCooldownMs: 0 });
    try {
      const otherBase = await other.listen({ port: 0 });
      const data = await (await get('/ds/data', 'loader', { accept: 'application/trig' })).text();
      const trig = `${data}\nGRAPH <http://telicent.io/security#labels> {\n${dump}\n}\n`;
      const up = await fetch(`${otherBase}/ds/upload`, { method: 'POST', headers: { authorization: `Bearer ${fx.tokens.loader}`, 'content-type': 'application/trig' }, body: trig });
      expect(up.status, await up.text()).toBe(200);
      const again = await fetch(`${otherBase}/ds/labels`, { headers: { authorization: `Bearer ${fx.tokens.loader}` } });
      expect(labelsOf(await again.text())).toEqual(labelsOf(await (await get('/ds/labels', 'loader')).text()));
    } finally {
      await other.close();
    }
  });
});

describe('POST /ds/shacl', () => {
  const shacl = (who: string | undefined, shapes: string, query = '?default', headers: Record<string, string> = {}) =>
    get(`/ds/shacl${query}`, who, { 'content-type': 'text/turtle', ...headers }, 'POST', shapes);
  const conforms = async (r: Response): Promise<boolean> => {
    expect(r.status).toBe(200);
    const { quads } = parseQuads(await r.text(), { format: 'text/turtle' });
    const c = quads.filter((q) => q.predicate.value === `${SH}conforms`);
    expect(c).toHaveLength(1);
    return c[0]!.object.value === 'true';
  };

  // The four cases of RDF-ABAC's TestShaclABAC: conformance/rdf-abac/shacl-abac.test.ts.
  it('the manager sees a violation of the bad shape, none of the good one', async () => {
    expect(await conforms(await shacl('u1', BAD))).toBe(false);
    expect(await conforms(await shacl('u1', GOOD))).toBe(true);
  });

  it('the engineer validating the bad shape sees no violation: the report is over their view only', async () => {
    const r = await shacl('u2', BAD);
    const text = await r.clone().text();
    expect(await conforms(r)).toBe(true);
    expect(text).not.toContain('knows');
  });

  it('?graph=<iri> and ?graph=union validate that graph; an unseen graph is 404', async () => {
    // ex:Carol's givenName 42 is not an xsd:string: visible to the engineer only.
    expect(await conforms(await shacl('u2', GOOD, '?graph=http://example.org/ns%23g'))).toBe(false);
    // The manager sees Carol's type (default label) but not her labelled givenName.
    expect(await conforms(await shacl('u1', GOOD, '?graph=http://example.org/ns%23g'))).toBe(true);
    expect((await shacl('u1', GOOD, '?graph=http://example.org/ns%23none')).status).toBe(404);
    expect(await conforms(await shacl('u2', GOOD, '?graph=union'))).toBe(false);
    expect(await conforms(await shacl('u1', GOOD, '?graph=union'))).toBe(true);
    expect(await conforms(await shacl('u1', BAD, ''))).toBe(false);
  });

  it('negotiates the report format', async () => {
    const r = await shacl('u1', BAD, '?default', { accept: 'application/n-triples' });
    expect(r.headers.get('content-type')).toMatch(/^application\/n-triples/);
    expect(await r.text()).toContain(`<${SH}conforms> "false"`);
    expect((await shacl('u1', BAD, '?default', { accept: 'text/csv' })).status).toBe(406);
  });

  it('bad shapes: 415 for a non-RDF type, 400 for a syntax error, an empty body or owl:imports', async () => {
    expect((await shacl('u1', GOOD, '?default', { 'content-type': 'application/octet-stream' })).status).toBe(415);
    const syntax = await shacl('u1', 'PREFIX : <http://e/> :a :b', '?default');
    expect(syntax.status).toBe(400);
    expect((await shacl('u1', '', '?default')).status).toBe(400);
    const imports = await shacl('u1', `<http://e/s> <http://www.w3.org/2002/07/owl#imports> <http://127.0.0.1:1/shapes> .\n${GOOD}`);
    expect(imports.status).toBe(400);
    expect(await imports.text()).toContain('owl:imports');
    expect((await shacl('u1', GOOD, '?default&graph=union')).status).toBe(400);
  });

  it('needs the read permission', async () => {
    const r = await get('/ds/shacl', 'u1', { 'content-type': 'text/turtle' }, 'POST', GOOD);
    expect(r.status).toBe(200);
  });
});
