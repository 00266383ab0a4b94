/** The traversal schema over a store view: SPEC §5 example, paging, errors, limits, scan counts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEC_EXAMPLE_TRIG } from '@ianode/testkit';
import { openStore, type QuadStore } from '@ianode/store';
import type { Dataset } from '@ianode/rdf';
import { executeGraphql, traversalSdl, type GraphqlOptions } from '../src/index.js';

const SPEC_DATA = SPEC_EXAMPLE_TRIG;

let store: QuadStore;
let contractor: Dataset;
let employee: Dataset;
let everything: Dataset;

beforeAll(async () => {
  store = await openStore({});
  await store.load(SPEC_DATA, { format: 'application/trig' });
  let chain = '';
  // A chain hub -> i0..i119, each typed and with a name, for paging and traversal.
  chain += '<http://x/hub> a <http://x/Hub> .\n';
  for (let i = 0; i < 300; i++) chain += `<http://x/hub> <http://x/link> <http://x/i${i}> .\n<http://x/i${i}> a <http://x/Item> ; <http://x/name> "item ${i}"@en ; <http://x/next> <http://x/i${(i + 1) % 300}> .\n`;
  chain += '<http://x/g> { <http://x/hub> <http://x/inGraph> "only in g" . }\n';
  await store.load(chain, { format: 'application/trig', label: 'employee' });
  contractor = store.view((label) => label === '*');
  employee = store.view((label) => label === '*' || label === 'employee');
  everything = store.view(() => true);
});
afterAll(async () => {
  await store.close();
});

const run = (dataset: Dataset, query: string, variables?: Record<string, unknown>, options?: GraphqlOptions) => executeGraphql(dataset, { query, variables }, options);
const codes = (outcome: ReturnType<typeof run>) => (outcome.body.errors ?? []).map((e) => e.extensions?.code);

describe('SPEC §5', () => {
  const example = '{ node(uri: "http://example/person4321") { id properties { predicate value } } }';
  it('answers the example exactly for a user who may see only the phone number', () => {
    expect(JSON.stringify(run(contractor, example).body)).toBe(
      '{"data":{"node":{"id":"http://example/person4321","properties":[{"predicate":"http://example/phone","value":"0400 111 333"}]}}}',
    );
  });
  it('node is null when the IRI is in no visible triple; the employee sees :person9876', () => {
    const q = '{ node(uri: "http://example/person9876") { id properties { predicate value datatype language } } }';
    expect(run(contractor, q).body).toEqual({ data: { node: null } });
    expect(run(employee, q).body).toEqual({
      data: { node: { id: 'http://example/person9876', properties: [{ predicate: 'http://example/empId', value: '9876', datatype: 'http://www.w3.org/2001/XMLSchema#integer', language: null }] } },
    });
  });
  it('nobody sees the unlabelled :person4321 :empId 4321', () => {
    const q = '{ node(uri: "http://example/person4321") { properties { value } } }';
    expect(run(everything, q).body.data).toEqual({ node: { properties: [{ value: '0400 111 333' }, { value: '4321' }] } });
    expect(run(employee, q).body.data).toEqual({ node: { properties: [{ value: '0400 111 333' }] } });
  });
  it('short forms, hash, language, types, instances, graphs', () => {
    const { body } = run(employee, `{
      node(uri: "http://x/i7") { shortUri uriHash properties { shortPredicate value language } types { id } relCounts { inRels outRels } }
      item: node(uri: "http://x/Item") { instances(limit: 2) { id } }
      inG: node(graph: "http://x/g", uri: "http://x/hub") { properties { value } outRels { id } }
      noG: node(graph: "http://x/nowhere", uri: "http://x/hub") { id }
      entities: getAllEntities(limit: 3, offset: 2) { id }
    }`);
    const data = body.data as Record<string, Record<string, unknown> | null>;
    expect(data.node).toMatchObject({
      shortUri: 'http://x/i7',
      uriHash: expect.stringMatching(/^[0-9a-f]{40}$/),
      properties: [{ shortPredicate: 'http://x/name', value: 'item 7', language: 'en' }],
      types: [{ id: 'http://x/Item' }],
      relCounts: { inRels: 2, outRels: 2 },
    });
    expect((data.item!.instances as unknown[]).length).toBe(2);
    expect(data.inG).toEqual({ properties: [{ value: 'only in g' }], outRels: [] });
    expect(data.noG).toBeNull();
    expect((data.entities as unknown as unknown[]).length).toBe(3);
  });
  it('prints an SDL with the schema types', () => {
    const sdl = traversalSdl();
    for (const name of ['type Node', 'type Property', 'type Rel', 'type NodeRelCounts', 'type State', 'searchWithMetadata', 'getAllEntities', 'states(', 'enum FilterMode']) expect(sdl).toContain(name);
  });
});

describe('paging', () => {
  const links = (args: string) => run(employee, `{ node(uri: "http://x/hub") { outRels(predicate: { values: ["http://x/link"] }${args}) { range_id } } }`);
  const ids = (outcome: ReturnType<typeof run>) => ((outcome.body.data!.node as { outRels: Array<{ range_id: string }> }).outRels).map((r) => r.range_id);
  it('default limit 50, offset 1-based, maximum 250', () => {
    const all = ids(links(', limit: 250'));
    expect(all).toHaveLength(250);
    expect(ids(links(''))).toEqual(all.slice(0, 50));
    expect(ids(links(', offset: 1, limit: 3'))).toEqual(all.slice(0, 3));
    expect(ids(links(', offset: 249, limit: 10'))).toEqual([...all.slice(248), ...ids(links(', offset: 251, limit: 8'))]);
    expect(ids(links(', limit: 0'))).toEqual([]);
  });
  it('a limit over 250 is a GraphQL error', () => {
    const outcome = links(', limit: 251');
    expect(codes(outcome)).toEqual(['BAD_PAGING']);
    expect(outcome.body.errors![0]!.message).toMatch(/limit 251 is over the maximum of 250/);
    expect(outcome.body.errors![0]!.path).toEqual(['node', 'outRels']);
  });
  it('offset 0 and negative limits are GraphQL errors', () => {
    expect(links(', offset: 0').body.errors![0]!.message).toMatch(/1-based/);
    expect(codes(links(', limit: -1'))).toEqual(['BAD_PAGING']);
  });
  it('limits given as variables are checked the same way', () => {
    const outcome = run(employee, 'query Q($n: Int) { node(uri: "http://x/hub") { outRels(limit: $n) { id } } }', { n: 1000 });
    expect(codes(outcome)).toEqual(['BAD_PAGING']);
  });
});

describe('errors a client can act on', () => {
  it('unknown fields and bad arguments: validation errors, no data', () => {
    const outcome = run(employee, '{ node(uri: "http://x/hub") { colour } }');
    expect(outcome.hasData).toBe(false);
    expect(outcome.body.errors![0]).toMatchObject({ message: 'Cannot query field "colour" on type "Node".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' }, locations: [{ line: 1, column: 31 }] });
    expect(codes(run(employee, '{ node { id } }'))).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(codes(run(employee, '{ node(uri: "a") { outRels(predicate: { mode: MAYBE, values: [] }) { id } } }'))).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });
  it('malformed queries: a parse error with its position', () => {
    const outcome = run(employee, '{ node(uri: "a" { id } }');
    expect(outcome.hasData).toBe(false);
    expect(outcome.body.errors![0]).toMatchObject({ extensions: { code: 'GRAPHQL_PARSE_FAILED' }, locations: [{ line: 1, column: 17 }] });
    expect(outcome.body.errors![0]!.message).toMatch(/^Syntax Error/);
  });
  it('no query, bad variables, unknown operation', () => {
    expect(codes(executeGraphql(employee, {}))).toEqual(['BAD_REQUEST']);
    expect(codes(executeGraphql(employee, { query: '{ node(uri: "a") { id } }', variables: [1] }))).toEqual(['BAD_REQUEST']);
    expect(codes(executeGraphql(employee, { query: 'query A { node(uri: "a") { id } } query B { node(uri: "b") { id } }' }))).toEqual(['BAD_REQUEST']);
    expect(codes(executeGraphql(employee, { query: 'query A { node(uri: "a") { id } }', operationName: 'C' }))).toEqual(['BAD_REQUEST']);
    expect(executeGraphql(employee, { query: 'query A { a: node(uri: "a") { id } } query B { b: node(uri: "b") { id } }', operationName: 'B' }).body).toEqual({ data: { b: null } });
  });
  it('excessive depth: a clear error before any scan', () => {
    let q = 'id';
    for (let i = 0; i < 6; i++) q = `outRels(limit: 1) { range { ${q} } }`;
    const outcome = run(employee, `{ node(uri: "http://x/hub") { ${q} } }`);
    expect(outcome).toMatchObject({ hasData: false, scans: 0 });
    expect(outcome.body.errors![0]).toMatchObject({ message: expect.stringMatching(/query depth 14 is over the limit of 10/), extensions: { code: 'DEPTH_LIMIT' } });
    expect(run(employee, `{ node(uri: "http://x/hub") { ${q} } }`, undefined, { limits: { maxDepth: 20 } }).hasData).toBe(true);
  });
  it('depth counts through fragments', () => {
    const outcome = run(employee, 'fragment F on Node { outRels { range { outRels { range { outRels { range { id } } } } } } } { node(uri: "a") { outRels { range { ...F } } } }', undefined, { limits: { maxDepth: 8 } });
    expect(codes(outcome)).toEqual(['DEPTH_LIMIT']);
  });
  it('excessive complexity: a clear error naming the limit', () => {
    const outcome = run(employee, '{ node(uri: "http://x/hub") { outRels(limit: 250) { range { outRels(limit: 250) { range { outRels(limit: 250) { id } } } } } } }');
    expect(codes(outcome)).toEqual(['COMPLEXITY_LIMIT']);
    expect(outcome.body.errors![0]!.message).toMatch(/over the limit of 1000000/);
  });
  it('introspection is on and free', () => {
    const { body } = run(employee, '{ __schema { queryType { name } types { name fields { name type { name kind ofType { name kind ofType { name kind ofType { name } } } } } } } }');
    expect((body.data!.__schema as { queryType: { name: string } }).queryType.name).toBe('Query');
  });
  it('a passed deadline stops reads with QUERY_TIMEOUT', () => {
    const outcome = run(employee, '{ node(uri: "http://x/hub") { id } }', undefined, { deadline: Date.now() - 1 });
    expect(codes(outcome)).toEqual(['QUERY_TIMEOUT']);
    // No partial data: which fields resolved before the limit is arbitrary.
    expect(outcome.body.data).toBeUndefined();
    expect(outcome.timedOut).toBe(true);
    expect(outcome.hasData).toBe(false);
  });
  it('a timeout in one of several fields withholds the others too', () => {
    const outcome = run(employee, '{ a: node(uri: "http://x/hub") { id } b: node(uri: "http://x/hub") { id properties { value } } }', undefined, { deadline: Date.now() - 1 });
    expect(codes(outcome)).toEqual(['QUERY_TIMEOUT']);
    expect(outcome.body).not.toHaveProperty('data');
  });
  it('without a deadline the same request has data and no timeout flag', () => {
    const outcome = run(employee, '{ node(uri: "http://x/hub") { id } }');
    expect(outcome.timedOut).toBeUndefined();
    expect(outcome.hasData).toBe(true);
  });
});

describe('batched look-ups', () => {
  it('a deep query scans each node pattern once, not once per field', () => {
    const q = `{ node(uri: "http://x/hub") {
      id properties { value } types { id } relCounts { outRels inRels }
      outRels(predicate: { values: ["http://x/link"] }, limit: 20) {
        range { id properties { value } types { id } relCounts { outRels inRels }
          outRels(limit: 5) { range { id properties { value } types { id } inRels(limit: 3) { domain_id } } } }
      } } }`;
    const outcome = run(employee, q);
    expect(outcome.body.errors).toBeUndefined();
    // hub: out + in; 20 items: out + in; their next items (i1..i20, 19 already known) and types
    // (Item, Hub are reached as range nodes): one out-scan each, in-scans only where asked.
    expect(outcome.scans).toBeLessThanOrEqual(2 + 20 * 2 + 5);
    const fields = JSON.stringify(outcome.body).match(/":/g)!.length;
    expect(fields).toBeGreaterThan(10 * outcome.scans);
  });
  it('counts every dataset call (repeated node() calls are memoised)', () => {
    const outcome = run(employee, '{ a: node(uri: "http://x/i1") { id } b: node(uri: "http://x/i1") { properties { value } outRels { id } } }');
    expect(outcome.scans).toBe(1);
  });
});
