/**
 * The query worker pool (src/pool/): answers computed on worker threads over the shared store
 * state, deadlines enforced by terminating the worker, replacement of dead workers, back-pressure,
 * the queue bound, and the caller's view built on the worker from the grant.
 *
 * The workers run the compiled dist/pool/worker.js (`npm test` builds first).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type QuadStore } from '@ianode/store';
import { parseResults } from '@ianode/sparql';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { ForwardedError } from '../src/errors.js';
import { QueryPool, type JobCaller, type PoolTimers, type SparqlAnswer } from '../src/pool/pool.js';
import { heldTimers } from './helpers.js';
import { CHUNK_WINDOW, type SparqlJob } from '../src/pool/protocol.js';

const JSON_RESULTS = 'application/sparql-results+json';
const OPEN: JobCaller = { open: true, grant: undefined };

function job(query: string, extra: Partial<SparqlJob> = {}): SparqlJob {
  return {
    type: 'sparql', query, accept: JSON_RESULTS, deadline: undefined, rowBudget: undefined, resultRows: 0,
    baseIRI: undefined, defaultGraphs: undefined, namedGraphs: undefined, ...extra,
  };
}

async function text(answer: SparqlAnswer): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of answer.body) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

async function values(pool: QueryPool, query: string, caller: JobCaller = OPEN): Promise<string[]> {
  const parsed = parseResults(await text(await pool.sparql(job(query), caller)), JSON_RESULTS);
  if (parsed.type !== 'bindings') throw new Error('expected bindings');
  return parsed.solutions.map((s) => [...s.values()].map((t) => t.value).join(' ')).sort();
}

const silent = () => undefined;

/** Until `n` workers (spares included) have started. */
async function allReady(pool: QueryPool, n: number): Promise<void> {
  await pool.ready();
  while (pool.stats().ready < n) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('the shared state: workers see every commit, delete, label and compaction', () => {
  // A store and pool per test: the counts below are of what each test loaded itself.
  let store: QuadStore;
  let pool: QueryPool;
  beforeEach(async () => {
    store = await openStore({ compactDeletedFraction: 2 });
    pool = new QueryPool({ size: 2, queueLimit: 10, killGraceMs: 20, state: store, log: silent });
    await pool.ready();
  });
  afterEach(async () => {
    await pool.close();
    await store.close();
  });

  it('follows the writer through commits, deletes, new terms and labels, and compaction', async () => {
    await store.load('<http://x/a> <http://x/p> "1" .\n<http://x/b> <http://x/p> "2" .', { format: 'application/n-triples', label: 'red' });
    const all = 'SELECT ?s ?o WHERE { ?s <http://x/p> ?o }';
    expect(await values(pool, all)).toEqual(['http://x/a 1', 'http://x/b 2']);
    // Many small commits: new runs, merges, dictionary and column growth past their first arrays.
    for (let i = 0; i < 300; i++) {
      await store.load(`<http://x/n${i}> <http://x/p> "v${i} ${'z'.repeat(i)}" .`, { format: 'application/n-triples', label: i % 2 === 0 ? `blue${i}` : 'red' });
    }
    expect(await values(pool, 'SELECT (COUNT(*) AS ?n) WHERE { ?s <http://x/p> ?o }')).toEqual(['302']);
    await store.transaction((tx) => tx.delete({ s: '<http://x/a', p: '<http://x/p', o: '"1"', g: '' }));
    expect(await values(pool, 'SELECT ?o WHERE { <http://x/a> ?p ?o }')).toEqual([]);
    expect(await values(pool, 'SELECT ?o WHERE { <http://x/n299> ?p ?o }')).toEqual([`v299 ${'z'.repeat(299)}`]);
    // A view on the worker judges labels it received from the writer, new ones included.
    const redOnly: JobCaller = { open: false, grant: { attributes: ['red'], hierarchies: [] } };
    expect(await values(pool, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', redOnly)).toEqual(['151']);
    const blue = (i: number): JobCaller => ({ open: false, grant: { attributes: [`blue${i}`], hierarchies: [] } });
    expect(await values(pool, 'SELECT ?s WHERE { ?s ?p ?o }', blue(298))).toEqual(['http://x/n298']);
    await store.compact();
    expect(store.stats().deletedRows).toBe(0);
    expect(await values(pool, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }')).toEqual(['301']);
    expect(await values(pool, 'SELECT ?o WHERE { <http://x/b> ?p ?o }')).toEqual(['2']);
    // Both workers got their state (one job each at least when two run at once).
    const both = await Promise.all([values(pool, all), values(pool, all)]);
    expect(both[0]).toEqual(both[1]);
  });

  it('a new state reaches the idle workers too (none keeps an old state alive until its next job)', async () => {
    await allReady(pool, 3);
    await store.load('<http://x/late> <http://x/p> "late" .', { format: 'application/n-triples', label: 'red' });
    expect(await values(pool, 'SELECT ?o WHERE { <http://x/late> ?p ?o }')).toEqual(['late']);
    const slots = (pool as unknown as { slots: { version: number }[] }).slots;
    expect(slots.map((s) => s.version)).toEqual(slots.map(() => store.stateVersion));
    // And the workers that got it by a state message answer from it.
    const answers = await Promise.all([1, 2].map(() => values(pool, 'SELECT ?o WHERE { <http://x/late> ?p ?o }')));
    expect(answers).toEqual([['late'], ['late']]);
  });

  it('a query in secure mode without a grant is refused, never answered unfiltered', async () => {
    await expect(pool.sparql(job('SELECT * WHERE { ?s ?p ?o }'), { open: false, grant: undefined })).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('a caller with no attributes sees nothing of labelled data', async () => {
    await store.load('<http://x/a> <http://x/p> "1" .', { format: 'application/n-triples', label: 'red' });
    expect(await values(pool, 'SELECT ?s WHERE { ?s ?p ?o }')).toEqual(['http://x/a']);
    const nobody: JobCaller = { open: false, grant: { attributes: [], hierarchies: [] } };
    expect(await values(pool, 'SELECT ?s WHERE { ?s ?p ?o }', nobody)).toEqual([]);
  });

  it('hierarchies in the grant are applied on the worker', async () => {
    await store.load('<http://x/secret> <http://x/q> "s" .', { format: 'application/n-triples', label: 'clearance=S' });
    const q = 'SELECT ?o WHERE { <http://x/secret> <http://x/q> ?o }';
    const tiers: [string, string[]][] = [['clearance', ['O', 'S', 'TS']]];
    expect(await values(pool, q, { open: false, grant: { attributes: ['clearance=TS'], hierarchies: tiers } })).toEqual(['s']);
    expect(await values(pool, q, { open: false, grant: { attributes: ['clearance=O'], hierarchies: tiers } })).toEqual([]);
    // Without the hierarchy, TS is just another value: not S.
    expect(await values(pool, q, { open: false, grant: { attributes: ['clearance=TS'], hierarchies: [] } })).toEqual([]);
  });
});

describe('deadlines, dead workers and limits', () => {
  let store: QuadStore;
  let pool: QueryPool | undefined;
  const logged: string[] = [];
  beforeAll(async () => {
    store = await openStore();
    const lines: string[] = [];
    for (let i = 0; i < 2000; i++) lines.push(`<http://x/r${i}> <http://x/k> "${'a'.repeat(30)}!${i}" .`);
    await store.load(lines.join('\n'), { format: 'application/n-triples' });
  });
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });
  afterAll(() => store.close());

  const make = (size: number, queueLimit = 10, timers?: PoolTimers) => {
    logged.length = 0;
    pool = new QueryPool({ size, queueLimit, killGraceMs: 20, state: store, log: (_level, _fields, message) => logged.push(message), ...(timers ? { timers } : {}) });
    return pool;
  };

  /** A UNION chain of this many branches: parsing and planning it runs for seconds without ever
   * looking at the deadline (the engine checks it during evaluation only). */
  const chain = (n: number) => `SELECT * WHERE { ${'{ ?s <http://x/k> ?o } UNION '.repeat(n)}{ ?s <http://x/k> ?o } }`;

  it('a query that never checks its deadline is stopped by terminating its worker, which is replaced', async () => {
    const p = make(1);
    await allReady(p, 2);
    const error = await p.sparql(job(chain(40_000), { deadline: Date.now() + 300 }), OPEN).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ code: 'QUERY_TIMEOUT' });
    // The evidence is the kill itself, not a time: the query never checks its deadline, so only
    // terminating its worker could end it with QUERY_TIMEOUT.
    expect(p.stats().killed).toBe(1);
    expect(logged).toContain('query worker terminated');
    // The spare took over at once: a ready worker was there while the replacement started.
    expect(p.stats().ready).toBeGreaterThanOrEqual(1);
    // The replacement answers the next query.
    expect(await values(p, 'SELECT ?s WHERE { ?s <http://x/k> ?o FILTER(STRENDS(?o, "!7")) }')).toEqual(['http://x/r7']);
    expect(p.stats().size).toBe(1);
  });

  it('while one worker is held by a long query, another answers a small one', async () => {
    // The long query's deadline passes when the test lets it (held timers), not after 3 s of a
    // clock: however slow the machine, it is still running while the small one is answered.
    const gate = heldTimers();
    const p = make(2, 10, gate.timers);
    await p.ready();
    gate.hold();
    let longDone = false;
    const long = p.sparql(job(chain(40_000), { deadline: Date.now() + 60_000 }), OPEN).then(
      () => undefined,
      (e: unknown) => e,
    ).finally(() => (longDone = true));
    while (p.stats().busy === 0 && !longDone) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await values(p, 'SELECT ?s WHERE { <http://x/r3> ?p ?o BIND(<http://x/r3> AS ?s) }')).toEqual(['http://x/r3']);
    expect(longDone).toBe(false);
    gate.pass();
    expect(await long).toMatchObject({ code: 'QUERY_TIMEOUT' });
  });

  it('a catastrophic-looking regex over every row answers, not stalls (linear-time regex on the worker)', async () => {
    const p = make(1);
    const rows = await values(p, 'SELECT (COUNT(*) AS ?n) WHERE { ?s <http://x/k> ?o FILTER(REGEX(?o, "^(a+)+$")) }');
    expect(rows).toEqual(['0']);
  });

  it('a worker that dies in the middle of a query fails that query with 500 and is replaced', async () => {
    const p = make(1);
    await p.ready();
    const pending = p.sparql(job(chain(40_000)), OPEN).then(() => undefined, (e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Reach in and end the thread from outside, as a crash or an out-of-memory would.
    const slots = (p as unknown as { slots: { job: unknown; worker: { terminate(): Promise<number> } }[] }).slots;
    await slots.find((s) => s.job !== undefined)!.worker.terminate();
    const error = await pending;
    expect(error).toMatchObject({ code: 'INTERNAL' });
    expect(p.stats().crashed).toBe(1);
    expect(await values(p, 'SELECT ?o WHERE { <http://x/r1> ?p ?o }')).toEqual([`${'a'.repeat(30)}!1`]);
  });

  it('past the queue bound a query is refused with 503 and Retry-After', async () => {
    const p = make(1, 1);
    await p.ready();
    const held = p.sparql(job(chain(40_000), { deadline: Date.now() + 2_000 }), OPEN).catch((e: unknown) => e);
    const queued = p.sparql(job('ASK {}', { deadline: Date.now() + 2_000 }), OPEN).catch((e: unknown) => e);
    const refused = await p.sparql(job('ASK {}'), OPEN).then(() => undefined, (e: unknown) => e);
    expect(refused).toMatchObject({ code: 'UNAVAILABLE', headers: { 'retry-after': '1' } });
    await held;
    await queued;
  });

  it('an answer streams with back-pressure: a worker runs at most a few chunks ahead of the reader', async () => {
    const p = make(1);
    const big = 'SELECT ?s ?o WHERE { ?s <http://x/k> ?o ?s2 <http://x/k> ?o2 } LIMIT 200000';
    const answer = await p.sparql(job(big.replace('?o ?s2', '?o . ?s2')), OPEN);
    answer.body.pause();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stream = answer.body as unknown as { pushed: number; credited: number };
    // Nothing read: the worker sent its window and waits (the first read-ahead of the stream is
    // what Node's Readable asks for before anyone reads).
    expect(stream.pushed).toBeLessThanOrEqual(2 * CHUNK_WINDOW);
    const all = await text(answer);
    expect(all.split('"s"').length - 1).toBeGreaterThan(199_000);
  });

  it('an error found before the first chunk is the reply the error table gives', async () => {
    const p = make(1);
    const error = await p.sparql(job('SELECT * WHERE { ?s ?p }'), OPEN).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ForwardedError);
    expect((error as ForwardedError).reply).toMatchObject({ status: 400, body: { code: 'SPARQL_SYNTAX' } });
    const unacceptable = await p.sparql(job('ASK {}', { accept: 'image/png' }), OPEN).then(() => undefined, (e: unknown) => e);
    expect((unacceptable as ForwardedError).reply.status).toBe(406);
  });
});

describe('over HTTP', () => {
  let server: GraphServer;
  let base: string;
  const gate = heldTimers();
  beforeAll(async () => {
    // A deadline no query reaches by itself here: the one cut at its deadline is cut when the test
    // lets its deadline pass (`gate`), not when a clock says so.
    server = await createGraphServer({ limits: { queryTimeoutMs: 60_000, queryWorkers: 2 } }, { logger: false, queryTimers: gate.timers });
    const lines: string[] = [];
    for (let i = 0; i < 500; i++) lines.push(`<http://x/r${i}> <http://x/k> ${i} .`);
    await server.store.load(lines.join('\n'), { format: 'text/turtle' });
    base = await server.listen({ port: 0 });
  });
  afterEach(() => gate.pass());
  afterAll(() => server.close());

  it('a query cut at its deadline answers 503 while /$/ping and another query are answered meanwhile', async () => {
    // About 900 kB: under the 1 MiB query size limit, and seconds of parsing and planning.
    const long = `SELECT * WHERE { ${'{ ?s <http://x/k> ?o } UNION '.repeat(30_000)}{ ?s <http://x/k> ?o } }`;
    let longEnded = false;
    gate.hold();
    const pending = fetch(`${base}/ds/query`, { method: 'POST', headers: { 'content-type': 'application/sparql-query', accept: JSON_RESULTS }, body: long })
      .then(async (r) => ({ status: r.status, body: (await r.json()) as { code: string } }))
      .finally(() => (longEnded = true));
    // The long query is on a worker (its deadline held) before the others are asked.
    while (server.pool.stats().busy === 0 && !longEnded) await new Promise((resolve) => setTimeout(resolve, 10));
    const ping = await fetch(`${base}/$/ping`);
    expect(ping.status).toBe(200);
    const small = await fetch(`${base}/ds?query=${encodeURIComponent('SELECT ?o WHERE { <http://x/r42> ?p ?o }')}`, { headers: { accept: JSON_RESULTS } });
    expect(small.status).toBe(200);
    expect(((await small.json()) as { results: { bindings: { o: { value: string } }[] } }).results.bindings[0]!.o.value).toBe('42');
    expect(longEnded).toBe(false);
    gate.pass();
    const outcome = await pending;
    expect(outcome.status).toBe(503);
    expect(outcome.body.code).toBe('QUERY_TIMEOUT');
    // Ended by the kill (counted below), not by the query finishing: no timing is asserted.
    expect(server.pool.stats().killed).toBeGreaterThanOrEqual(1);
    const metrics = await (await fetch(`${base}/$/metrics`)).text();
    expect(metrics).toMatch(/^ianode_query_workers_killed\{dataset="ds"\} [1-9]/m);
    expect(metrics).toMatch(/^ianode_query_workers_busy\{dataset="ds"\} \d+/m);
  });

  it('a client that leaves in the middle of a large answer frees its worker', async () => {
    const controller = new AbortController();
    const big = 'SELECT * WHERE { ?a <http://x/k> ?x . ?b <http://x/k> ?y }';
    const response = await fetch(`${base}/ds?query=${encodeURIComponent(big)}`, { headers: { accept: 'text/tab-separated-values' }, signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    // Both workers answer again soon after.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const answers = await Promise.all([1, 2].map(() => fetch(`${base}/ds?query=${encodeURIComponent('ASK { <http://x/r1> ?p 1 }')}`).then((r) => r.json())));
    expect(answers, JSON.stringify(answers)).toEqual([{ head: {}, boolean: true }, { head: {}, boolean: true }]);
    expect(server.pool.stats().busy).toBe(0);
  });
});

describe('a lazy pool (the library default: test servers and embedders)', () => {
  let store: QuadStore;
  beforeEach(async () => {
    store = await openStore({});
    await store.load('<http://x/a> <http://x/p> "1" .\n<http://x/b> <http://x/p> "2" .', { format: 'application/n-triples' });
  });
  afterEach(() => store.close());

  it('starts no thread until a job comes, then one per overlapping job up to its size, and no spare', async () => {
    const pool = new QueryPool({ size: 2, start: 'lazy', queueLimit: 1, killGraceMs: 20, state: store, log: silent });
    try {
      await pool.ready(); // nothing to wait for
      expect(pool.stats()).toMatchObject({ ready: 0, busy: 0, queued: 0 });
      expect(await values(pool, 'SELECT ?s WHERE { ?s ?p ?o }')).toEqual(['http://x/a', 'http://x/b']);
      expect(pool.stats()).toMatchObject({ ready: 1, starting: 0 }); // one query, one thread: no spare
      const answers = await Promise.all([1, 2, 3].map(() => values(pool, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }')));
      expect(answers).toEqual([['2'], ['2'], ['2']]);
      // Three at once: a second thread was started (it may still be loading when the first has
      // answered all three), never a third.
      const { ready, starting } = pool.stats();
      expect(ready + starting).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it('a job that waits for a worker still to start is not refused by a queue bound of 0', async () => {
    const pool = new QueryPool({ size: 1, start: 'lazy', queueLimit: 0, killGraceMs: 20, state: store, log: silent });
    try {
      expect(await values(pool, 'SELECT ?o WHERE { <http://x/a> ?p ?o }')).toEqual(['1']);
      // The worker is busy with a job that waits for its reader: the next job is past the bound.
      const held = await pool.sparql(job('SELECT ?s WHERE { ?s ?p ?o }'), OPEN);
      await expect(pool.sparql(job('SELECT ?s WHERE { ?s ?p ?o }'), OPEN)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await text(held);
    } finally {
      await pool.close();
    }
  });
});
