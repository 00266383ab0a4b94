/** Limits on the shape of a query (issue 14): size and nesting checked before parsing at every
 * entry point; every construct at the allowed depth parses and evaluates; a stack overflow is a
 * 400, never a 500. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeQuery, unescapeCodepoints } from '@ianode/sparql';
import { openStore, type QuadStore } from '@ianode/store';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { defaultConfig } from '../src/config.js';
import { checkQueryShape, scanGraphql, scanSparql } from '../src/query-shape.js';

const LIMITS = { queryMaxBytes: 1024 * 1024, queryMaxDepth: 200 };
const P = 'PREFIX : <http://example/>\n';
const rep = (s: string, n: number) => s.repeat(n);

describe('scanSparql: nesting outside strings, IRIs and comments', () => {
  it.each([
    ['SELECT * { ?s ?p ?o }', 1],
    ['SELECT * { { ?s ?p ?o } }', 2],
    ['SELECT * { ?s ?p ?o FILTER((1 + (2))) }', 4],
    ['SELECT * { ?s ?p [ :q [ :r ?o ] ] }', 3],
    ['SELECT * { ?s ?p "{{{{(((([[[[" }', 1],
    ["SELECT * { ?s ?p '{{{{' }", 1],
    ['SELECT * { ?s ?p """{{{{\n{{{{ " "" \\""" }', 1],
    ["SELECT * { ?s ?p '''{{{{''' }", 1],
    ['SELECT * { ?s ?p "a\\"{{{{" }', 1],
    ["SELECT * { ?s <http://x/{a}> ?o }", 2], // not an IRI (`{` is not an IRI character): counted
    ['SELECT * { ?s <http://x/(a)[b]> ?o }', 1],
    ['SELECT * { ?s ?p ?o # {{{{ a comment\n }', 1],
    ['SELECT * { ?s ?p ?o FILTER(?o < 3 && (?o > 1)) }', 3],
    ['SELECT * { ?s :a\\#b ?o } # ((((', 1],
    ['SELECT * { ?s :a\\#b ?o \n{ } }', 2],
    ['SELECT * \\u007B \\u007B ?s ?p ?o } }', 2], // \u escapes are unescaped first, as the parser does
    ['SELECT * { ?s ?p "\\\\u007B" }', 1], // an escaped backslash: not an escape
  ])('%j → depth %d', (text, depth) => {
    expect(scanSparql(unescapeCodepoints(text)).depth).toBe(depth);
  });

  it('reports the line and column where the deepest level was first reached', () => {
    expect(scanSparql('SELECT *\nWHERE {\n  { ?s ?p ?o }\r\n  { { ?s ?p ?o } } }')).toEqual({ depth: 3, line: 4, column: 5 });
  });

  it('a "<" that is not an IRI is an operator: brackets after it count', () => {
    expect(scanSparql('SELECT * { FILTER(?a <(?b)) FILTER(?a < ((?b))) }').depth).toBe(4);
    expect(scanSparql(`SELECT * { FILTER(${rep('?a < (', 10)}1${rep(')', 10)}) }`).depth).toBe(12);
  });
});

describe('scanGraphql', () => {
  it.each([
    ['{ a { b { c } } }', 3],
    ['{ a(x: [[1]]) }', 4],
    ['{ a(x: "{{{{") }', 2],
    ['{ a(x: """{{{{ \\""" {{""") }', 2],
    ['# {{{{\n{ a }', 1],
    ['{ a(x: "\\"{{") }', 2],
  ])('%j → depth %d', (text, depth) => {
    expect(scanGraphql(text).depth).toBe(depth);
  });
});

describe('checkQueryShape', () => {
  it('names the limit, the depth and where', () => {
    const text = P + 'SELECT * WHERE {\n  ' + rep('{ ', 201) + '?s ?p ?o' + rep(' }', 201) + ' }';
    expect(() => checkQueryShape(text, 'sparql-query', LIMITS)).toThrow(
      expect.objectContaining({
        code: 'QUERY_LIMIT',
        position: { line: 3, column: 401 },
        message: 'query nesting depth 201 at line 3 column 401 exceeds the limit of 200 (limits.queryMaxDepth): nest fewer { }, ( ) or [ ]',
      }),
    );
  });

  it('names the size limit, in UTF-8 bytes', () => {
    const text = 'SELECT * { ?s ?p "' + 'é'.repeat(600) + '" }';
    expect(() => checkQueryShape(text, 'sparql-update', { queryMaxBytes: 1000, queryMaxDepth: 200 })).toThrow(
      expect.objectContaining({ code: 'QUERY_LIMIT', message: `update of ${Buffer.byteLength(text)} bytes exceeds the limit of 1000 bytes (limits.queryMaxBytes)` }),
    );
    expect(() => checkQueryShape(text, 'sparql-update', { queryMaxBytes: Buffer.byteLength(text), queryMaxDepth: 200 })).not.toThrow();
  });

  it('0 switches a limit off', () => {
    const text = rep('{', 5000) + rep('}', 5000);
    expect(() => checkQueryShape(text, 'graphql', { queryMaxBytes: 0, queryMaxDepth: 0 })).not.toThrow();
    expect(() => checkQueryShape(text, 'graphql', { queryMaxBytes: 0, queryMaxDepth: 4999 })).toThrow(expect.objectContaining({ code: 'QUERY_LIMIT' }));
  });

  it('the defaults are 1 MiB and 200', () => {
    expect(defaultConfig().limits).toMatchObject({ queryMaxBytes: 1024 * 1024, queryMaxDepth: 200 });
  });
});

/** Each construct nested `n` levels deep (the query's bracket depth grows with n). */
const CONSTRUCTS: Record<string, (n: number) => string> = {
  'nested groups': (n) => `SELECT * WHERE ${rep('{ ', n)}?s :p ?o ${rep('} ', n)}`,
  'nested OPTIONAL': (n) => `SELECT * WHERE { ?s :p ?o ${rep('OPTIONAL { ?s :p ?o ', n)}${rep('} ', n)}}`,
  'nested UNION': (n) => `SELECT * WHERE { ${rep('{ ?s :p ?o } UNION { ', n)} ?s :p ?o ${rep('} ', n)}}`,
  'nested MINUS': (n) => `SELECT * WHERE { ?s :p ?o ${rep('MINUS { ?s :p ?o ', n)}${rep('} ', n)}}`,
  'nested GRAPH': (n) => `SELECT * WHERE { ${rep('GRAPH ?g { ', n)}?s :p ?o ${rep('} ', n)}}`,
  'nested FILTER EXISTS': (n) => `SELECT * WHERE { ?s :p ?o ${rep('FILTER EXISTS { ?s :p ?o ', n)}${rep('} ', n)}}`,
  'nested sub-SELECT': (n) => `SELECT * WHERE ${rep('{ SELECT * WHERE ', n)}{ ?s :p ?o }${rep(' }', n)}`,
  'nested parentheses': (n) => `SELECT * WHERE { ?s :p ?o FILTER(${rep('(', n)}true${rep(')', n)}) }`,
  'nested function calls': (n) => `SELECT * WHERE { ?s :p ?o FILTER(${rep('STR(', n)}?o${rep(')', n)} != "") }`,
  'nested arithmetic': (n) => `SELECT * WHERE { ?s :p ?o FILTER(${rep('(1 + ', n)}1${rep(')', n)} > 0) }`,
  'nested paths': (n) => `SELECT * WHERE { ?s ${rep('(:p/', n)}:p${rep(')', n)} ?o }`,
  'nested blank nodes': (n) => `SELECT * WHERE { ?s :p ${rep('[ :p ', n)}?o${rep(' ]', n)} }`,
  'nested collections': (n) => `SELECT * WHERE { ?s :p (${rep('(', n)}${rep(')', n)}) }`,
};

/** The n whose query is exactly `depth` deep. */
function atDepth(build: (n: number) => string, depth: number): string {
  for (let n = Math.max(0, depth - 3); n <= depth; n++) {
    const text = P + build(n);
    if (scanSparql(text).depth === depth) return text;
  }
  throw new Error(`no n gives depth ${depth}`);
}

describe('every construct at the depth limit parses and evaluates; one more level is refused', () => {
  let store: QuadStore;
  beforeAll(async () => {
    store = await openStore({ defaultLabel: '*' });
    await store.load('@prefix : <http://example/> . :a :p :a . GRAPH :a { :a :p :a }', { format: 'application/trig' });
  });

  it.each(Object.keys(CONSTRUCTS))('%s', (name) => {
    const build = CONSTRUCTS[name]!;
    const at = atDepth(build, 200);
    expect(() => checkQueryShape(at, 'sparql-query', LIMITS)).not.toThrow();
    const result = executeQuery(store, at);
    if (result.type !== 'bindings') throw new Error('expected bindings');
    expect([...result.solutions].length).toBeGreaterThanOrEqual(0);
    const over = atDepth(build, 201);
    expect(() => checkQueryShape(over, 'sparql-query', LIMITS)).toThrow(expect.objectContaining({ code: 'QUERY_LIMIT', message: expect.stringContaining('nesting depth 201') }));
  });

  it('answers at the limit (nested groups find the triple)', () => {
    const result = executeQuery(store, atDepth(CONSTRUCTS['nested groups']!, 200));
    if (result.type !== 'bindings') throw new Error('expected bindings');
    expect([...result.solutions].length).toBe(1);
  });

  // Chains are flat to the scan but sparqljs builds them as left-nested trees and the engine
  // stacks one operator per element: these lengths (well past what people write) evaluate.
  const CHAINS: Record<string, (n: number) => string> = {
    '|| chain': (n) => `SELECT * WHERE { ?s :p ?o FILTER(false${rep(' || false', n)} || true) }`,
    '&& chain': (n) => `SELECT * WHERE { ?s :p ?o FILTER(true${rep(' && true', n)}) }`,
    '+ chain': (n) => `SELECT * WHERE { ?s :p ?o FILTER(1${rep(' + 1', n)} > 0) }`,
    'path sequence': (n) => `SELECT * WHERE { ?s :p${rep('/:p', n)} ?o }`,
    'path alternative': (n) => `SELECT * WHERE { ?s :p${rep('|:p', n)} ?o }`,
    'UNION chain': (n) => `SELECT * WHERE { ${rep('{ ?s :p ?o } UNION ', n)}{ ?s :p ?o } }`,
    'BIND chain': (n) => `SELECT * WHERE { ?s :p ?o ${Array.from({ length: n }, (_, i) => `BIND(${i} AS ?v${i})`).join(' ')} }`,
    'triple patterns': (n) => `SELECT * WHERE { ${Array.from({ length: n }, (_, i) => `?s :p ?o${i} .`).join(' ')} }`,
  };
  it.each(Object.keys(CHAINS))('%s of 500 evaluates', (name) => {
    const result = executeQuery(store, P + CHAINS[name]!(500));
    if (result.type !== 'bindings') throw new Error('expected bindings');
    expect([...result.solutions].length).toBeGreaterThanOrEqual(1);
  });
});

describe('over HTTP: every entry point checks first; an overflow is a 400, never a 500', () => {
  let server: GraphServer;
  let base: string;
  beforeAll(async () => {
    server = await createGraphServer({ graphql: true, limits: { queryMaxDepth: 50, queryMaxBytes: 64 * 1024 } }, { logger: false });
    await server.store.load('@prefix : <http://example/> . :a :p :a .', { format: 'application/trig' });
    base = await server.listen({ port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });

  const deep = (n: number) => `SELECT * WHERE ${rep('{ ', n)}?s ?p ?o ${rep('} ', n)}`;
  const deepUpdate = (n: number) => `INSERT { <http://x/a> <http://x/p> 1 } WHERE ${rep('{ ', n)}?s ?p ?o ${rep('} ', n)}`;
  /** Exactly `n` deep: the outer `{`, n - 2 selection sets, the innermost `{ id }`. */
  const deepGraphql = (n: number) => `{ node(uri: "http://example/a") ${rep('{ id outRels ', n - 2)}{ id }${rep(' }', n - 2)} }`;

  const expectLimit = async (r: Response, what: RegExp) => {
    expect(r.status).toBe(400);
    const body = (await r.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ code: 'QUERY_LIMIT', message: expect.stringMatching(what) });
    return body;
  };

  it('GET ?query=', async () => {
    const ok = await fetch(`${base}/ds/query?query=${encodeURIComponent(deep(50))}`, { headers: { accept: 'application/sparql-results+json' } });
    expect(ok.status).toBe(200);
    const body = await expectLimit(await fetch(`${base}/ds/query?query=${encodeURIComponent(deep(51))}`), /query nesting depth 51 at line 1 column 116 exceeds the limit of 50 \(limits\.queryMaxDepth\)/);
    expect(body).toMatchObject({ line: 1, column: 116 });
  });

  it('POST application/sparql-query and POST form', async () => {
    await expectLimit(await fetch(`${base}/ds/sparql`, { method: 'POST', headers: { 'content-type': 'application/sparql-query' }, body: deep(51) }), /nesting depth 51/);
    await expectLimit(
      await fetch(`${base}/ds`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ query: deep(51) }).toString() }),
      /nesting depth 51/,
    );
  });

  it('SPARQL Update (body and form), nothing written', async () => {
    await expectLimit(await fetch(`${base}/ds/update`, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: deepUpdate(51) }), /^update nesting depth 51/);
    await expectLimit(
      await fetch(`${base}/ds`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ update: deepUpdate(51) }).toString() }),
      /^update nesting depth 51/,
    );
    const ok = await fetch(`${base}/ds/update`, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: deepUpdate(49) });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ inserted: 1 });
  });

  it('size: a query over limits.queryMaxBytes', async () => {
    const big = `SELECT * WHERE { ?s ?p ?o FILTER(?o != "${'x'.repeat(64 * 1024)}") }`;
    await expectLimit(await fetch(`${base}/ds/query`, { method: 'POST', headers: { 'content-type': 'application/sparql-query' }, body: big }), /exceeds the limit of 65536 bytes \(limits\.queryMaxBytes\)/);
  });

  it('GraphQL POST and GET', async () => {
    const post = (query: string) => fetch(`${base}/ds/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    await expectLimit(await post(deepGraphql(51)), /^GraphQL document nesting depth 51/);
    await expectLimit(await fetch(`${base}/ds/graphql?${new URLSearchParams({ query: deepGraphql(51) })}`), /^GraphQL document nesting depth 51/);
    // Under the shape limit, the GraphQL field-depth limit still answers (its own 400).
    const under = await post(deepGraphql(50));
    expect(under.status).toBe(400);
    expect(JSON.stringify(await under.json())).not.toContain('QUERY_LIMIT');
  });

  it('a chain that exhausts the stack while parsing: 400 QUERY_TOO_COMPLEX, no stack in the reply', async () => {
    const chain = `SELECT * WHERE { ?s ?p ?o FILTER(1${rep('+1', 20_000)} > 0) }`;
    const r = await fetch(`${base}/ds/query`, { method: 'POST', headers: { 'content-type': 'application/sparql-query' }, body: chain });
    expect(r.status).toBe(400);
    const body = (await r.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ code: 'QUERY_TOO_COMPLEX' });
    expect(String(body.message)).not.toMatch(/ at |\.js/);
  });

  it('the server still answers after an overflow', async () => {
    const r = await fetch(`${base}/ds/query?query=${encodeURIComponent('ASK { ?s ?p ?o }')}`, { headers: { accept: 'application/sparql-results+json' } });
    expect(await r.json()).toMatchObject({ boolean: true });
  });
});

describe('with the depth limit off, an overflow in planning or evaluation is still a 400', () => {
  let server: GraphServer;
  let base: string;
  beforeAll(async () => {
    server = await createGraphServer({ graphql: true, limits: { queryMaxDepth: 0 } }, { logger: false });
    await server.store.load('@prefix : <http://example/> . :a :p :a .', { format: 'application/trig' });
    base = await server.listen({ port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });

  it.each([
    ['nested UNION (parse)', (n: number) => `SELECT * WHERE { ${rep('{ ?s ?p ?o } UNION { ', n)} ?s ?p ?o ${rep('} ', n)}}`, 1500],
    ['UNION chain (plan)', (n: number) => `SELECT * WHERE { ${rep('{ ?s ?p ?o } UNION ', n)}{ ?s ?p ?o } }`, 10_000],
    ['nested MINUS (evaluate)', (n: number) => `SELECT * WHERE { ?s ?p ?o ${rep('MINUS { ?s ?p ?o ', n)}${rep('} ', n)}}`, 1500],
  ] as const)('%s', async (_name, build, n) => {
    const r = await fetch(`${base}/ds/query`, { method: 'POST', headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' }, body: build(n) });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ code: 'QUERY_TOO_COMPLEX' });
  });

  it('an update whose WHERE overflows: 400, nothing written, the writer free again', async () => {
    const update = (text: string) => fetch(`${base}/ds/update`, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: text });
    const n = 1500;
    const r = await update(`INSERT { <http://x/a> <http://x/p> 1 } WHERE { ${rep('{ ?s ?p ?o } UNION { ', n)} ?s ?p ?o ${rep('} ', n)}}`);
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ code: 'QUERY_TOO_COMPLEX' });
    const ok = await update('INSERT DATA { <http://x/b> <http://x/p> 2 }');
    expect(await ok.json()).toMatchObject({ inserted: 1 });
    const ask = await fetch(`${base}/ds/query?query=${encodeURIComponent('ASK { <http://x/a> ?p ?o }')}`, { headers: { accept: 'application/sparql-results+json' } });
    expect(await ask.json()).toMatchObject({ boolean: false });
  });

  it('a GraphQL document deep enough to overflow graphql-js: 4xx, never 500', async () => {
    const n = 20_000;
    const r = await fetch(`${base}/ds/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: `{ node(uri: "x") ${rep('{ id outRels ', n)}{ id }${rep(' }', n)} }` }) });
    expect(r.status).toBe(400);
  });
});
