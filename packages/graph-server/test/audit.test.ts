/**
 * The audit log (issue 18): one JSON line per write, admin action and refusal, in `audit.file`
 * (0600, rotated by size keeping `audit.keep` files); reads only with `audit.reads`, their text
 * only with `audit.queryText`; never a token.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { AuditLog, resolveAuditConfig } from '../src/audit.js';
import { resolveConfig } from '../src/config.js';
import { accessStub, CLIENT, ISSUER, jwksServer, makeKey, sign } from './helpers.js';

const DIRECTORY = {
  'reader@test': ['ianode_read', 'manager'],
  'writer@test': ['ianode_read', 'ianode_write', 'ianode_admin', 'manager'],
};

let dir: string;
let jwks: Awaited<ReturnType<typeof jwksServer>>;
let access: Awaited<ReturnType<typeof accessStub>>;
const tokens: Record<string, string> = {};
let security: Record<string, unknown>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ianode-audit-'));
  const key = await makeKey('k1');
  jwks = await jwksServer([key]);
  access = await accessStub(DIRECTORY);
  for (const user of Object.keys(DIRECTORY)) tokens[user.split('@')[0]!] = await sign(key, { email: user });
  security = { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] };
});

afterAll(async () => {
  await jwks.close();
  await access.close();
  await rm(dir, { recursive: true, force: true });
});

async function start(file: string, audit: Record<string, unknown> = {}): Promise<{ server: GraphServer; base: string }> {
  const server = await createGraphServer({
    security,
    dataset: { name: 'ds', defaultLabel: '*', permissions: { write: 'ianode_write' } },
    audit: { file, ...audit },
  }, { logger: false, jwksCooldownMs: 0 });
  return { server, base: await server.listen({ port: 0 }) };
}

async function records(file: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(file, 'utf8');
  return text.trim() === '' ? [] : text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

function call(base: string, path: string, who: string | undefined, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
  return fetch(`${base}${path}`, { method: init.method ?? 'GET', headers: { ...(who ? { authorization: `Bearer ${tokens[who]}` } : {}), ...init.headers }, ...(init.body === undefined ? {} : { body: init.body }) });
}

describe('audit log', () => {
  it('records every write (upload, update, patch, GSP), failed writes, refusals and admin actions; no reads by default', async () => {
    const file = join(dir, 'writes.log');
    const { server, base } = await start(file);
    try {
      const ok = async (r: Promise<Response>, status = 200) => {
        const res = await r;
        expect(res.status, await res.text()).toBe(status);
      };
      await ok(call(base, '/ds/upload', 'writer', { method: 'POST', headers: { 'content-type': 'application/n-triples', 'security-label': 'manager' }, body: '<http://e/a> <http://e/p> "1" .\n<http://e/b> <http://e/p> "2" .\n' }));
      await ok(call(base, '/ds/update', 'writer', { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: 'INSERT DATA { <http://e/c> <http://e/p> "3" }' }));
      await ok(call(base, '/ds/patch', 'writer', { method: 'POST', headers: { 'content-type': 'application/rdf-patch' }, body: 'A <http://e/d> <http://e/p> "4" .\n' }));
      await ok(call(base, '/ds/data?graph=http://e/g', 'writer', { method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: '<http://e/x> <http://e/p> "5" .' }), 201);
      // A failed write: a syntax error, nothing stored.
      await ok(call(base, '/ds/update', 'writer', { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: 'INSERT DATA { oops' }), 400);
      // A refused write: the reader may not write.
      await ok(call(base, '/ds/upload', 'reader', { method: 'POST', headers: { 'content-type': 'application/n-triples' }, body: '<http://e/z> <http://e/p> "9" .\n' }), 403);
      // An admin action.
      await ok(call(base, '/ds/labels/stats', 'writer'));
      // Reads: not recorded unless audit.reads.
      await ok(call(base, `/ds/query?query=${encodeURIComponent('SELECT * { ?s ?p ?o }')}`, 'reader'));

      const lines = await records(file);
      expect(lines.map((l) => `${l.kind}:${l.operation}:${l.outcome}`)).toEqual([
        'write:upload:ok', 'write:sparql-update:ok', 'write:patch:ok', 'write:gsp-put:ok', 'write:sparql-update:failed', 'denied:request:refused', 'admin:label-stats:ok',
      ]);
      const [upload, update, patch, gsp, failed, denied] = lines as Record<string, unknown>[];
      for (const l of lines) {
        expect(l).toMatchObject({ dataset: 'ds' });
        expect(typeof l.time).toBe('string');
        expect(typeof l.identity).toBe('string');
        expect(typeof l.requestId).toBe('string');
      }
      expect(upload).toMatchObject({ user: 'writer@test', method: 'POST', route: '/ds/upload', quads: 2, inserted: 2, label: 'manager', labels: [{ label: 'manager', quads: 2 }], txId: 1 });
      expect(update).toMatchObject({ route: '/ds/update', inserted: 1, labels: [{ label: '*', quads: 1 }], txId: 2 });
      expect(patch).toMatchObject({ route: '/ds/patch', inserted: 1, txId: 3 });
      expect(gsp).toMatchObject({ method: 'PUT', route: '/ds/data', graph: 'http://e/g', created: true, inserted: 1, txId: 4 });
      expect(failed).toMatchObject({ code: 'SPARQL_SYNTAX' });
      expect(failed!.txId).toBeUndefined();
      expect(denied).toMatchObject({ user: 'reader@test', status: 403, code: 'FORBIDDEN', route: '/ds/upload' });
      // Never a token; the file is the owner's only.
      const text = await readFile(file, 'utf8');
      for (const token of Object.values(tokens)) expect(text).not.toContain(token);
      expect(text).not.toMatch(/authorization|bearer/i);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    } finally {
      await server.close();
    }
  });

  it('records reads only with audit.reads, and their text only with audit.queryText', async () => {
    const query = 'SELECT * { ?s ?p ?o } LIMIT 1';
    for (const [name, audit, expected] of [
      ['reads.log', { reads: true }, undefined],
      ['text.log', { reads: true, queryText: true }, query],
    ] as const) {
      const file = join(dir, name);
      const { server, base } = await start(file, audit);
      try {
        const r = await call(base, `/ds/query?query=${encodeURIComponent(query)}`, 'reader');
        expect(r.status).toBe(200);
        await r.text();
        const lines = await records(file);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatchObject({ kind: 'read', dataset: 'ds', user: 'reader@test', method: 'GET', route: '/ds/query', status: 200, outcome: 'ok' });
        expect(lines[0]!.query).toBe(expected);
      } finally {
        await server.close();
      }
    }
  });

  it('rotates at the size limit and keeps audit.keep files', async () => {
    const sub = join(dir, 'rotation');
    await rm(sub, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(sub));
    const file = join(sub, 'audit.log');
    const errors: string[] = [];
    const log = new AuditLog(resolveAuditConfig({ file, maxBytes: 1024, keep: 2, fsync: true }), { info: () => undefined, error: (_f, m) => errors.push(m) }, () => 0);
    const record = { kind: 'write' as const, operation: 'upload', pad: 'x'.repeat(200) };
    const size = JSON.stringify({ time: new Date(0).toISOString(), ...record }).length + 1;
    const perFile = Math.floor(1024 / size);
    // Enough for the current file and four full rotated ones: only two are kept.
    const total = perFile * 5 + 1;
    for (let i = 0; i < total; i++) log.record({ ...record, n: i });
    log.close();
    expect(errors).toEqual([]);
    expect((await readdir(sub)).sort()).toEqual(['audit.log', 'audit.log.1', 'audit.log.2']);
    const current = await records(file);
    const first = await records(`${file}.1`);
    const second = await records(`${file}.2`);
    for (const f of [file, `${file}.1`, `${file}.2`]) expect((await stat(f)).size).toBeLessThanOrEqual(1024);
    expect(current.map((r) => r.n)).toEqual([total - 1]);
    expect(first.map((r) => r.n)).toEqual(Array.from({ length: perFile }, (_, k) => total - 1 - perFile + k));
    expect(second.map((r) => r.n)).toEqual(Array.from({ length: perFile }, (_, k) => total - 1 - 2 * perFile + k));
    expect((await stat(`${file}.1`)).mode & 0o777).toBe(0o600);
  });

  it('drops fields named like credentials, and validates audit.* keys', () => {
    const lines: Record<string, unknown>[] = [];
    const log = new AuditLog(resolveAuditConfig({}), { info: (fields) => lines.push(fields), error: () => undefined });
    log.record({ kind: 'admin', operation: 'x', token: 't', authorization: 'Bearer t', clientSecret: 's', grant: ['a'], count: 1 });
    expect(lines[0]).toMatchObject({ audit: true, kind: 'admin', operation: 'x', count: 1 });
    expect(Object.keys(lines[0]!).filter((k) => /token|authorization|secret|grant/i.test(k))).toEqual([]);
    expect(() => resolveConfig({ audit: { maxBytes: 10 } })).toThrow(/audit\.maxBytes/);
    expect(() => resolveConfig({ audit: { fsync: 'yes' as unknown as boolean } })).toThrow(/audit\.fsync/);
    expect(() => resolveConfig({ audit: { rotate: 1 } as never })).toThrow(/unknown key "rotate"/);
    expect(resolveConfig({}).audit).toEqual({ file: undefined, maxBytes: 64 * 1024 * 1024, keep: 10, fsync: false, reads: false, queryText: false });
  });
});
