/**
 * A reference GraphQL client's query set — IES `states` with start/end/period/relations, `search` /
 * `searchWithMetadata`, Dataset `quads`, Traversal `nodes` — validated against our schemas and
 * answered over a caller's view, each answer checked against the same question asked in SPARQL
 * (executeQuery from @ianode/sparql) over the same view. Random labelled IES-shaped data; two users
 * with different attributes per seed. Then the confidentiality checks of search: a hidden literal
 * never changes anything a caller gets back (hits, order, maybeMore).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '@ianode/testkit';
import { openStore, type QuadStore } from '@ianode/store';
import type { Dataset, Term } from '@ianode/rdf';
import { executeQuery } from '@ianode/sparql';
import { executeGraphql, IES, STATE_PREDICATES, validateGraphql, type SchemaName } from '../src/index.js';

const EX = 'http://ex/';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const REP = `${IES}iso8601PeriodRepresentation`;
const LABELS = ['*', 'L0', 'L1', '!'];
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];

/** The client's queries (as a reference client sends them: operation names, variables). */
const CLIENT = {
  states: `query State($stateUri: String!) { states(uri: $stateUri) {
    uri type start end period relCounts { relations }
    relations { predicate entity { uri types { uri } properties { value predicate } } } } }`,
  search: `query Search($term: String!, $type: SearchType) {
    searchWithMetadata(searchTerm: $term, searchType: $type, limit: 250) { searchTerm searchType limit offset maybeMore nodes { uri } }
    search(searchTerm: $term, searchType: $type, limit: 250) { uri } }`,
  quads: `query Quads($p: NodeFilter, $g: NodeFilter) { quads(predicate: $p, graph: $g) {
    subject { kind value } predicate { value } object { kind value datatype language } graph { value } } }`,
  traversal: `query Walk($starts: [NodeFilter!]) { nodes(starts: $starts) {
    node { kind value }
    outgoing { edge { value } direction target { node { kind value } } }
    incoming { edge { value } direction target { node { kind value } } } } }`,
};
const SCHEMA_OF: Record<keyof typeof CLIENT, SchemaName> = { states: 'ies', search: 'ies', quads: 'dataset', traversal: 'traversal' };

/** The seeded PRNG of @ianode/testkit; the offset keeps the data every seed has always drawn. */
const random = (seed: number): (() => number) => mulberry32(seed + 0x51ed270b);

/**
 * IES-shaped data: entities e0..e3, each with states s{e}_{k} linked by one of the state predicates,
 * each state typed, in at most one period (one representation each), bounded by at most one start
 * and one end state; other relations and literals of random words. Every triple gets a random label.
 */
async function iesStore(rand: () => number): Promise<QuadStore> {
  const store = await openStore({});
  const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)]!;
  const words = () => Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(WORDS)).join(' ');
  await store.transaction((tx) => {
    const add = (s: string, p: string, o: string, g = '') => tx.add({ s: `<${s}`, p: `<${p}`, o, g }, pick(LABELS));
    for (let e = 0; e < 4; e++) {
      const entity = `${EX}e${e}`;
      add(entity, RDF_TYPE, `<${IES}Person`);
      add(entity, `${EX}name`, `"${words()}"`);
      if (rand() < 0.5) add(entity, `${EX}note`, `"${words()}"@en`, `<${EX}g1`);
      for (let k = 0; k < 3; k++) {
        const state = `${EX}s${e}_${k}`;
        add(state, pick(STATE_PREDICATES), `<${entity}`);
        if (rand() < 0.85) add(state, RDF_TYPE, `<${IES}${pick(['PersonState', 'BirthState', 'DeathState'])}`);
        if (rand() < 0.7) {
          add(state, `${IES}inPeriod`, `<${state}_p`);
          add(`${state}_p`, REP, `"${2000 + Math.floor(rand() * 20)}"`);
        }
        for (const bound of ['isStartOf', 'isEndOf']) {
          if (rand() < 0.5) {
            add(`${state}_${bound}`, `${IES}${bound}`, `<${state}`);
            add(`${state}_${bound}`, RDF_TYPE, `<${IES}BoundingState`);
            add(`${state}_${bound}`, `${IES}inPeriod`, `<${state}_${bound}_p`);
            add(`${state}_${bound}_p`, REP, `"${2000 + Math.floor(rand() * 20)}-0${1 + Math.floor(rand() * 9)}"`);
          }
        }
        if (rand() < 0.5) add(state, `${EX}at`, `<${EX}e${Math.floor(rand() * 4)}`);
        if (rand() < 0.5) add(`${EX}e${Math.floor(rand() * 4)}`, `${EX}saw`, `<${state}`);
        if (rand() < 0.5) add(state, `${EX}comment`, `"${words()}"`);
      }
    }
  });
  return store;
}

type Row = Map<string, Term>;
const select = (view: Dataset, query: string): Row[] => {
  const result = executeQuery(view, query);
  if (result.type !== 'bindings') throw new Error('not a SELECT');
  return [...result.solutions];
};
const text = (t: Term | undefined) => (t === undefined ? null : t.termType === 'BlankNode' ? `_:${t.value}` : t.value);
type Obj = Record<string, unknown>;
function ask(view: Dataset, name: keyof typeof CLIENT, variables: Obj): Obj {
  const { body } = executeGraphql(view, { query: CLIENT[name], variables }, { schema: SCHEMA_OF[name] });
  expect(body.errors).toBeUndefined();
  return body.data!;
}
const sorted = <T>(items: T[]) => [...items].sort();
/** How much the comparisons covered (so a test that compares only empty answers fails). */
const seen = { starts: 0, ends: 0, periods: 0, relations: 0, searchHits: 0, quads: 0, edges: 0 };

/** Expected states of an entity, from SPARQL: one per (state predicate, typed IRI state). */
function checkStates(view: Dataset, entity: string): number {
  const got = ask(view, 'states', { stateUri: entity }).states as Obj[];
  const one = (q: string) => {
    const rows = select(view, q);
    expect(rows.length).toBeLessThanOrEqual(1);
    return rows.length ? text(rows[0]!.get('v')) : null;
  };
  const periodOf = (s: string) => one(`SELECT ?v WHERE { <${s}> <${IES}inPeriod> ?p FILTER(!isLiteral(?p)) ?p <${REP}> ?v FILTER isLiteral(?v) }`);
  const bounded = (s: string, b: string) => one(`SELECT ?v WHERE { ?x <${IES}${b}> <${s}> FILTER(!isLiteral(?x)) ?x <${IES}inPeriod> ?p FILTER(!isLiteral(?p)) ?p <${REP}> ?v FILTER isLiteral(?v) }`);
  const expected: Obj[] = [];
  for (const p of STATE_PREDICATES) {
    for (const row of select(view, `SELECT DISTINCT ?s WHERE { ?s <${p}> <${entity}> FILTER(!isLiteral(?s)) FILTER EXISTS { ?s a ?t FILTER(!isLiteral(?t)) } }`)) {
      const s = text(row.get('s'))!;
      const own = periodOf(s);
      const types = select(view, `SELECT ?t WHERE { <${s}> a ?t FILTER(!isLiteral(?t)) }`).map((r) => text(r.get('t'))!);
      expect(types).toHaveLength(1);
      const relations = [
        ...select(view, `SELECT ?p ?o WHERE { <${s}> ?p ?o FILTER(!isLiteral(?o) && ?p != <${RDF_TYPE}> && ?o != <${entity}>) }`).map((r) => `${text(r.get('p'))} ${text(r.get('o'))}`),
        ...select(view, `SELECT ?p ?x WHERE { ?x ?p <${s}> FILTER(!isLiteral(?x)) FILTER EXISTS { ?x a ?t FILTER(!isLiteral(?t)) } }`).map((r) => `${text(r.get('p'))} ${text(r.get('x'))}`),
      ];
      expected.push({
        uri: s,
        type: types[0],
        period: own,
        start: p === `${IES}isStartOf` && own ? own : bounded(s, 'isStartOf'),
        end: p === `${IES}isEndOf` && own ? own : bounded(s, 'isEndOf'),
        relations: sorted(relations),
      });
    }
  }
  const shape = (s: Obj) => ({
    uri: s.uri, type: s.type, period: s.period, start: s.start, end: s.end,
    relations: sorted((s.relations as Obj[]).map((r) => `${r.predicate} ${(r.entity as Obj).uri}`)),
  });
  expect(got.map(shape)).toEqual(expected);
  for (const e of expected) {
    if (e.start) seen.starts++;
    if (e.end) seen.ends++;
    if (e.period) seen.periods++;
    seen.relations += (e.relations as string[]).length;
  }
  for (const s of got) expect((s.relCounts as Obj).relations).toBe((s.relations as unknown[]).length);
  // The entities of relations answer as nodes of the same view.
  for (const s of got) {
    for (const r of s.relations as Obj[]) {
      const e = r.entity as Obj;
      expect(sorted((e.types as Obj[]).map((t) => t.uri as string))).toEqual(sorted(select(view, `SELECT ?t WHERE { <${e.uri}> a ?t FILTER(!isLiteral(?t)) }`).map((row) => text(row.get('t'))!)));
    }
  }
  return 1 + got.length;
}

/** Nodes (default graph) with a visible literal holding every word (as whole words). */
function checkSearch(view: Dataset, words: string[], type: 'QUERY' | 'TERM' | 'PHRASE'): void {
  const data = ask(view, 'search', { term: words.join(' '), type });
  const meta = data.searchWithMetadata as Obj;
  const hits = (meta.nodes as Obj[]).map((n) => n.uri as string);
  const where = type === 'PHRASE'
    ? `?s ?p ?o FILTER(isLiteral(?o) && !isLiteral(?s) && REGEX(STR(?o), "(^|[^a-z0-9])${words.join('[^a-z0-9]+')}([^a-z0-9]|$)", "i"))`
    : words.map((w, i) => `?s ?p${i} ?o${i} FILTER(isLiteral(?o${i}) && REGEX(STR(?o${i}), "(^|[^a-z0-9])${w}([^a-z0-9]|$)", "i"))`).join(' ') + ' FILTER(!isLiteral(?s))';
  const expected = select(view, `SELECT DISTINCT ?s WHERE { ${where} }`).map((r) => text(r.get('s'))!);
  expect(sorted(hits)).toEqual(sorted(expected));
  seen.searchHits += hits.length;
  expect(meta).toMatchObject({ searchTerm: words.join(' '), searchType: type, limit: 250, offset: 1, maybeMore: false });
  expect((data.search as Obj[]).map((n) => n.uri)).toEqual(hits);
}

function checkQuads(view: Dataset, predicate: string, graph: string | undefined): void {
  const got = ask(view, 'quads', { p: { kind: 'URI', value: predicate }, ...(graph ? { g: { kind: 'URI', value: graph } } : {}) }).quads as Obj[];
  const sparql = graph
    ? `SELECT ?s ?o ?g WHERE { GRAPH ?g { ?s <${predicate}> ?o } FILTER(?g = <${graph}>) }`
    : `SELECT ?s ?o ?g WHERE { { ?s <${predicate}> ?o } UNION { GRAPH ?g { ?s <${predicate}> ?o } } }`;
  const expected = select(view, sparql).map((r) => `${text(r.get('s'))} ${text(r.get('o'))} ${text(r.get('g')) ?? 'urn:x-arq:DefaultGraph'}`);
  expect(sorted(got.map((q) => `${(q.subject as Obj).value} ${(q.object as Obj).value} ${(q.graph as Obj).value}`))).toEqual(sorted(expected));
  for (const q of got) expect((q.predicate as Obj).value).toBe(predicate);
  seen.quads += got.length;
}

function checkTraversal(view: Dataset, start: string): void {
  const nodes = ask(view, 'traversal', { starts: [{ kind: 'URI', value: start }] }).nodes as Obj[];
  const any = (pattern: string) => `{ ${pattern} } UNION { GRAPH ?g { ${pattern} } }`;
  const isSubject = executeQuery(view, `ASK { ${any(`<${start}> ?p ?o`)} }`);
  expect(nodes.length).toBe(isSubject.type === 'boolean' && isSubject.value ? 1 : 0);
  if (nodes.length === 0) return;
  const edges = (list: unknown) => sorted(((list ?? []) as Obj[]).map((e) => `${e.direction} ${(e.edge as Obj).value} ${((e.target as Obj).node as Obj).value}`));
  expect(edges(nodes[0]!.outgoing)).toEqual(sorted(select(view, `SELECT ?p ?o WHERE { ${any(`<${start}> ?p ?o`)} }`).map((r) => `OUT ${text(r.get('p'))} ${text(r.get('o'))}`)));
  const incoming = select(view, `SELECT ?p ?s WHERE { ${any(`?s ?p <${start}>`)} }`).map((r) => `IN ${text(r.get('p'))} ${text(r.get('s'))}`);
  expect(edges(nodes[0]!.incoming)).toEqual(sorted(incoming));
  if (incoming.length === 0) expect(nodes[0]!.incoming).toBeNull();
  seen.edges += incoming.length + ((nodes[0]!.outgoing ?? []) as unknown[]).length;
}

describe('the reference client query set', () => {
  it('validates against our schemas', () => {
    for (const [name, query] of Object.entries(CLIENT)) {
      expect(validateGraphql({ query }, { schema: SCHEMA_OF[name as keyof typeof CLIENT] })).toEqual({ valid: true, errors: [] });
    }
  });
});

const SEEDS = 40;
describe('client queries = SPARQL on the same view, two users per seed', () => {
  let states = 0;
  let seedsRun = 0;
  for (let seed = 0; seed < SEEDS; seed++) {
    it(`seed ${seed}`, async () => {
      const rand = random(seed);
      const store = await iesStore(rand);
      try {
        const users = [new Set(['L0']), new Set(['L0', 'L1'])];
        const answers: string[] = [];
        for (const attributes of users) {
          const view = store.view((label) => label === '*' || attributes.has(label));
          for (let e = 0; e < 4; e++) states += checkStates(view, `${EX}e${e}`);
          const w = () => WORDS[Math.floor(rand() * WORDS.length)]!;
          checkSearch(view, [w()], 'QUERY');
          checkSearch(view, [w(), w()], 'QUERY');
          checkSearch(view, [w()], 'TERM');
          checkSearch(view, [w(), w()], 'PHRASE');
          checkQuads(view, `${EX}name`, undefined);
          checkQuads(view, `${EX}note`, `${EX}g1`);
          checkQuads(view, `${IES}inPeriod`, undefined);
          checkTraversal(view, `${EX}e${Math.floor(rand() * 4)}`);
          checkTraversal(view, `${EX}s0_0`);
          answers.push(JSON.stringify(ask(view, 'states', { stateUri: `${EX}e0` })));
        }
        seedsRun++;
      } finally {
        await store.close();
      }
    });
  }
  // The seeds compared non-empty answers of every kind: checked after them, whatever their order
  // (--sequence.shuffle), and only when all of them ran (a `-t` filter runs a few).
  afterAll(() => {
    if (seedsRun < SEEDS) return;
    expect(states, 'states compared').toBeGreaterThan(SEEDS * 8);
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(SEEDS);
  });
});

describe('search never reveals hidden data', () => {
  const DATA = (withSecret: boolean) => `PREFIX authz: <http://ndtp.co.uk/security#>
PREFIX : <${EX}>
:a :name "apple orchard" .
:b :name "apple apple pie" .
:c :name "orchard road" .
${withSecret ? ':d :name "apple secret kumquat" . :b :note "apple apple apple orchard" . :c a :Fruit .' : ''}
GRAPH authz:labels {
  [ authz:pattern ':a :name "apple orchard"' ; authz:label "*" ] .
  [ authz:pattern ':b :name "apple apple pie"' ; authz:label "*" ] .
  [ authz:pattern ':c :name "orchard road"' ; authz:label "*" ] .
  ${withSecret ? `[ authz:pattern ':d :name "apple secret kumquat"' ; authz:label "secret" ] .
  [ authz:pattern ':b :note "apple apple apple orchard"' ; authz:label "secret" ] .
  [ authz:pattern ':c a :Fruit' ; authz:label "secret" ] .` : ''}
}`;
  const QUERIES = [
    { term: 'apple', type: 'QUERY' }, { term: 'orchard', type: 'QUERY' }, { term: 'kumquat', type: 'QUERY' },
    { term: 'secret', type: 'TERM' }, { term: 'apple orchard', type: 'PHRASE' }, { term: 'k*', type: 'WILDCARD' }, { term: 'app*', type: 'WILDCARD' },
  ];
  const answers = async (withSecret: boolean, see: (label: string) => boolean) => {
    const store = await openStore({});
    try {
      await store.load(DATA(withSecret), { format: 'application/trig' });
      const view = store.view(see);
      return QUERIES.map((v) => {
        const out = executeGraphql(view, { query: `query S($term: String!, $type: SearchType) {
          all: searchWithMetadata(searchTerm: $term, searchType: $type) { maybeMore nodes { uri } }
          one: searchWithMetadata(searchTerm: $term, searchType: $type, limit: 1) { maybeMore nodes { uri } }
          typed: search(searchTerm: $term, searchType: $type, typeFilter: "${EX}Fruit") { uri } }`, variables: v });
        expect(out.body.errors).toBeUndefined();
        return out.body.data;
      });
    } finally {
      await store.close();
    }
  };
  it('a user without the attribute gets exactly what they would get if the hidden literals did not exist', async () => {
    const publicOnly = (label: string) => label === '*';
    expect(await answers(true, publicOnly)).toEqual(await answers(false, publicOnly));
  });
  it('a user with the attribute gets more, and a different ranking (so the test can tell)', async () => {
    const cleared = await answers(true, (label) => label === '*' || label === 'secret');
    const publicOnly = await answers(true, (label) => label === '*');
    expect(cleared).not.toEqual(publicOnly);
    const uris = (a: unknown) => ((a as Obj).nodes as Obj[]).map((n) => (n.uri as string).slice(EX.length));
    // "apple": :d appears for the cleared user only (ties with :a, ordered by IRI).
    expect(uris((cleared[0] as Obj).all)).toEqual(['b', 'a', 'd']);
    expect(uris((publicOnly[0] as Obj).all)).toEqual(['b', 'a']);
    expect(uris((publicOnly[2] as Obj).all)).toEqual([]);
    expect(((publicOnly[0] as Obj).one as Obj).maybeMore).toBe(true);
    expect(((publicOnly[2] as Obj).one as Obj).maybeMore).toBe(false);
    // The type filter uses visible types only.
    expect((cleared[1] as Obj).typed).toEqual([{ uri: `${EX}c` }]);
    expect((publicOnly[1] as Obj).typed).toEqual([]);
  });
});
