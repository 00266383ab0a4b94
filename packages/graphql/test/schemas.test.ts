/**
 * Conformance with graphql-jena's four schemas: the interface (type, field and argument names and
 * argument types, as in its core/dataset/traversal/ies .graphqls files, transcribed below in our own
 * notation) and its schema tests (TestDatasetExecution, TestTraversalExecution,
 * TestTelicentGraphExecution's states and search cases), with data and queries of our own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { getNamedType, isInputObjectType, isObjectType, type GraphQLSchema } from 'graphql';
import { openStore, type QuadStore } from '@ianode/store';
import type { Dataset } from '@ianode/rdf';
import { executeGraphql, SCHEMAS, validateGraphql, type SchemaName } from '../src/index.js';

/** `Type.field(arg: InputType, ...): NamedType` lines of the reference schemas. */
const CORE = [
  'Triple.subject: Node', 'Triple.predicate: Node', 'Triple.object: Node',
  'Node.kind: NodeKind', 'Node.value: String', 'Node.triple: Triple', 'Node.datatype: String', 'Node.language: String',
  'NodeFilter.kind: NodeKind', 'NodeFilter.value: String', 'NodeFilter.triple: TripleFilter', 'NodeFilter.datatype: String', 'NodeFilter.language: String',
  'TripleFilter.subject: NodeFilter', 'TripleFilter.predicate: NodeFilter', 'TripleFilter.object: NodeFilter',
];
const INTERFACE: Record<SchemaName, string[]> = {
  dataset: [
    ...CORE,
    'Quad.subject: Node', 'Quad.predicate: Node', 'Quad.object: Node', 'Quad.graph: Node',
    'Quads.quads(subject: NodeFilter, predicate: NodeFilter, object: NodeFilter, graph: NodeFilter): Quad',
  ],
  traversal: [
    ...CORE,
    'Traversal.nodes(starts: NodeFilter): TraversalNode',
    'TraversalNode.node: Node',
    'TraversalNode.outgoing(predicate: NodeFilter, kinds: NodeKind): TraversalEdge',
    'TraversalNode.incoming(predicate: NodeFilter, kinds: NodeKind): TraversalEdge',
    'TraversalEdge.edge: Node', 'TraversalEdge.direction: EdgeDirection', 'TraversalEdge.target: TraversalNode',
  ],
  ies: [
    'Node.id: ID', 'Node.uri: String', 'Node.uriHash: String', 'Node.shortUri: String',
    'Node.types(limit: Int, offset: Int): Node', 'Node.properties(limit: Int, offset: Int): Property',
    'Node.outRels(limit: Int, offset: Int, predicateFilter: UriFilter, typeFilter: UriFilter, nodeFilter: UriFilter): Rel',
    'Node.inRels(limit: Int, offset: Int, predicateFilter: UriFilter, typeFilter: UriFilter, nodeFilter: UriFilter): Rel',
    'Node.relCounts: NodeRelCounts', 'Node.relFacets: NodeRelFacets', 'Node.instances(limit: Int, offset: Int): Node',
    'Rel.id: ID', 'Rel.domain: Node', 'Rel.domain_id: String', 'Rel.predicate: String', 'Rel.range_id: String', 'Rel.range: Node',
    'NodeRelCounts.inRels(predicateFilter: UriFilter, typeFilter: UriFilter, nodeFilter: UriFilter): Int',
    'NodeRelCounts.outRels(predicateFilter: UriFilter, typeFilter: UriFilter, nodeFilter: UriFilter): Int',
    'NodeRelCounts.properties: Int', 'NodeRelCounts.types: Int', 'NodeRelCounts.instances: Int',
    'NodeRelFacets.inRels: RelFacetInfo', 'NodeRelFacets.outRels: RelFacetInfo',
    'RelFacetInfo.types(typeFilter: UriFilter, nodeFilter: UriFilter): FacetInfo',
    'RelFacetInfo.predicates(predicateFilter: UriFilter, nodeFilter: UriFilter): FacetInfo',
    'FacetInfo.uri: String', 'FacetInfo.shortUri: String', 'FacetInfo.count: Int',
    'Property.predicate: String', 'Property.shortPredicate: String', 'Property.value: String', 'Property.datatype: String', 'Property.language: String',
    'UriFilter.values: String', 'UriFilter.mode: FilterMode',
    'State.uri: String', 'State.type: String', 'State.start: String', 'State.end: String', 'State.period: String',
    'State.relations(limit: Int, offset: Int): NonDirectionalRel', 'State.relCounts: StateRelCounts',
    'StateRelCounts.relations: Int', 'NonDirectionalRel.predicate: String', 'NonDirectionalRel.entity: Node',
    'SearchResults.searchTerm: String', 'SearchResults.searchType: SearchType', 'SearchResults.limit: Int', 'SearchResults.offset: Int',
    'SearchResults.maybeMore: Boolean', 'SearchResults.nodes: Node',
    'Query.search(graph: String, searchTerm: String, searchType: SearchType, limit: Int, offset: Int, typeFilter: String): Node',
    'Query.searchWithMetadata(graph: String, searchTerm: String, searchType: SearchType, limit: Int, offset: Int, typeFilter: String): SearchResults',
    'Query.getAllEntities(graph: String): Node',
    'Query.states(uri: String, limit: Int, offset: Int): State',
    'Query.node(graph: String, uri: String): Node',
    'Query.nodes(graph: String, uris: String, limit: Int, offset: Int): Node',
  ],
};
const ENUMS: Record<string, string[]> = {
  NodeKind: ['URI', 'BLANK', 'PLAIN_LITERAL', 'LANGUAGE_LITERAL', 'TYPED_LITERAL', 'VARIABLE', 'TRIPLE'],
  EdgeDirection: ['OUT', 'IN'],
  FilterMode: ['INCLUDE', 'EXCLUDE'],
  SearchType: ['QUERY', 'TERM', 'PHRASE', 'WILDCARD'],
};

function signatures(schema: GraphQLSchema): Set<string> {
  const out = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type)) {
      for (const f of Object.values(type.getFields())) {
        const args = f.args.map((a) => `${a.name}: ${getNamedType(a.type).name}`);
        out.add(`${type.name}.${f.name}${args.length ? `(${args.join(', ')})` : ''}: ${getNamedType(f.type).name}`);
        // Our extra arguments (deprecated aliases, paging) may follow; the reference's must be there.
        for (let k = 0; k <= args.length; k++) out.add(`${type.name}.${f.name}${k ? `(${args.slice(0, k).join(', ')})` : ''}: ${getNamedType(f.type).name}`);
      }
    } else if (isInputObjectType(type)) {
      for (const f of Object.values(type.getFields())) out.add(`${type.name}.${f.name}: ${getNamedType(f.type).name}`);
    }
  }
  return out;
}

describe('the interface of graphql-jena\'s schemas', () => {
  for (const name of ['dataset', 'traversal', 'ies'] as SchemaName[]) {
    it(`${name}: every reference type, field and argument is there`, () => {
      const ours = signatures(SCHEMAS[name]);
      const missing = INTERFACE[name].filter((line) => !ours.has(line));
      expect(missing).toEqual([]);
      for (const [enumName, values] of Object.entries(ENUMS)) {
        const type = SCHEMAS[name].getType(enumName);
        if (type === undefined || type === null) continue;
        expect((type as import('graphql').GraphQLEnumType).getValues().map((v) => v.name)).toEqual(values);
      }
    });
  }
  it('root types are named as in the reference (Quads, Traversal, Query)', () => {
    expect(SCHEMAS.dataset.getQueryType()!.name).toBe('Quads');
    expect(SCHEMAS.traversal.getQueryType()!.name).toBe('Traversal');
    expect(SCHEMAS.ies.getQueryType()!.name).toBe('Query');
  });
  it('paging defaults are declared in the schema (limit 50, offset 1)', () => {
    const states = SCHEMAS.ies.getQueryType()!.getFields().states!;
    expect(states.args.find((a) => a.name === 'limit')!.defaultValue).toBe(50);
    expect(states.args.find((a) => a.name === 'offset')!.defaultValue).toBe(1);
  });
  it('a reference client selecting State.start/end/relations validates (it did not before issue 17)', () => {
    const q = 'query State($stateUri: String!) { states(uri: $stateUri) { end period start type uri relations { predicate entity { uri types { uri shortUri __typename } properties { value shortPredicate predicate __typename } __typename } __typename } __typename } }';
    expect(validateGraphql({ query: q, variables: { stateUri: 'x' } })).toEqual({ valid: true, errors: [] });
    expect(validateGraphql({ query: '{ quads { subject { kind } } }' }, { schema: 'dataset' }).valid).toBe(true);
    expect(validateGraphql({ query: '{ quads { subject { kind } } }' }).valid).toBe(false);
    expect(validateGraphql({ query: '{ nodes(starts: []) { node { value } } }' }, { schema: 'traversal' }).valid).toBe(true);
    const bad = validateGraphql({ query: '{ nodes(starts: []) { node { colour } } }' }, { schema: 'traversal' });
    expect(bad.errors[0]).toMatchObject({ message: 'Cannot query field "colour" on type "Node".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
  });
});

const stores: QuadStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});
async function load(trig: string): Promise<Dataset> {
  const store = await openStore({});
  stores.push(store);
  if (trig.trim() !== '') await store.load(trig, { format: 'application/trig' });
  return store.view(() => true);
}
function data(ds: Dataset, schema: SchemaName, query: string, variables?: Record<string, unknown>): Record<string, unknown> {
  const { body } = executeGraphql(ds, { query, variables }, { schema });
  expect(body.errors).toBeUndefined();
  return body.data!;
}
type Obj = Record<string, unknown>;
const RDFS_COMMENT = 'http://www.w3.org/2000/01/rdf-schema#comment';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const ALL_QUADS = '{ quads { subject { kind value } predicate { kind value } object { kind value language datatype } graph { kind value } } }';

/** 100 dummy quads: <https://example.org/{i}> rdfs:comment "foo"@en-GB (as the reference's generator). */
const dummy = (n: number) => Array.from({ length: n }, (_, i) => `<https://example.org/${i}> <${RDFS_COMMENT}> "foo"@en-GB .`).join('\n');

describe('Dataset schema (TestDatasetExecution)', () => {
  it('empty dataset: no quads', async () => {
    expect(data(await load(''), 'dataset', ALL_QUADS)).toEqual({ quads: [] });
  });
  it('a blank subject with a language-tagged comment', async () => {
    const quads = data(await load(`_:b <${RDFS_COMMENT}> "foo"@en-gb .`), 'dataset', ALL_QUADS).quads as Obj[];
    expect(quads).toHaveLength(1);
    expect((quads[0]!.subject as Obj).kind).toBe('BLANK');
    expect(quads[0]!.predicate).toEqual({ kind: 'URI', value: RDFS_COMMENT });
    expect(quads[0]!.object).toMatchObject({ kind: 'LANGUAGE_LITERAL', value: 'foo', datatype: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString' });
    expect(quads[0]!.graph).toEqual({ kind: 'URI', value: 'urn:x-arq:DefaultGraph' });
  });
  it('filtered by subject: one of 100', async () => {
    const quads = data(await load(dummy(100)), 'dataset', '{ quads(subject: { kind: URI, value: "https://example.org/13" }) { subject { kind value } } }').quads as Obj[];
    expect(quads).toEqual([{ subject: { kind: 'URI', value: 'https://example.org/13' } }]);
  });
  it('filters as variables: predicate matches 100, rdf:type none, one subject one', async () => {
    const ds = await load(dummy(100));
    const q = 'query Q($subject: NodeFilter, $predicate: NodeFilter) { quads(subject: $subject, predicate: $predicate) { predicate { kind value } object { kind value language } } }';
    const all = data(ds, 'dataset', q, { predicate: { kind: 'URI', value: RDFS_COMMENT } }).quads as Obj[];
    expect(all).toHaveLength(100);
    for (const quad of all) expect(quad.object).toMatchObject({ kind: 'LANGUAGE_LITERAL', value: 'foo' });
    expect(data(ds, 'dataset', q, { predicate: { kind: 'URI', value: RDF_TYPE } }).quads).toEqual([]);
    expect(data(ds, 'dataset', q, { subject: { kind: 'URI', value: 'https://example.org/57' } }).quads).toHaveLength(1);
    // An object filter naming the literal exactly (value, language).
    expect(data(ds, 'dataset', '{ quads(object: { kind: LANGUAGE_LITERAL, value: "foo", language: "en-GB" }) { subject { value } } }').quads).toHaveLength(100);
  });
  it('aliases: 1 type declaration, 11 instances (the type itself is an rdfs:Class instance)', async () => {
    let trig = `<https://example.org/my-type> <${RDF_TYPE}> <http://www.w3.org/2000/01/rdf-schema#Class> .\n`;
    for (let i = 1; i <= 10; i++) trig += `<https://example.org/instances/${i}> <${RDF_TYPE}> <https://example.org/my-type> .\n`;
    const result = data(await load(trig), 'dataset', `{
      types: quads(predicate: { kind: URI, value: "${RDF_TYPE}" }, object: { kind: URI, value: "http://www.w3.org/2000/01/rdf-schema#Class" }) { subject { kind value } }
      instances: quads(predicate: { kind: URI, value: "${RDF_TYPE}" }) { subject { kind value } }
    }`);
    expect(result.types).toHaveLength(1);
    expect(result.instances).toHaveLength(11);
    for (const item of result.instances as Obj[]) expect(Object.keys(item)).toEqual(['subject']);
  });
  it('fragments', async () => {
    const quads = data(await load(dummy(100)), 'dataset', '{ quads { subject { ...N } predicate { ...N } object { ...N } } } fragment N on Node { kind value }').quads as Obj[];
    expect(quads).toHaveLength(100);
    expect(quads[0]!.predicate).toEqual({ kind: 'URI', value: RDFS_COMMENT });
  });
  it('the graph field of a quad in a named graph', async () => {
    const quads = data(await load(`<https://example.org/graph> { <https://example.org/subject> <${RDFS_COMMENT}> "bar"@en-gb . }`), 'dataset', ALL_QUADS).quads as Obj[];
    expect(quads).toHaveLength(1);
    expect(quads[0]!.graph).toEqual({ kind: 'URI', value: 'https://example.org/graph' });
    expect(quads[0]!.subject).toEqual({ kind: 'URI', value: 'https://example.org/subject' });
  });
  it('a graph filter selects one graph; the default graph by its Jena name', async () => {
    const ds = await load(`<http://x/g> { <http://x/a> <http://x/p> "in g" . } <http://x/b> <http://x/p> "in default" .`);
    const by = (g: string) => (data(ds, 'dataset', `{ quads(graph: { kind: URI, value: "${g}" }) { object { value } } }`).quads as Obj[]).map((q) => (q.object as Obj).value);
    expect(by('http://x/g')).toEqual(['in g']);
    expect(by('urn:x-arq:DefaultGraph')).toEqual(['in default']);
    expect(by('http://x/none')).toEqual([]);
  });
  it('an over-long unpaged answer is an error, not a cut list', async () => {
    const { body } = executeGraphql(await load(dummy(30)), { query: '{ quads { subject { value } } }' }, { schema: 'dataset', maxItems: 20 });
    expect(body.errors![0]).toMatchObject({ extensions: { code: 'RESULT_LIMIT' } });
  });
});

/** A small social graph (our own names), as the reference's traversals.trig. */
const PEOPLE = ['Ann', 'Bob', 'Cat', 'Dan', 'Eva'];
const KNOWS: Record<string, string[]> = { Ann: ['Bob', 'Cat', 'Dan', 'Eva'], Bob: ['Ann', 'Eva'], Cat: ['Ann', 'Dan'], Dan: ['Ann', 'Cat', 'Eva'], Eva: [] };
const FOAF = 'http://xmlns.com/foaf/0.1/';
const EX = 'https://example.org/';
const SOCIAL = PEOPLE.map((p) => `<${EX}${p}> a <${FOAF}Person> ; <${FOAF}name> "${p}" ${KNOWS[p]!.map((k) => `; <${FOAF}knows> <${EX}${k}> `).join('')}.`).join('\n');
const targets = (edges: unknown) => ((edges ?? []) as Obj[]).map((e) => ((e.target as Obj).node as Obj).value as string).sort();

describe('Traversal schema (TestTraversalExecution)', () => {
  const simple = `{ nodes(starts: [{ kind: URI, value: "${EX}Ann" }]) { node { kind value } outgoing { edge { kind value } target { node { kind value } } } } }`;
  it('empty dataset: no nodes', async () => {
    expect(data(await load(''), 'traversal', simple)).toEqual({ nodes: [] });
  });
  it('one start, all its outgoing edges (type, name, four friends)', async () => {
    const nodes = data(await load(SOCIAL), 'traversal', simple).nodes as Obj[];
    expect(nodes).toHaveLength(1);
    expect(nodes[0]!.node).toEqual({ kind: 'URI', value: `${EX}Ann` });
    expect(targets(nodes[0]!.outgoing)).toEqual([`${FOAF}Person`, 'Ann', `${EX}Bob`, `${EX}Cat`, `${EX}Dan`, `${EX}Eva`].sort());
    expect((nodes[0]!.outgoing as Obj[]).every((e) => (e.edge as Obj).kind === 'URI')).toBe(true);
  });
  it('no starts: every subject; outgoing filtered by predicate gives each name', async () => {
    const nodes = data(await load(SOCIAL), 'traversal', `{ nodes { node { kind value } outgoing(predicate: [{ kind: URI, value: "${FOAF}name" }]) { target { node { value } } } } }`).nodes as Obj[];
    expect(nodes).toHaveLength(5);
    for (const n of nodes) expect(targets(n.outgoing)).toEqual([((n.node as Obj).value as string).slice(EX.length)]);
  });
  it('friends: outgoing and incoming foaf:knows of one start', async () => {
    const knows = `predicate: [{ kind: URI, value: "${FOAF}knows" }]`;
    const nodes = data(await load(SOCIAL), 'traversal', `{ nodes(starts: [{ kind: URI, value: "${EX}Ann" }]) { node { value } outgoing(${knows}) { direction target { node { value } } } incoming(${knows}) { direction target { node { value } } } } }`).nodes as Obj[];
    expect(targets(nodes[0]!.outgoing)).toEqual(['Bob', 'Cat', 'Dan', 'Eva'].map((p) => EX + p));
    expect(targets(nodes[0]!.incoming)).toEqual(['Bob', 'Cat', 'Dan'].map((p) => EX + p));
    expect((nodes[0]!.incoming as Obj[]).map((e) => e.direction)).toEqual(['IN', 'IN', 'IN']);
  });
  it('kinds: literal targets are the names; there are no blank targets (null, as the reference)', async () => {
    const ds = await load(SOCIAL);
    const lit = data(ds, 'traversal', '{ nodes { node { value } outgoing(kinds: [PLAIN_LITERAL, LANGUAGE_LITERAL, TYPED_LITERAL]) { target { node { value kind datatype } } } } }').nodes as Obj[];
    expect(lit).toHaveLength(5);
    for (const n of lit) expect(targets(n.outgoing)).toEqual([((n.node as Obj).value as string).slice(EX.length)]);
    expect(((lit[0]!.outgoing as Obj[])[0]!.target as Obj).node).toMatchObject({ kind: 'TYPED_LITERAL', datatype: 'http://www.w3.org/2001/XMLSchema#string' });
    const blanks = data(ds, 'traversal', '{ nodes { node { value } outgoing(kinds: [BLANK]) { target { node { value } } } } }').nodes as Obj[];
    expect(blanks).toHaveLength(5);
    for (const n of blanks) expect(n.outgoing).toBeNull();
  });
  it('a start seen only as an object is not a node (starts are subjects)', async () => {
    const nodes = data(await load(SOCIAL), 'traversal', `{ nodes(starts: [{ kind: URI, value: "${FOAF}Person" }]) { node { value } } }`).nodes;
    expect(nodes).toEqual([]);
  });
  it('nested traversal: friends of friends; the complexity estimate and the item budget apply', async () => {
    const q = `{ nodes(starts: [{ kind: URI, value: "${EX}Bob" }]) { outgoing(predicate: [{ kind: URI, value: "${FOAF}knows" }]) { target { outgoing(predicate: [{ kind: URI, value: "${FOAF}knows" }]) { target { node { value } } } } } } }`;
    const nodes = data(await load(SOCIAL), 'traversal', q).nodes as Obj[];
    const second = (nodes[0]!.outgoing as Obj[]).flatMap((e) => targets(((e.target as Obj).outgoing)));
    expect(second.sort()).toEqual(['Bob', 'Cat', 'Dan', 'Eva'].map((p) => EX + p));
    const { body } = executeGraphql(await load(SOCIAL), { query: q }, { schema: 'traversal', limits: { maxComplexity: 1000 } });
    expect(body.errors![0]).toMatchObject({ extensions: { code: 'COMPLEXITY_LIMIT' } });
    // The item budget: 1 start + 2 friends + their 4 friends = 7 items.
    expect(executeGraphql(await load(SOCIAL), { query: q }, { schema: 'traversal', maxItems: 7 }).body.errors).toBeUndefined();
    expect(executeGraphql(await load(SOCIAL), { query: q }, { schema: 'traversal', maxItems: 6 }).body.errors![0]).toMatchObject({ extensions: { code: 'RESULT_LIMIT' } });
  });
});

const IES = 'http://ies.data.gov.uk/ontology/ies4#';
/** A person with a birth (start), a state in a period, a membership state and a death (end). */
const LIFE = `PREFIX ies: <${IES}>
PREFIX : <${EX}>
:luke a ies:Person ; ies:hasName :lukeName .
:lukeName a ies:PersonName ; ies:representationValue "Luke Skywalker" .
:birth a ies:BirthState ; ies:isStartOf :luke ; ies:inPeriod :p1977 ; ies:inLocation :tatooine .
:p1977 a ies:ParticularPeriod ; ies:iso8601PeriodRepresentation "1977-05-25" .
:pilot a ies:PersonState ; ies:isStateOf :luke ; ies:inPeriod :p1980 .
:p1980 a ies:ParticularPeriod ; ies:iso8601PeriodRepresentation "1980" .
:pilotStart a ies:BoundingState ; ies:isStartOf :pilot ; ies:inPeriod :p1980s .
:p1980s a ies:ParticularPeriod ; ies:iso8601PeriodRepresentation "1980-05-21" .
:pilotEnd a ies:BoundingState ; ies:isEndOf :pilot ; ies:inPeriod :p1983 .
:p1983 a ies:ParticularPeriod ; ies:iso8601PeriodRepresentation "1983-05-25" .
:tatooine a ies:Location ; ies:hasName [ ies:representationValue "Tatooine desert planet" ] .
:member a ies:Member ; ies:isPartOf :luke .
:untyped ies:isStateOf :luke .
:squadron a ies:Organisation ; ies:hasMember :pilot ; ies:representationValue "Rogue Squadron pilots" .
:death a ies:DeathState ; ies:isEndOf :luke ; ies:inPeriod :p2019 .
:p2019 a ies:ParticularPeriod ; ies:iso8601PeriodRepresentation "2019-12-20" .
`;

describe('IES states (TestTelicentGraphExecution, states.graphql)', () => {
  const STATES = 'query State($stateUri: String!) { states(uri: $stateUri) { end period start type uri relCounts { relations } relations { predicate entity { uri types { uri shortUri } properties { value shortPredicate predicate } } } } }';
  it('each state with its type, period, start, end and relations', async () => {
    const states = data(await load(LIFE), 'ies', STATES, { stateUri: `${EX}luke` }).states as Obj[];
    const by = Object.fromEntries(states.map((s) => [(s.uri as string).slice(EX.length), s]));
    // isStateOf first, then isStartOf, isEndOf, ..., isPartOf (the reference's predicate order); the
    // untyped state is not a state.
    expect(states.map((s) => (s.uri as string).slice(EX.length))).toEqual(['pilot', 'birth', 'death', 'member']);
    expect(by.birth).toMatchObject({ type: `${IES}BirthState`, period: '1977-05-25', start: '1977-05-25', end: null });
    expect(by.death).toMatchObject({ type: `${IES}DeathState`, period: '2019-12-20', start: null, end: '2019-12-20' });
    expect(by.pilot).toMatchObject({ type: `${IES}PersonState`, period: '1980', start: '1980-05-21', end: '1983-05-25' });
    expect(by.member).toMatchObject({ type: `${IES}Member`, period: null, start: null, end: null });
    const rels = (s: Obj) => (s.relations as Obj[]).map((r) => `${(r.predicate as string).slice(IES.length)} ${((r.entity as Obj).uri as string).slice(EX.length)}`).sort();
    // out: not rdf:type, not the entity; in: from typed nodes.
    expect(rels(by.birth!)).toEqual(['inLocation tatooine', 'inPeriod p1977']);
    expect(rels(by.pilot!)).toEqual(['hasMember squadron', 'inPeriod p1980', 'isEndOf pilotEnd', 'isStartOf pilotStart']);
    expect(by.pilot!.relCounts).toEqual({ relations: 4 });
    const squadron = (by.pilot!.relations as Obj[]).find((r) => (r.entity as Obj).uri === `${EX}squadron`)!.entity as Obj;
    expect(squadron.types).toEqual([{ uri: `${IES}Organisation`, shortUri: 'ies:Organisation' }]);
    expect(squadron.properties).toEqual([{ value: 'Rogue Squadron pilots', shortPredicate: 'ies:representationValue', predicate: `${IES}representationValue` }]);
  });
  it('paging over states and relations; an unknown entity has none', async () => {
    const ds = await load(LIFE);
    expect((data(ds, 'ies', `{ states(uri: "${EX}luke", limit: 2, offset: 2) { uri } }`).states as Obj[]).map((s) => s.uri)).toEqual([`${EX}birth`, `${EX}death`]);
    expect(data(ds, 'ies', `{ states(uri: "${EX}nobody") { uri } }`)).toEqual({ states: [] });
  });
});

describe('IES search (TestTelicentGraphSearchExecution, with a local index)', () => {
  it('QUERY, TERM, PHRASE and WILDCARD over literals; paging metadata; type filter', async () => {
    const ds = await load(LIFE);
    const search = (args: string) => data(ds, 'ies', `{ searchWithMetadata(${args}) { searchTerm searchType limit offset maybeMore nodes { uri } } }`).searchWithMetadata as Obj;
    const uris = (r: Obj) => (r.nodes as Obj[]).map((n) => (n.uri as string).replace(EX, ''));
    expect(uris(search('searchTerm: "skywalker"'))).toEqual(['lukeName']);
    expect(search('searchTerm: "skywalker"')).toMatchObject({ searchTerm: 'skywalker', searchType: 'QUERY', limit: 50, offset: 1, maybeMore: false });
    expect(uris(search('searchTerm: "pilots rogue"'))).toEqual(['squadron']);
    expect(uris(search('searchTerm: "rogue pilots", searchType: PHRASE'))).toEqual([]);
    expect(uris(search('searchTerm: "rogue squadron", searchType: PHRASE'))).toEqual(['squadron']);
    expect(uris(search('searchTerm: "Luke", searchType: TERM'))).toEqual(['lukeName']);
    expect(uris(search('searchTerm: "Luk", searchType: TERM'))).toEqual([]);
    expect(uris(search('searchTerm: "sky* des?rt", searchType: WILDCARD'))).toEqual([]);
    expect(uris(search('searchTerm: "de?ert", searchType: WILDCARD'))).toHaveLength(1);
    expect(uris(search('searchTerm: "19*", searchType: WILDCARD')).sort()).toEqual(['p1977', 'p1980', 'p1980s', 'p1983']);
    const paged = search('searchTerm: "19*", searchType: WILDCARD, limit: 3');
    expect(paged).toMatchObject({ limit: 3, maybeMore: true });
    expect(uris(search('searchTerm: "19*", searchType: WILDCARD, limit: 3, offset: 4'))).toHaveLength(1);
    expect(uris(search(`searchTerm: "19*", searchType: WILDCARD, typeFilter: "${IES}PersonName"`))).toEqual([]);
    expect(uris(search(`searchTerm: "luke", typeFilter: "${IES}PersonName"`))).toEqual(['lukeName']);
    expect(data(ds, 'ies', '{ search(searchTerm: "skywalker") { uri } }')).toEqual({ search: [{ uri: `${EX}lukeName` }] });
  });
  it('an empty search term is an error; a bad limit too', async () => {
    const ds = await load(LIFE);
    expect(executeGraphql(ds, { query: '{ search(searchTerm: " ") { uri } }' }).body.errors![0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    expect(executeGraphql(ds, { query: '{ search(searchTerm: "a", limit: 1000) { uri } }' }).body.errors![0]).toMatchObject({ extensions: { code: 'BAD_PAGING' } });
  });
});

describe('IES relFacets and filtered counts', () => {
  it('predicate and type facets of a node; counts under the reference filter names', async () => {
    const ds = await load(LIFE);
    const node = data(ds, 'ies', `{ node(uri: "${EX}luke") {
      relCounts { inRels outRels properties types instances states: inRels(predicateFilter: { values: ["${IES}isStateOf"] }) }
      relFacets { inRels { predicates { shortUri count } types { shortUri count } } }
      noStates: inRels(typeFilter: { mode: EXCLUDE, values: ["${IES}BirthState", "${IES}DeathState"] }) { domain_id }
    } }`).node as Obj;
    expect(node.relCounts).toEqual({ inRels: 5, outRels: 2, properties: 0, types: 1, instances: 0, states: 2 });
    const facets = (node.relFacets as Obj).inRels as Obj;
    expect(facets.predicates).toEqual(expect.arrayContaining([{ shortUri: 'ies:isStateOf', count: 2 }, { shortUri: 'ies:isStartOf', count: 1 }]));
    expect(facets.types).toEqual(expect.arrayContaining([{ shortUri: 'ies:BirthState', count: 1 }, { shortUri: 'ies:PersonState', count: 1 }]));
    expect((node.noStates as Obj[]).map((r) => r.domain_id).sort()).toEqual([`${EX}member`, `${EX}pilot`, `${EX}untyped`]);
  });
});

describe('search wildcards', () => {
  it('glob matching is exact and stays fast on long tokens with many stars', async () => {
    const { globMatches } = await import('../src/index.js');
    expect(globMatches('de?ert', 'desert')).toBe(true);
    expect(globMatches('de*', 'de')).toBe(true);
    expect(globMatches('*rt', 'desert')).toBe(true);
    expect(globMatches('d*s*t', 'desert')).toBe(true);
    expect(globMatches('d?t', 'desert')).toBe(false);
    expect(globMatches('*.*', 'ab')).toBe(false);
    expect(globMatches('a.b', 'axb')).toBe(false);
    // A backtracking RegExp takes exponential time here; the matcher does pattern × text steps.
    const long = 'a'.repeat(20_000);
    expect(globMatches('*a*a*a*a*a*a*a*a*a*a*b', long)).toBe(false);
  });
});
