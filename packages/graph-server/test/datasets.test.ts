/**
 * Several datasets in one server (issue 18): each with its own store, default label and
 * permissions, never seeing each other's data; the admin API (`/$/datasets`, `/$/server`,
 * `/$/stats`) for administrators only; datasets added over the API survive a restart when the
 * server has a `server.dataDir`, and can be removed.
 */
import { mkdtempSync, rmSync, existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { firstSegment } from '../src/server.js';
import { accessStub, CLIENT, ISSUER, jwksServer, makeKey, sign } from './helpers.js';

const DIRECTORY = {
  'alice@test': ['ianode_read', 'team=red'],
  'bob@test': ['ianode_read', 'team=blue'],
  'rita@test': ['red_reader'],
  'admin@test': ['ianode_read', 'ianode_admin', 'team=red', 'team=blue', 'red_reader'],
};

let jwks: Awaited<ReturnType<typeof jwksServer>>;
let access: Awaited<ReturnType<typeof accessStub>>;
let security: Record<string, unknown>;
const tokens: Record<string, string> = {};
let dir: string;

beforeAll(async () => {
  const key = await makeKey('k1');
  jwks = await jwksServer([key]);
  access = await accessStub(DIRECTORY);
  for (const user of Object.keys(DIRECTORY)) tokens[user.split('@')[0]!] = await sign(key, { email: user });
  security = { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] };
  dir = mkdtempSync(path.join(tmpdir(), 'ianode-datasets-'));
});

afterAll(async () => {
  await jwks.close();
  await access.close();
  rmSync(dir, { recursive: true, force: true });
});

function caller(base: string) {
  return (route: string, who: string | undefined, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
    fetch(`${base}${route}`, {
      method: init.method ?? 'GET',
      headers: { ...(who ? { authorization: `Bearer ${tokens[who]}` } : {}), ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
}

const SELECT = 'SELECT ?s ?o WHERE { ?s <http://example.org/p> ?o } ORDER BY ?s ?o';
/** Every graph, the default one included. */
const ALL_GRAPHS = 'SELECT ?s ?o WHERE { { ?s <http://example.org/p> ?o } UNION { GRAPH ?g { ?s <http://example.org/p> ?o } } } ORDER BY ?s ?o';

async function rows(call: ReturnType<typeof caller>, dataset: string, who: string, query = SELECT): Promise<string[]> {
  const r = await call(`/${dataset}/query?query=${encodeURIComponent(query)}`, who, { headers: { accept: 'application/sparql-results+json' } });
  expect(r.status, `${who} on /${dataset}`).toBe(200);
  const body = (await r.json()) as { results: { bindings: { s: { value: string }; o: { value: string } }[] } };
  return body.results.bindings.map((b) => `${b.s.value.replace('http://example.org/', '')} ${b.o.value}`);
}

describe('two datasets in one server', () => {
  let server: GraphServer;
  let call: ReturnType<typeof caller>;

  beforeAll(async () => {
    server = await createGraphServer({
      security,
      datasets: [
        // red: readable by team members, red data by default; blue: its own default label.
        { name: 'red', defaultLabel: 'team=red', permissions: { read: 'ianode_read | red_reader', write: 'ianode_admin' } },
        { name: 'blue', defaultLabel: 'team=blue', permissions: { read: 'ianode_read', write: 'ianode_admin' }, limits: { resultRows: 5 } },
      ],
    }, { logger: false, jwksCooldownMs: 0 });
    call = caller(await server.listen({ port: 0 }));
    for (const [name, value] of [['red', 'r1'], ['blue', 'b1']] as const) {
      const r = await call(`/${name}/upload`, 'admin', { method: 'POST', headers: { 'content-type': 'text/turtle' }, body: `<http://example.org/${name}> <http://example.org/p> "${value}" .` });
      expect(r.status, await r.text()).toBe(200);
    }
    // One triple in each with the label of the other team.
    const r = await call('/red/upload', 'admin', { method: 'POST', headers: { 'content-type': 'text/turtle', 'security-label': 'team=blue' }, body: '<http://example.org/red-blue> <http://example.org/p> "rb" .' });
    expect(r.status).toBe(200);
  });

  afterAll(async () => {
    await server.close();
  });

  it('each dataset answers only its own quads, under its own default label', async () => {
    expect(await rows(call, 'red', 'admin')).toEqual(['red r1', 'red-blue rb']);
    expect(await rows(call, 'blue', 'admin')).toEqual(['blue b1']);
    // The default labels differ: alice (red) sees red's default-labelled quad, not blue's.
    expect(await rows(call, 'red', 'alice')).toEqual(['red r1']);
    expect(await rows(call, 'blue', 'alice')).toEqual([]);
    expect(await rows(call, 'red', 'bob')).toEqual(['red-blue rb']);
    expect(await rows(call, 'blue', 'bob')).toEqual(['blue b1']);
    // Separate stores: no quad of one is in the other.
    expect(server.datasets.get('red')!.store.stats().quads).toBe(2);
    expect(server.datasets.get('blue')!.store.stats().quads).toBe(1);
  });

  it('each dataset judges its own permissions', async () => {
    // rita may read red only (red_reader), not blue (ianode_read).
    expect(await rows(call, 'red', 'rita')).toEqual([]);
    const blue = await call(`/blue/query?query=${encodeURIComponent(SELECT)}`, 'rita');
    expect(blue.status).toBe(403);
    expect(((await blue.json()) as { message: string }).message).toContain('/blue');
    // Writes: admin only in both.
    const w = await call('/blue/update', 'alice', { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: 'INSERT DATA { <http://example.org/x> <http://example.org/p> "x" }' });
    expect(w.status).toBe(403);
  });

  it('a dataset of its own limits', async () => {
    const q = 'SELECT * WHERE { VALUES ?x { 1 2 3 4 5 6 7 } }';
    expect((await call(`/blue/query?query=${encodeURIComponent(q)}`, 'admin')).status).not.toBe(200);
    expect((await call(`/red/query?query=${encodeURIComponent(q)}`, 'admin')).status).toBe(200);
  });

  it('an unknown dataset is 404, a dataset route without a token 401', async () => {
    const none = await call(`/green/query?query=${encodeURIComponent(SELECT)}`, 'admin');
    expect(none.status).toBe(404);
    expect(((await none.json()) as { message: string }).message).toContain('no dataset /green');
    expect((await call('/red/nothing-here', undefined)).status).toBe(401);
    expect((await call('/r%65d/query?query=' + encodeURIComponent(SELECT), undefined)).status).toBe(401);
  });

  it('/$/ready reports every dataset', async () => {
    const r = await call('/$/ready', undefined);
    expect(r.status).toBe(200);
    const body = (await r.json()) as { checks: Record<string, string>; datasets: Record<string, Record<string, string>> };
    expect(body.checks.storage).toBe('open');
    expect(Object.keys(body.datasets).sort()).toEqual(['blue', 'red']);
  });

  it('the admin API answers administrators only', async () => {
    for (const route of ['/$/datasets', '/$/datasets/red', '/$/server', '/$/stats', '/$/stats/red']) {
      expect((await call(route, undefined)).status, route).toBe(401);
      expect((await call(route, 'alice')).status, route).toBe(403);
      expect((await call(route, 'admin')).status, route).toBe(200);
    }
    for (const [method, route] of [['POST', '/$/datasets'], ['DELETE', '/$/datasets/red']] as const) {
      const r = await call(route, 'bob', { method, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? '{"name":"x"}' : undefined });
      expect(r.status, route).toBe(403);
    }
    // Nothing was added or removed by the refused calls.
    expect([...server.datasets.keys()].sort()).toEqual(['blue', 'red']);
  });

  it('/$/datasets and /$/server describe the datasets; /$/stats counts per dataset and endpoint', async () => {
    const list = (await (await call('/$/datasets', 'admin')).json()) as { datasets: { name: string; defaultLabel: string; storage: string; source: string; endpoints: Record<string, string> }[] };
    expect(list.datasets.map((d) => [d.name, d.defaultLabel, d.storage, d.source])).toEqual([['red', 'team=red', 'memory', 'configuration'], ['blue', 'team=blue', 'memory', 'configuration']]);
    expect(list.datasets[0]!.endpoints.query).toBe('/red/query');
    const info = (await (await call('/$/server', 'admin')).json()) as { version: string; datasets: { name: string }[]; mode: string };
    expect(info.datasets.map((d) => d.name)).toEqual(['red', 'blue']);
    expect(info.mode).toBe('secure');
    const before = (await (await call('/$/stats/blue', 'admin')).json()) as { datasets: Record<string, { requests: number; bad: number; endpoints: Record<string, { requests: number }> }> };
    await call(`/blue/query?query=${encodeURIComponent(SELECT)}`, 'bob');
    await call(`/blue/query?query=${encodeURIComponent(SELECT)}`, 'rita');
    const after = (await (await call('/$/stats/blue', 'admin')).json()) as typeof before;
    expect(after.datasets.blue!.requests - before.datasets.blue!.requests).toBe(2);
    expect(after.datasets.blue!.bad - before.datasets.blue!.bad).toBe(1);
    expect(after.datasets.blue!.endpoints.query!.requests - (before.datasets.blue!.endpoints.query?.requests ?? 0)).toBe(2);
  });

  it('view as: an administrator reads exactly what another user sees; nobody else may, and never to write', async () => {
    const as = (who: string) => ({ headers: { 'ianode-view-as': who, accept: 'application/sparql-results+json' } });
    const viewed = async (dataset: string, user: string) => {
      const r = await call(`/${dataset}/query?query=${encodeURIComponent(SELECT)}`, 'admin', as(user));
      expect(r.status, await r.clone().text()).toBe(200);
      const body = (await r.json()) as { results: { bindings: { s: { value: string }; o: { value: string } }[] } };
      return body.results.bindings.map((b) => `${b.s.value.replace('http://example.org/', '')} ${b.o.value}`);
    };
    for (const user of ['alice', 'bob']) {
      for (const dataset of ['red', 'blue']) expect(await viewed(dataset, `${user}@test`), `${user} on ${dataset}`).toEqual(await rows(call, dataset, user));
    }
    // As the user in everything: rita may not read blue, so neither may an administrator viewing as her.
    expect((await call(`/blue/query?query=${encodeURIComponent(SELECT)}`, 'admin', as('rita@test'))).status).toBe(403);
    // Not an administrator of the dataset: refused, whoever is named.
    const refused = await call(`/red/query?query=${encodeURIComponent(SELECT)}`, 'alice', as('admin@test'));
    expect(refused.status).toBe(403);
    expect(await refused.text()).not.toContain('r1');
    // Never a write: refused before the body is read, nothing stored.
    const before = server.datasets.get('red')!.store.stats().quads;
    for (const route of ['/red/update', '/red/query']) {
      const w = await call(route, 'admin', { method: 'POST', headers: { 'ianode-view-as': 'bob@test', 'content-type': 'application/x-www-form-urlencoded' }, body: `update=${encodeURIComponent('INSERT DATA { <http://example.org/x> <http://example.org/p> "x" }')}` });
      expect(w.status, route).toBe(route === '/red/update' ? 400 : 403);
    }
    expect(server.datasets.get('red')!.store.stats().quads).toBe(before);
    // A user the access service does not know: 404, no data.
    expect((await call(`/red/query?query=${encodeURIComponent(SELECT)}`, 'admin', as('nobody@test'))).status).toBe(404);
  });

  it('datasets of the configuration file are not removed over the API', async () => {
    const r = await call('/$/datasets/red', 'admin', { method: 'DELETE' });
    expect(r.status).toBe(409);
    expect(server.datasets.has('red')).toBe(true);
  });
});

describe('datasets added over the API', () => {
  it('are added, answer at once, are remembered across a restart and can be removed', async () => {
    const dataDir = path.join(dir, 'added');
    // One query worker per dataset (the default is one per core each): this test starts three
    // datasets twice, and worker start-up is most of its time on a loaded machine.
    const config = { security, dataset: { name: 'main' }, server: { dataDir }, limits: { queryWorkers: 1 } };
    let server = await createGraphServer(config, { logger: false, jwksCooldownMs: 0 });
    let call = caller(await server.listen({ port: 0 }));
    const add = await call('/$/datasets', 'admin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'extra', defaultLabel: 'team=blue' }) });
    expect(add.status, await add.clone().text()).toBe(201);
    expect(add.headers.get('location')).toBe('/$/datasets/extra');
    expect(((await add.json()) as { storage: string }).storage).toBe('persistent');
    const up = await call('/extra/upload', 'admin', { method: 'POST', headers: { 'content-type': 'text/turtle' }, body: '<http://example.org/e> <http://example.org/p> "e1" .' });
    expect(up.status).toBe(200);
    expect(await rows(call, 'extra', 'bob')).toEqual(['e e1']);
    expect(await rows(call, 'extra', 'alice')).toEqual([]);
    expect(await rows(call, 'main', 'admin')).toEqual([]);
    // A name in use, a bad name, a setting the API does not take: refused, nothing added.
    expect((await call('/$/datasets', 'admin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"extra"}' })).status).toBe(409);
    expect((await call('/$/datasets', 'admin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"a/b"}' })).status).toBe(400);
    const storage = await call('/$/datasets', 'admin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x","storage":"/etc"}' });
    expect(storage.status).toBe(400);
    expect(((await storage.json()) as { message: string }).message).toContain('storage');
    // Fuseki's form: an in-memory dataset.
    const fuseki = await call('/$/datasets', 'admin', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'dbName=%2Fscratch&dbType=mem' });
    expect(fuseki.status, await fuseki.clone().text()).toBe(201);
    expect([...server.datasets.keys()].sort()).toEqual(['extra', 'main', 'scratch']);
    await server.close();

    // Restart: the added datasets come back (the persistent one with its data, the memory one empty).
    server = await createGraphServer(config, { logger: false, jwksCooldownMs: 0 });
    call = caller(await server.listen({ port: 0 }));
    expect([...server.datasets.keys()].sort()).toEqual(['extra', 'main', 'scratch']);
    expect(await rows(call, 'extra', 'bob')).toEqual(['e e1']);
    const removed = await call('/$/datasets/extra', 'admin', { method: 'DELETE' });
    expect(removed.status, await removed.clone().text()).toBe(200);
    expect((await call(`/extra/query?query=${encodeURIComponent(SELECT)}`, 'admin')).status).toBe(404);
    expect(existsSync(path.join(dataDir, 'extra'))).toBe(true);
    // Adding it again over kept data needs "existing": true.
    expect((await call('/$/datasets', 'admin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"extra"}' })).status).toBe(409);
    const again = await call('/$/datasets', 'admin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"extra","existing":true,"defaultLabel":"team=blue"}' });
    expect(again.status).toBe(201);
    expect(await rows(call, 'extra', 'bob')).toEqual(['e e1']);
    await server.close();
    const file = JSON.parse(readFileSync(path.join(dataDir, 'datasets.json'), 'utf8')) as { datasets: { name: string }[] };
    expect(file.datasets.map((d) => d.name).sort()).toEqual(['extra', 'scratch']);
  });

  it('a damaged datasets file stops the start, naming it', async () => {
    const dataDir = path.join(dir, 'damaged');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, 'datasets.json'), '{"format": "ianode datasets 1", "datasets": [');
    await expect(createGraphServer({ security, server: { dataDir } }, { logger: false })).rejects.toThrow(/datasets\.json is damaged/);
  });
});

describe('online backup, and restore into a new dataset', () => {
  it('a backup restores over the API to a dataset with every quad and label: the same views for three users', async () => {
    const backupDir = path.join(dir, 'backups');
    const server = await createGraphServer({ security, dataset: { name: 'src', defaultLabel: 'team=red' }, server: { dataDir: path.join(dir, 'restored') }, backup: { dir: backupDir } }, { logger: false, jwksCooldownMs: 0 });
    const call = caller(await server.listen({ port: 0 }));
    try {
      const data = `PREFIX authz: <http://telicent.io/security#>
<http://example.org/a> <http://example.org/p> "a-default" .
<http://example.org/b> <http://example.org/p> "b-blue" .
GRAPH <http://example.org/g> { <http://example.org/c> <http://example.org/p> "c-both" . }
GRAPH authz:labels {
  [ authz:pattern '<http://example.org/b> <http://example.org/p> "b-blue"' ; authz:label "team=blue" ] .
  [ authz:pattern '<http://example.org/g> <http://example.org/c> <http://example.org/p> "c-both"' ; authz:label "team=red | team=blue" ] .
}`;
      const up = await call('/src/upload', 'admin', { method: 'POST', headers: { 'content-type': 'application/trig' }, body: data });
      expect(up.status, await up.clone().text()).toBe(200);
      const waitTask = async (location: string) => {
        for (;;) {
          const task = (await (await call(location, 'admin')).json()) as { state: string; result?: { file?: string }; error?: unknown };
          if (task.state !== 'running') return task;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      // Not for non-administrators, whatever they ask.
      expect((await call('/$/backup/src', 'alice', { method: 'POST' })).status).toBe(403);
      expect((await call('/$/datasets', 'alice', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x","restore":"src_x.trig.gz"}' })).status).toBe(403);
      const backup = await call('/$/backup/src', 'admin', { method: 'POST' });
      expect(backup.status).toBe(202);
      const done = await waitTask(backup.headers.get('location')!);
      expect(done.state, JSON.stringify(done)).toBe('succeeded');
      const file = done.result!.file!;
      const restore = await call('/$/datasets', 'admin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'copy', restore: file, defaultLabel: 'team=red' }) });
      expect(restore.status, await restore.clone().text()).toBe(202);
      const restored = await waitTask(restore.headers.get('location')!);
      expect(restored.state, JSON.stringify(restored)).toBe('succeeded');
      for (const who of ['alice', 'bob', 'admin']) expect(await rows(call, 'copy', who, ALL_GRAPHS), who).toEqual(await rows(call, 'src', who, ALL_GRAPHS));
      expect(await rows(call, 'copy', 'bob', ALL_GRAPHS)).toEqual(['b b-blue', 'c c-both']);
      expect(await rows(call, 'copy', 'alice', ALL_GRAPHS)).toEqual(['a a-default', 'c c-both']);
      // A file that is not a backup of the folder: refused, nothing added.
      const bad = await call('/$/datasets', 'admin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'nope', restore: '../etc/passwd' }) });
      expect(bad.status).toBe(400);
      expect(server.datasets.has('nope')).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe('configuration of several datasets', () => {
  it('refuses dataset and datasets together, duplicate names and shared folders', async () => {
    const { resolveConfig } = await import('../src/config.js');
    expect(() => resolveConfig({ dataset: { name: 'a' }, datasets: [{ name: 'b' }] })).toThrow(/both dataset and datasets/);
    expect(() => resolveConfig({ datasets: [{ name: 'a' }, { name: 'a' }] })).toThrow(/used twice/);
    expect(() => resolveConfig({ datasets: [{ name: 'a', storage: '/x' }, { name: 'b', storage: '/x' }] })).toThrow(/same storage folder/);
    expect(() => resolveConfig({ datasets: [{ name: '$' }] })).toThrow(/datasets\[0\]\.name/);
    expect(() => resolveConfig({ datasets: [{ name: 'a', limits: { nope: 1 } as never }] })).toThrow(/datasets\[0\]\.limits\.nope/);
    expect(() => resolveConfig({ datasets: [] })).toThrow(/non-empty/);
    const config = resolveConfig({ limits: { resultRows: 10 }, datasets: [{ name: 'a' }, { name: 'b', limits: { resultRows: 3 }, graphql: true }] });
    expect(config.dataset.name).toBe('a');
    expect(config.datasets.map((d) => d.name)).toEqual(['a', 'b']);
  });

  it('firstSegment decodes the dataset name and leaves /$/ to the server', () => {
    expect(firstSegment('/ds/query?x=1')).toBe('ds');
    expect(firstSegment('/d%73/query')).toBe('ds');
    expect(firstSegment('/$/ping')).toBeUndefined();
    expect(firstSegment('/')).toBeUndefined();
    expect(firstSegment('/%E0%A4%A')).toBeUndefined();
  });
});
