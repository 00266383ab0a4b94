/**
 * Conformance with RDF-ABAC's TestServerABAC (rdf-abac-fuseki) and the documentation example
 * (abac-fuseki-server.md (in the RDF-ABAC repository) with src/test/files/server/documentation-example-*). Data, attribute
 * stores and expected counts are transcribed; each Fuseki configuration becomes the graph server
 * settings of the same meaning: `authz:tripleDefaultLabels` -> `dataset.defaultLabel` (absent: `!`,
 * RDF-ABAC's deny for unlabelled data), `authz:accessAttributes` -> `dataset.permissions.read`.
 * Tokens stand in for the reference's `Authorization: Bearer user:<name>` test tokens.
 * `[kept difference]` cases assert ianode's behaviour and are listed in packages/abac/README.md.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { count, counts, gspCount, labelledTrig, labels, loaded, ok, upload, useReference } from './support.js';

// src/test/files/server/data-and-labels.trig
const S_TRIPLES = [':s :p1 123', ':s :p2 456', ':s :p2 789', ':s :q "No label"', ':s1 :p1 1234', ':s1 :p2 2345'];
const S_LABELS: [string, string][] = [
  [':s :p1 123', 'level-1'],
  [':s :p2 456', 'manager && level-1'],
  [':s :p2 789', 'manager'],
  [':s1 :p1 1234', 'manager'],
  [':s1 :p2 2345', 'engineer'],
];
const DATA_AND_LABELS = labelledTrig(S_TRIPLES, S_LABELS);

// ConstForTests.dataWithLabelsTriG: the above and five triples of :x, each labelled status=<its predicate>.
const X_TRIPLES = [':x :public "abc"', ':x :public "def"', ':x :confidential "C-abc"', ':x :sensitive "S-abc"', ':x :private "P-abc"'];
const DATA_WITH_LABELS_TRIG = labelledTrig(
  [...S_TRIPLES, ...X_TRIPLES],
  [...S_LABELS, ...X_TRIPLES.map((t): [string, string] => [t, `status=${t.split(' ')[1]!.slice(1)}`])],
);

// ConstForTests.dataTriples*: [Security-Label header, Turtle body].
const DATA_TRIPLES: [label: string, body: string][] = [
  ['!', ':x :never "header-!" .'],
  ['""', ':x :empty "Empty header label" .'],
  ['*', ':x :open "header-*" .'],
  ['status=public', ':x :public "abc" .\n:x :public "def" .'],
  ['status=confidential', ':x :confidential "C-abc" .'],
  ['status=sensitive', ':x :sensitive "S-abc" .'],
  ['status=private', ':x :private "P-abc" .'],
];

describe('TestServerABAC (attribute-store.ttl: u1 manager, u2 engineer, u3 unused)', () => {
  const ref = useReference({ users: { u1: ['manager'], u2: ['engineer'], u3: ['unused'] } });

  it('build: a new dataset has no labels', async () => {
    const { base } = await ref.start({ defaultLabel: '*' });
    expect((await labels(base, ref.tokens.u1!)).size).toBe(0);
  });

  it('query_u1 / query_u1_u2 (config-server.ttl, default *): u1 3, u2 2', async () => {
    const base = await loaded(ref, { defaultLabel: '*' }, DATA_AND_LABELS);
    expect(await count(base, ref.tokens.u1!)).toBe(3);
    expect(await count(base, ref.tokens.u2!)).toBe(2);
  });

  it('query_anon: a user the attribute store does not know gets 403', async () => {
    const { base } = await ref.start({ defaultLabel: '*' });
    expect(await count(base, ref.tokens.anon!)).toEqual({ status: 403 });
  });

  it('query_dft_access (default label engineer): ?s :q ?o is 0 for u1, 1 for u2', async () => {
    const base = await loaded(ref, { defaultLabel: 'engineer' }, DATA_AND_LABELS);
    const q = 'PREFIX : <http://example/> SELECT * { ?s :q ?o }';
    expect(await count(base, ref.tokens.u1!, q)).toBe(0);
    expect(await count(base, ref.tokens.u2!, q)).toBe(1);
  });

  it('query_access (accessAttributes engineer): u1 403, u2 0 rows of an empty dataset', async () => {
    const { base } = await ref.start({ permissions: { read: 'engineer' } });
    expect(await count(base, ref.tokens.u1!)).toEqual({ status: 403 });
    expect(await count(base, ref.tokens.u2!)).toBe(0);
  });

  it('gsp_r_1 / gsp_r_2 (config-server-gspr.ttl, default *): GSP read u1 3, u2 2, u3 1; u1 and u2 see different graphs', async () => {
    const base = await loaded(ref, { defaultLabel: '*' }, DATA_AND_LABELS);
    expect(await counts(ref, base, ['u1', 'u2', 'u3'], gspCount)).toEqual([3, 2, 1]);
  });

  it.each(['config_override_plain', 'config_override_preferred'])('%s (default *): query and GSP u2 2, u3 1', async () => {
    const base = await loaded(ref, { defaultLabel: '*' }, DATA_AND_LABELS);
    expect(await counts(ref, base, ['u2', 'u3'])).toEqual([2, 1]);
    expect(await counts(ref, base, ['u2', 'u3'], gspCount)).toEqual([2, 1]);
  });

  it('config_override_custom_forms (config-server-authz.ttl, no default label): u2 1, u3 0', async () => {
    const base = await loaded(ref, { defaultLabel: '!' }, DATA_AND_LABELS);
    expect(await counts(ref, base, ['u2', 'u3'])).toEqual([1, 0]);
    expect(await counts(ref, base, ['u2', 'u3'], gspCount)).toEqual([1, 0]);
  });

  it('server_restart_1 (config-persistent-server-1.ttl, default !): u1 0 -> 2 after the load, still 2 after a restart; u3 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ianode-conformance-'));
    try {
      const first = await ref.start({ defaultLabel: '!', storage: dir });
      expect(await count(first.base, ref.tokens.u1!)).toBe(0);
      expect(await count(first.base, ref.tokens.u3!)).toBe(0);
      ok(await upload(first.base, ref.tokens.u1!, 'application/trig', DATA_AND_LABELS));
      expect(await count(first.base, ref.tokens.u1!)).toBe(2);
      expect(await count(first.base, ref.tokens.u3!)).toBe(0);
      await first.server.close();
      const second = await ref.start({ defaultLabel: '!', storage: dir });
      expect(await count(second.base, ref.tokens.u1!)).toBe(2);
      expect(await count(second.base, ref.tokens.u3!)).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('get_labels: /labels is empty for an empty dataset, not after a load', async () => {
    const { base } = await ref.start({});
    expect((await labels(base, ref.tokens.u1!)).size).toBe(0);
    ok(await upload(base, ref.tokens.u1!, 'application/trig', DATA_AND_LABELS));
    // u1 (manager) is the administrator here: the dump covers what u1 may read (kept difference).
    expect((await labels(base, ref.tokens.u1!)).size).toBeGreaterThan(0);
  });

  it('[kept difference] uploads (every test above): by default ianode refuses a write labelled so its writer could not read it', async () => {
    // The reference's upload stores any label; ianode's write boundary refuses it unless
    // writes.allowUnreadableLabels is on (these conformance servers turn it on).
    const { base } = await ref.start({ defaultLabel: '*' }, { strictWrites: true });
    const r = await upload(base, ref.tokens.u1!, 'application/trig', DATA_AND_LABELS);
    expect(r.status).toBe(400);
    expect(r.text).toContain('LABEL_NOT_VISIBLE_TO_WRITER');
  });

  it('[kept difference] config_server_auth (Jetty basic authentication): ianode authenticates by token only', async () => {
    const { base } = await ref.start({ defaultLabel: '*' });
    const r = await fetch(`${base}/ds/query?query=${encodeURIComponent('ASK {}')}`, { headers: { authorization: `Basic ${Buffer.from('u1:pw1').toString('base64')}` } });
    expect(r.status).toBe(401);
  });
});

describe('TestServerABAC with attribute-store-all.ttl (u1 manager status=sensitive, u2 engineer status=public, u3 nothing)', () => {
  const ref = useReference({
    users: { u1: ['manager', 'status=sensitive'], u2: ['engineer', 'status=public'], u3: ['nothing'] },
    hierarchies: { status: ['public', 'confidential', 'sensitive', 'private'] },
  });

  it('server_all (config-all.ttl, default *): labels appear after the upload; u1 7, u2 4, u3 1', async () => {
    const { base } = await ref.start({ defaultLabel: '*' });
    expect((await labels(base, ref.tokens.u1!)).size).toBe(0);
    expect(await count(base, ref.tokens.u1!)).toBe(0);
    ok(await upload(base, ref.tokens.u1!, 'application/trig', DATA_WITH_LABELS_TRIG));
    expect((await labels(base, ref.tokens.u1!)).size).toBeGreaterThan(0);
    expect(await counts(ref, base, ['u1', 'u2', 'u3'])).toEqual([7, 4, 1]);
  });

  it.each([
    ['labelled_data_trig_01', '*', [7, 4, 1]],
    ['labelled_data_trig_02', '!', [6, 3, 0]],
  ] as const)('%s (default label %s): u1, u2, u3 see %j', async (_name, defaultLabel, expected) => {
    const base = await loaded(ref, { defaultLabel }, DATA_WITH_LABELS_TRIG);
    expect(await counts(ref, base, ['u1', 'u2', 'u3'])).toEqual([...expected]);
  });

  it.each([
    ['labelled_data_triples_01', '*'],
    ['labelled_data_triples_02', '!'],
    ['labelled_data_triples_03', 'status=confidential'],
  ])('%s (default label %s): triples with Security-Label headers: u1 5, u2 3, u3 1', async (_name, defaultLabel) => {
    const { base } = await ref.start({ defaultLabel });
    for (const [label, body] of DATA_TRIPLES) {
      const r = await upload(base, ref.tokens.u1!, 'text/turtle', `PREFIX : <http://example/>\n${body}\n`, { 'security-label': label });
      expect(r.status, `${label}: ${r.text}`).toBe(200);
    }
    expect(await counts(ref, base, ['u1', 'u2', 'u3'])).toEqual([5, 3, 1]);
  });
});

describe('documentation example (abac-fuseki-server.md (in the RDF-ABAC repository), legacyDataset)', () => {
  // documentation-example-data.trig as published.
  const DATA = `PREFIX s: <http://example.org/subject#>
PREFIX p: <http://example.org/predicate#>
PREFIX security: <http://telicent.io/security#>
s:Paul p:YearOfBirth 1979 .
s:Laura p:YearOfBirth 1981 .
s:Ryan p:YearOfBirth 1982 .
s:Paul p:pinCode 1234 .
s:Laura p:pinCode 2345 .
s:Ryan p:pinCode 3456 .
s:Paul p:bloodType "A+" .
s:Laura p:bloodType "O" .
s:Ryan p:bloodType "A-" .
s:Paul p:nickname "Handsome" .
s:Laura p:nickname "Freckles" .
s:Ryan p:nickname "Monkey" .
s:Jane p:YearOfBirth 1960 .
GRAPH security:labels {
    [ security:pattern 's:Paul p:YearOfBirth 1979'  ; security:label "everyone" ] .
    [ security:pattern 's:Laura p:YearOfBirth 1981'  ; security:label "everyone" ] .
    [ security:pattern 's:Ryan p:YearOfBirth 1982'  ; security:label "everyone" ] .
    [ security:pattern 's:Frank p:YearOfBirth 2024'  ; security:label "everyone" ] .
    [ security:pattern ' s:Paul p:nickname "Handsome" '  ; security:label "sibling" ] .
    [ security:pattern ' s:Laura p:nickname "Freckles" '  ; security:label "sibling" ] .
    [ security:pattern ' s:Ryan p:nickname "Monkey" '  ; security:label "sibling" ] .
    [ security:pattern ' s:Paul p:bloodType "A+" '  ; security:label "sibling", "familyRole=eldest" ] .
    [ security:pattern ' s:Laura p:bloodType "O" '  ; security:label "sibling", "familyRole=eldest" ] .
    [ security:pattern ' s:Ryan p:bloodType "A-" '  ; security:label "sibling", "familyRole=eldest" ] .
    [ security:pattern 's:Paul p:pinCode 1234' ; security:label "familyRole=eldest"  ] .
    [ security:pattern 's:Laura p:pinCode 2345' ; security:label "familyRole=eldest"  ] .
    [ security:pattern 's:Ryan p:pinCode 3456' ; security:label "familyRole=eldest"  ] .
}
`;
  let base: string;
  // documentation-example-attribute-store.ttl
  const ref = useReference({
    users: {
      Paul: ['familyRole=eldest', 'sibling', 'everyone'],
      Laura: ['sibling', 'familyRole=middle', 'everyone'],
      Ryan: ['sibling', 'familyRole=junior', 'everyone'],
      Jane: ['familyRole=matriarch', 'retired', 'everyone'],
      Frank: ['unused', 'familyRole=dog', 'everyone'],
    },
    hierarchies: { familyRole: ['dog', 'baby', 'junior', 'middle', 'eldest', 'matriarch'] },
  });
  // Each case loads its own empty dataset: the refused upload must find nothing there.
  beforeEach(async () => {
    ({ base } = await ref.start({ defaultLabel: '!' }));
  });

  it('the published data (two labels for one pattern) is refused whole, as RDF-ABAC 3 does ("one label per pattern")', async () => {
    const r = await upload(base, ref.tokens.Paul!, 'application/trig', DATA, { 'security-label': '!' });
    expect(r.status).toBe(400);
    expect(r.text).toContain('one label per pattern');
    expect(await count(base, ref.tokens.Paul!)).toBe(0);
  });

  it('with the two labels consolidated into one (the reference error\'s advice), the documented counts: Laura 6, Frank 3, Ryan 6, Jane 6, Paul 12', async () => {
    const consolidated = DATA.replaceAll('security:label "sibling", "familyRole=eldest"', 'security:label "sibling & familyRole=eldest"');
    const r = await upload(base, ref.tokens.Paul!, 'application/trig', consolidated, { 'security-label': '!' });
    expect(r.status, r.text).toBe(200);
    const counts = Object.fromEntries(await Promise.all(['Laura', 'Frank', 'Ryan', 'Jane', 'Paul'].map(async (u) => [u, await count(base, ref.tokens[u]!)] as const)));
    expect(counts).toEqual({ Laura: 6, Frank: 3, Ryan: 6, Jane: 6, Paul: 12 });
    expect(await count(base, ref.tokens.Jane!, 'SELECT (COUNT(*) AS ?count) WHERE { ?s ?p ?o }')).toBe(1);
  });
});
