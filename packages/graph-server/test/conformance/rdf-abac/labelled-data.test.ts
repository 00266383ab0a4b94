/**
 * Conformance with RDF-ABAC's TestLabelledDataLoader (rdf-abac-fuseki) and the labels files of
 * rdf-abac-core (src/test/files/labels/*.trig, run by BaseTestLabels / ABACTests.runTest): each
 * loaded through ianode's upload, the labels checked as the Java tests check them (the label store
 * through `GET /ds/labels`, visibility through a query as user u1). `[kept difference]` cases
 * assert ianode's behaviour and are listed in packages/abac/README.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearStore } from '../../helpers.js';
import type { GraphServer } from '../../../src/index.js';
import { count, labelledTrig, labels, reference, upload, type Reference } from './support.js';

describe('TestLabelledDataLoader (server-labels/config-labels.ttl: default label "default", data-1.ttl + labels-1.ttl)', () => {
  // A user holding every label of these tests, to count what was stored (the Java test reads the
  // dataset and the label store directly).
  let ref: Reference;
  let server: GraphServer;
  let base: string;
  const INITIAL = labelledTrig([':s :p1 123', ':s :p1 456'], [[':s :p1 123', 'allowed-u1'], [':s :p1 456', 'deny']]);
  beforeAll(async () => {
    ref = await reference({ users: { loader: ['default', 'different', 'allowed-u1', 'deny', 'g1', 'g2', 'test'] } });
    ({ server, base } = await ref.start({ defaultLabel: 'default' }));
  });
  afterAll(async () => {
    await ref.close();
  });

  const defaultGraphSize = async () => count(base, ref.tokens.loader!);
  const ingest = async (body: string, type: string, label: string | null) => {
    await clearStore(server.store);
    const initial = await upload(base, ref.tokens.loader!, 'application/trig', INITIAL);
    expect(initial.status, initial.text).toBe(200);
    expect(await defaultGraphSize()).toBe(2); // INITIAL_GRAPH_SIZE
    expect((await labels(base, ref.tokens.loader!)).size).toBe(2); // INITIAL_LABEL_SIZE
    const r = await upload(base, ref.tokens.loader!, type, body, label === null ? {} : { 'security-label': label });
    expect(r.status, r.text).toBe(200);
    const answer = JSON.parse(r.text) as { quads: number };
    return { processed: answer.quads, graphIncrease: ((await defaultGraphSize()) as number) - 2, labelIncrease: (await labels(base, ref.tokens.loader!)).size - 2 };
  };

  const TTL_UNLABELLED = 'PREFIX : <http://example/>\n:s :p2 123 .\n:s :p2 456 .\n';
  const TTL_UNLABELLED_BLANK = 'PREFIX : <http://example/>\n[] :p2 123 .\n[] :p2 456 .\n';
  const TTL_LABELLED_BLANK = 'PREFIX : <http://example/>\n_:s :p2 123 .\n_:s :p2 456 .\n';
  const NQ_UNLABELLED = '<http://example/s> <http://example/p2> "123" .\n<http://example/s> <http://example/p2> "456" .\n';
  const NQ_LABELLED_BLANK = '_:s <http://example/p2> "123" .\n_:s <http://example/p2> "456" .\n';
  const NQ_NAMED_GRAPH = '<http://example/s> <http://example/p2> "123" <http://example/> .\n<http://example/s> <http://example/p2> "456" <http://example/> .\n';
  const TTL = 'text/turtle';
  const NQ = 'application/n-quads';

  // [name, body, type, Security-Label, triples + quads processed, default graph increase, label store increase]
  const AGREE: [string, string, string, string | null, number, number, number][] = [
    ['test_ingestData_unlabelledTriples_noDefault', TTL_UNLABELLED, TTL, null, 2, 2, 0],
    ['test_ingestData_unlabelledTriples_nullDefault', TTL_UNLABELLED, TTL, null, 2, 2, 0],
    ['test_ingestData_unlabelledTriples_differentDefaultLabel', TTL_UNLABELLED, TTL, 'different', 2, 2, 2],
    ['test_ingestData_unlabelledBlankNodeTriples_withDifferentLabel', TTL_UNLABELLED_BLANK, TTL, 'different', 2, 2, 2],
    ['test_ingestData_labelledBlankNodeTriples_withDifferentLabel', TTL_LABELLED_BLANK, TTL, 'different', 2, 2, 2],
    ['test_ingestData_unlabelledQuads_noDefault', NQ_UNLABELLED, NQ, null, 2, 2, 0],
    ['test_ingestData_unlabelledQuads_nullDefault', NQ_UNLABELLED, NQ, null, 2, 2, 0],
    ['test_ingestData_unlabelledQuads_differentLabelMatch', NQ_UNLABELLED, NQ, 'different', 2, 2, 2],
    ['test_ingestData_namedGraphQuads_differentLabelMatch', NQ_NAMED_GRAPH, NQ, 'different', 2, 0, 2],
    ['test_ingestData_labelledBlankNodeQuad_differentLabelMatch', NQ_LABELLED_BLANK, NQ, 'different', 2, 2, 2],
  ];
  it.each(AGREE)('%s', async (_name, body, type, label, processed, graphIncrease, labelIncrease) => {
    expect(await ingest(body, type, label)).toEqual({ processed, graphIncrease, labelIncrease });
  });

  it('test_ingestData_namedGraphQuads_differentLabelMatch: both quads of graph <http://example/> carry "different"', async () => {
    await ingest(NQ_NAMED_GRAPH, NQ, 'different');
    const dump = await labels(base, ref.tokens.loader!);
    expect(dump.get('<http://example/> <http://example/s> <http://example/p2> "123"')).toBe('different');
    expect(dump.get('<http://example/> <http://example/s> <http://example/p2> "456"')).toBe('different');
  });

  // A Security-Label equal to the dataset default: the reference stores no label (it would be the
  // default anyway); ianode records the label the writer gave, so the data keeps it if the
  // dataset default is changed later. What each caller sees is the same.
  const DEFAULT_MATCH: [string, string, string, number, number][] = [
    ['test_ingestData_unlabelledTriples_defaultMatch', TTL_UNLABELLED, TTL, 2, 2],
    ['test_ingestData_unlabelledBlankNodeTriples_withDefaultLabel', TTL_UNLABELLED_BLANK, TTL, 2, 2],
    ['test_ingestData_labelledBlankNodeTriples_withDefaultLabel', TTL_LABELLED_BLANK, TTL, 2, 2],
    ['test_ingestData_unlabelledQuads_defaultLabelMatch', NQ_UNLABELLED, NQ, 2, 2],
    ['test_ingestData_namedGraphQuads_defaultLabelMatch', NQ_NAMED_GRAPH, NQ, 2, 0],
    ['test_ingestData_labelledBlankNodeQuad_defaultLabelMatch', NQ_LABELLED_BLANK, NQ, 2, 2],
  ];
  it.each(DEFAULT_MATCH)('[kept difference] %s: the label "default" is recorded (reference: label store +0)', async (_name, body, type, processed, graphIncrease) => {
    expect(await ingest(body, type, 'default')).toEqual({ processed, graphIncrease, labelIncrease: 2 });
  });

  it('test_ingestData_labelledQuadsWithSeparateLabels: one triple in two graphs, a label per graph', async () => {
    const trig = `PREFIX authz:   <http://telicent.io/security#>
PREFIX ex:      <http://example/>
GRAPH ex:g1 { ex:s ex:p2 "123" }
GRAPH ex:g2 { ex:s ex:p2 "123" }
GRAPH authz:labels {
  [] authz:pattern 'ex:g1 ex:s ex:p2 "123"' ; authz:label "g1" .
  [] authz:pattern 'ex:g2 ex:s ex:p2 "123"' ; authz:label "g2" .
}
`;
    expect(await ingest(trig, 'application/trig', 'default')).toEqual({ processed: 2, graphIncrease: 0, labelIncrease: 2 });
    const dump = await labels(base, ref.tokens.loader!);
    expect(dump.get('<http://example/g1> <http://example/s> <http://example/p2> "123"')).toBe('g1');
    expect(dump.get('<http://example/g2> <http://example/s> <http://example/p2> "123"')).toBe('g2');
  });

  it('test_ingestData_labelledQuadsWithBase64Labels: "dGVzdA=="^^xsd:base64Binary is the label test', async () => {
    const trig = `PREFIX authz:   <http://telicent.io/security#>
PREFIX ex:      <http://example/>
PREFIX xsd:     <http://www.w3.org/2001/XMLSchema#>
GRAPH ex:g1 { ex:s ex:p2 "123" }
GRAPH authz:labels {
  [] authz:pattern 'ex:g1 ex:s ex:p2 "123"' ; authz:label "dGVzdA=="^^xsd:base64Binary .
}
`;
    expect(await ingest(trig, 'application/trig', 'default')).toEqual({ processed: 1, graphIncrease: 0, labelIncrease: 1 });
    expect((await labels(base, ref.tokens.loader!)).get('<http://example/g1> <http://example/s> <http://example/p2> "123"')).toBe('test');
  });

  it('test_ingestData_nullLang: an upload without a Content-Type is refused', async () => {
    const r = await fetch(`${base}/ds/upload`, { method: 'POST', headers: { authorization: `Bearer ${ref.tokens.loader}` }, body: TTL_UNLABELLED });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });

  it.each([
    ['test_ingestData_triples_inputStreamNull', TTL],
    ['test_ingestData_quads_inputStreamNull', NQ],
  ])('[kept difference] %s: an empty body (%s) is an empty upload, not a parse error', async (_name, type) => {
    // RIOT fails on a missing input stream; an HTTP body cannot be "null", and an empty RDF
    // document is a valid one: ianode stores nothing and says so.
    await clearStore(server.store);
    const r = await upload(base, ref.tokens.loader!, type, '');
    expect(r.status, r.text).toBe(200);
    expect((JSON.parse(r.text) as { quads: number }).quads).toBe(0);
  });
});

describe('labels/*.trig (BaseTestLabels, ABACTests.runTest as user u1: allowed-u1, all)', () => {
  let ref: Reference;
  const servers: Record<string, { server: GraphServer; base: string }> = {};
  beforeAll(async () => {
    ref = await reference({ users: { u1: ['allowed-u1', 'all'], u2: ['allowed-u2', 'all'] } });
    // `[] <test:datasetDefaultLabel> "*"` in a file's labels graph sets the dataset default; without it
    // RDF-ABAC has no default label and hides unlabelled data, as `!` does.
    servers['*'] = await ref.start({ defaultLabel: '*' });
    servers['!'] = await ref.start({ defaultLabel: '!' });
  });
  afterAll(async () => {
    await ref.close();
  });

  const HEAD = 'PREFIX : <http://example/>\nPREFIX authz: <http://telicent.io/security#>\n';
  const run = async (defaultLabel: '*' | '!', text: string) => {
    const { server, base } = servers[defaultLabel]!;
    await clearStore(server.store);
    const r = await upload(base, ref.tokens.u1!, 'application/trig', HEAD + text);
    return { status: r.status, text: r.text, rows: r.status === 200 ? await count(base, ref.tokens.u1!) : undefined };
  };

  // Files BaseTestLabels runs (labels_files_concrete): [file, default label, data and labels graph, expected count].
  const CONCRETE: [string, '*' | '!', string, number][] = [
    ['t01-1triple-yes.trig', '*', ':s :p1 123 .\nGRAPH authz:labels { [] <test::datasetDefaultLabel> "*" . [ authz:pattern \':s :p1 123\' ;  authz:label "allowed-u1" ] . }', 1],
    ['t02-1triple-no.trig', '!', ':s :p1 123 .\nGRAPH authz:labels { [ authz:pattern \':s :p1 123\' ;  authz:label "not-u1" ] . }', 0],
    ['t03-1triple-all.trig', '!', ':s :p1 123 .\nGRAPH authz:labels { [ authz:pattern \':s :p1 123\' ;  authz:label "*" ] . }', 1],
    ['t04-1triple-deny.trig', '!', ':s :p1 123 .\nGRAPH authz:labels { [ authz:pattern \':s :p1 123\' ;  authz:label "!" ] . }', 0],
    ['t05-1triple-dft.trig', '*', ':s :p1 123 .\nGRAPH authz:labels { [] <test:datasetDefaultLabel> "*" . [ authz:pattern \':x :y :z\' ;  authz:label "other" ] . }', 1],
  ];
  it.each(CONCRETE)('%s (default %s): u1 sees the triples of <test:result>', async (_file, defaultLabel, text, expected) => {
    const r = await run(defaultLabel, text);
    expect(r.status, r.text).toBe(200);
    expect(r.rows).toBe(expected);
  });

  it('t24-bad-prefixes.trig: a pattern with an undeclared prefix (bar:) is refused, nothing stored', async () => {
    const r = await run('!', 'PREFIX foo: <http://example/>\nfoo:s foo:p1 123 .\nGRAPH authz:labels { [ authz:pattern \'bar:s bar:p1 123\' ;  authz:label "allowed-u1" ] . }');
    expect(r.status).toBe(400);
    expect(await count(servers['!']!.base, ref.tokens.u1!)).toBe(0);
  });

  // labels_files_with_patterns (not run by RDF-ABAC's own suite any more: its label stores match
  // concrete quads only): wildcard patterns (ANY) are refused by ianode at upload.
  const PATTERNS: [string, '*' | '!', string][] = [
    ['t07-1triple-any-yes.trig', '!', ':s :p1 123 .\nGRAPH authz:labels { [ authz:pattern \':s ANY ANY\' ;  authz:label "allowed-u1" ] . }'],
    ['t08-1triple-any-no.trig', '!', ':s :p1 123 .\nGRAPH authz:labels { [ authz:pattern \':s :p1 ANY\' ;  authz:label "deny" ] . }'],
    ['t50-triples.trig', '*', ':s :p1 123 .\n:s :p1 456 .\n:s :p2 789 .\nGRAPH authz:labels { [] <test:datasetDefaultLabel> "*" . [ authz:pattern \':s :p1 456\' ;  authz:label "deny-u1" ] . [ authz:pattern \':s :p1 ANY\' ;  authz:label "allowed-u1" ] . }'],
    ['t51-triples.trig', '!', ':s1 :p 12 .\n:s1 :q 34 .\n:s2 :p 56 .\n:s2 :q 78 .\nGRAPH authz:labels { [ authz:pattern \'ANY :p ANY\' ;  authz:label "deny-u1" ] . [ authz:pattern \'ANY :q ANY\' ;  authz:label "allowed-u1" ] . }'],
    ['t55-triples.trig', '*', ':s :p1 123 .\n:s :p1 456 .\n:s :p2 789 .\nGRAPH authz:labels { [] <test:datasetDefaultLabel> "*" . [ authz:pattern \':s :p1 ANY\' ;  authz:label "status=level3" ] . [ authz:pattern \':s :p1 123\' ;  authz:label "status=level1" ] . }'],
  ];
  it.each(PATTERNS)('[kept difference] %s: a wildcard (ANY) pattern is refused, nothing stored', async (_file, defaultLabel, text) => {
    const r = await run(defaultLabel, text);
    expect(r.status).toBe(400);
    expect(r.text).toContain('ANY');
    expect(await count(servers[defaultLabel]!.base, ref.tokens.u1!)).toBe(0);
  });
});
