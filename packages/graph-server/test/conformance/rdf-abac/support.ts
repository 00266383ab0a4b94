/**
 * What the RDF-ABAC conformance tests share: a JWKS server and an access service on loopback
 * answering the reference tests' attribute stores (users, attributes, hierarchies), tokens for
 * their users, and a graph server started with a reference configuration's dataset settings.
 * Every user also holds `ianode_read` and `ianode_admin` (the reference's test servers let any
 * authenticated user query and upload).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import type { AddressInfo } from 'node:net';
import { createGraphServer, type GraphServer, type GraphServerConfigInput } from '../../../src/index.js';
import { CLIENT, ISSUER, jwksServer, makeKey, sign, type Key } from '../../helpers.js';

export interface AttributeStore {
  users: Record<string, string[]>;
  /** name -> tiers, least privileged first (RDF-ABAC's authz:attributeValues order). */
  hierarchies?: Record<string, string[]>;
}

export interface Reference {
  tokens: Record<string, string>;
  /** A graph server with these dataset settings. Writes of labels the writer cannot read are
   * allowed (`writes.allowUnreadableLabels`), as the reference's upload has no such check; pass
   * `strictWrites` for ianode's default. */
  start(dataset: GraphServerConfigInput['dataset'], options?: { strictWrites?: boolean }): Promise<{ server: GraphServer; base: string }>;
  close(): Promise<void>;
}

async function accessServer(store: AttributeStore): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const user = /^\/users\/lookup\/(.+)$/.exec(url);
    const hierarchy = /^\/hierarchies\/lookup\/(.+)$/.exec(url);
    let status = 404;
    let body: unknown = { code: 'NOT_FOUND' };
    if (user && req.headers.authorization === undefined) {
      status = 401;
      body = { code: 'UNAUTHENTICATED' };
    } else if (user) {
      const name = decodeURIComponent(user[1]!);
      const attributes = store.users[name];
      if (attributes !== undefined) {
        status = 200;
        body = { id: name, attributes: [...attributes, 'ianode_read', 'ianode_admin'] };
      }
    } else if (hierarchy) {
      const name = decodeURIComponent(hierarchy[1]!);
      const tiers = store.hierarchies?.[name];
      if (tiers !== undefined || name === 'clearance') {
        status = 200;
        body = { name, tiers: tiers ?? [] };
      }
    }
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A reference attribute store served, tokens for its users (and for `anon`, whom it does not know). */
export async function reference(store: AttributeStore): Promise<Reference> {
  const key: Key = await makeKey('k1');
  const jwks = await jwksServer([key]);
  const access = await accessServer(store);
  const tokens: Record<string, string> = {};
  for (const user of [...Object.keys(store.users), 'anon']) tokens[user] = await sign(key, { email: user, sub: user });
  const servers: GraphServer[] = [];
  return {
    tokens,
    async start(dataset, options = {}) {
      const server = await createGraphServer(
        {
          security: { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] },
          dataset: { name: 'ds', ...dataset },
          writes: { allowUnreadableLabels: options.strictWrites !== true },
        },
        { logger: false, jwksCooldownMs: 0 },
      );
      servers.push(server);
      return { server, base: await server.listen({ port: 0 }) };
    },
    async close() {
      for (const server of servers) await server.close();
      await jwks.close();
      await new Promise<void>((resolve) => access.server.close(() => resolve()));
    },
  };
}

/** `reference(store)` for the tests of one describe block: served before them, closed after them
 * (the returned object is filled in once it is served: read it inside tests and hooks). */
export function useReference(store: AttributeStore): Reference {
  const ref = {} as Reference;
  beforeAll(async () => {
    Object.assign(ref, await reference(store));
  });
  afterAll(async () => {
    await ref.close?.();
  });
  return ref;
}

export async function upload(base: string, token: string, contentType: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const r = await fetch(`${base}/ds/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType, ...headers }, body });
  return { status: r.status, text: await r.text() };
}

/**
 * TriG in the shape of the reference's test files: `triples` in the default graph (prefix `:` is
 * http://example/) and a labels graph with one `[ authz:pattern … ; authz:label … ]` per entry.
 */
export function labelledTrig(triples: string[], labels: [pattern: string, label: string][]): string {
  return [
    'PREFIX : <http://example/>',
    ...triples.map((t) => `${t} .`),
    'PREFIX authz: <http://telicent.io/security#>',
    'GRAPH authz:labels {',
    ...labels.map(([pattern, label]) => `    [ authz:pattern '${pattern}' ; authz:label "${label}" ] .`),
    '}',
    '',
  ].join('\n');
}

/** A graph server of these dataset settings (`ref.start`) with `trig` uploaded by `uploader`: its base URL. */
export async function loaded(ref: Reference, dataset: GraphServerConfigInput['dataset'], trig: string, uploader = 'u1'): Promise<string> {
  const { base } = await ref.start(dataset);
  ok(await upload(base, ref.tokens[uploader]!, 'application/trig', trig));
  return base;
}

/** `count` (or `gspCount`) for each of `users` in turn. */
export async function counts(
  ref: Reference,
  base: string,
  users: string[],
  how: (base: string, token: string) => Promise<number | { status: number }> = count,
): Promise<(number | { status: number })[]> {
  const out: (number | { status: number })[] = [];
  for (const user of users) out.push(await how(base, ref.tokens[user]!));
  return out;
}

/** Fails with the answer's text unless the upload was accepted. */
export function ok(answer: { status: number; text: string }): void {
  if (answer.status !== 200) throw new Error(`upload refused: ${answer.status} ${answer.text}`);
}

/** Rows of a SELECT (default `SELECT * { ?s ?p ?o }`, the reference's count query), or the status when not 200. */
export async function count(base: string, token: string, query = 'SELECT * { ?s ?p ?o }'): Promise<number | { status: number }> {
  const r = await fetch(`${base}/ds/query?query=${encodeURIComponent(query)}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/sparql-results+json' } });
  if (r.status !== 200) {
    await r.arrayBuffer();
    return { status: r.status };
  }
  return ((await r.json()) as { results: { bindings: unknown[] } }).results.bindings.length;
}

/** Triples of a Graph Store read of the default graph (`GSP.service(URL).defaultGraph().GET()`). */
export async function gspCount(base: string, token: string): Promise<number> {
  const r = await fetch(`${base}/ds/get?default`, { headers: { authorization: `Bearer ${token}`, accept: 'application/n-triples' } });
  if (r.status === 404) return 0;
  const text = await r.text();
  return text.split('\n').filter((line) => line.trim() !== '').length;
}

/** pattern -> label of the `/labels` dump (N-Triples), read with the N-Triples parser of @ianode/rdf. */
export async function labels(base: string, token: string): Promise<Map<string, string>> {
  const r = await fetch(`${base}/ds/labels`, { headers: { authorization: `Bearer ${token}`, accept: 'application/n-triples' } });
  if (r.status !== 200) throw new Error(`GET /ds/labels: ${r.status} ${await r.text()}`);
  const { parseQuads } = await import('@ianode/rdf');
  const { quads } = parseQuads(await r.text(), { format: 'application/n-triples' });
  const out = new Map<string, string>();
  for (const q of quads.filter((x) => x.predicate.value.endsWith('#pattern'))) {
    out.set(q.object.value, quads.find((x) => x.subject.equals(q.subject) && x.predicate.value.endsWith('#label'))!.object.value);
  }
  return out;
}

// TestShaclABAC.PERSON_SHAPE_BAD / PERSON_SHAPE_GOOD (also used by ../../labels-shacl.test.ts).
const shape = (knowsClass: string) => `PREFIX :     <http://example.org/ns#>
PREFIX foaf: <http://xmlns.com/foaf/0.1/>
PREFIX schema: <http://schema.org/>
PREFIX sh:   <http://www.w3.org/ns/shacl#>
PREFIX xsd:  <http://www.w3.org/2001/XMLSchema#>
:PersonShape
    a              sh:NodeShape ;
    sh:targetClass foaf:Person ;
    sh:property    [ sh:path     foaf:givenName ;
                     sh:datatype xsd:string ; ] ;
    sh:property    [ sh:path  foaf:knows ;
                     sh:class ${knowsClass} ; ] .
`;
/** The reference's bad (foaf:knows must be a schema:Person) and good person shapes. */
export const PERSON_SHAPES = { BAD: shape('schema:Person'), GOOD: shape('foaf:Person') };
