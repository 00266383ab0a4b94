/**
 * The IES schema (graphql-jena's telicent-graph schema, `ies.graphqls`; SPEC §5): `search`,
 * `searchWithMetadata`, `getAllEntities`, `states`, `node`, `nodes`, with the reference's type, field
 * and argument names (ianode's earlier filter argument names stay as deprecated aliases). Resolvers are synchronous and read only through the request's
 * `TraversalLoader` (itself over the caller's Dataset view), so a field can never see a quad the
 * caller may not see, and repeated look-ups of one node cost one scan.
 *
 * Scope: without `graph` the default graph (as in SPARQL without FROM), with `graph` that named
 * graph; nodes reached from a node keep its graph.
 */
import {
  GraphQLBoolean, GraphQLEnumType, GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull,
  GraphQLObjectType, GraphQLSchema, GraphQLString, type GraphQLFieldConfigArgumentMap, type GraphQLNullableType, type GraphQLType,
} from 'graphql';
import { namedNode, type Literal } from '@ianode/rdf';
import { TraversalError } from './errors.js';
import { RDF_TYPE, type TraversalLoader } from './loader.js';
import { textIndex, type SearchType as SearchTypeName } from './search.js';
import { nodeTerm, nodeText, sha1Text, shorten } from './terms.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 250;

export interface TraversalContext {
  loader: TraversalLoader;
  prefixes: Readonly<Record<string, string>>;
}

/** A node in a graph (term ids). */
export interface NodeRef {
  id: number;
  g: number;
}
interface RelRef {
  s: number;
  p: number;
  o: number;
  g: number;
}
interface PropertyRef {
  p: number;
  o: number;
}
interface Paging {
  limit?: number | null;
  offset?: number | null;
}
interface FilterArg {
  mode?: 'INCLUDE' | 'EXCLUDE' | null;
  values: string[];
}
interface RelArgs extends Paging {
  predicate?: FilterArg | null;
  type?: FilterArg | null;
  node?: FilterArg | null;
}

/** Items `offset .. offset+limit-1` (offset 1-based); bad values are GraphQL errors. */
export function page<T>(items: readonly T[], { limit, offset }: Paging): T[] {
  const n = limit ?? DEFAULT_LIMIT;
  const from = offset ?? 1;
  if (n > MAX_LIMIT) throw new TraversalError('BAD_PAGING', `limit ${n} is over the maximum of ${MAX_LIMIT}: page with limit and offset`);
  if (n < 0) throw new TraversalError('BAD_PAGING', `limit ${n} is negative`);
  if (from < 1) throw new TraversalError('BAD_PAGING', `offset ${from} is below 1: offsets are 1-based (the first item is offset 1)`);
  return items.slice(from - 1, from - 1 + n);
}

const pagingArgs: GraphQLFieldConfigArgumentMap = {
  limit: { type: GraphQLInt, defaultValue: DEFAULT_LIMIT, description: `At most this many (default ${DEFAULT_LIMIT}, maximum ${MAX_LIMIT}).` },
  offset: { type: GraphQLInt, defaultValue: 1, description: 'The first item to return, 1-based (default 1).' },
};

const FilterMode = new GraphQLEnumType({ name: 'FilterMode', values: { INCLUDE: {}, EXCLUDE: {} } });
const UriFilter = new GraphQLInputObjectType({
  name: 'UriFilter',
  description: 'INCLUDE keeps relations matching one of the values; EXCLUDE drops them.',
  fields: {
    values: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))) },
    mode: { type: FilterMode, defaultValue: 'INCLUDE' },
  },
});
const OLD_NAME = 'ianode 0.1 name, kept for its clients: use the graphql-jena name';
/** The reference's filter arguments, and ianode's earlier names for them (deprecated aliases). */
const filterArgs = (...names: Array<'predicate' | 'type' | 'node'>): GraphQLFieldConfigArgumentMap => {
  const args: GraphQLFieldConfigArgumentMap = {};
  const about = { predicate: 'Filter on the predicate IRI.', type: 'Filter on an rdf:type of the node at the other end.', node: 'Filter on the node at the other end (IRI or _:label).' };
  for (const name of names) args[`${name}Filter`] = { type: UriFilter, description: about[name] };
  for (const name of names) args[name] = { type: UriFilter, deprecationReason: `${OLD_NAME} ${name}Filter` };
  return args;
};
const relArgs: GraphQLFieldConfigArgumentMap = { ...pagingArgs, ...filterArgs('predicate', 'type', 'node') };

/** The filters of a field's arguments under either name. */
function relFilters(a: Record<string, unknown>): RelArgs {
  const pick = (name: 'predicate' | 'type' | 'node') => (a[`${name}Filter`] ?? a[name] ?? null) as FilterArg | null;
  return { predicate: pick('predicate'), type: pick('type'), node: pick('node') };
}

/** The graph id a `graph` argument names: 0 when absent, undefined when no quad ever used it. */
function graphId(loader: TraversalLoader, graph: string | null | undefined): number | undefined {
  if (graph === undefined || graph === null) return 0;
  return loader.dataset.lookup(namedNode(graph));
}

function resolveNode(loader: TraversalLoader, g: number | undefined, uri: string): NodeRef | null {
  if (g === undefined) return null;
  const id = loader.dataset.lookup(nodeTerm(uri));
  if (id === undefined || loader.isLiteral(id) || !loader.occurs(id, g)) return null;
  return { id, g };
}

/** Ids a filter names (unknown names match nothing). */
function filterIds(loader: TraversalLoader, filter: FilterArg): Set<number> {
  const ids = new Set<number>();
  for (const value of filter.values) {
    const id = loader.dataset.lookup(nodeTerm(value));
    if (id !== undefined) ids.add(id);
  }
  return ids;
}

function typesOf(loader: TraversalLoader, node: NodeRef): number[] {
  const type = loader.rdfType;
  if (type === undefined) return [];
  const { p, other } = loader.outEdges(node.id, node.g);
  const out: number[] = [];
  for (let i = 0; i < p.length; i++) if (p[i] === type && !loader.isLiteral(other[i]!)) out.push(other[i]!);
  return out;
}

/** Relations of a node (out: it is the subject; in: the object), filtered. */
function rels(loader: TraversalLoader, node: NodeRef, direction: 'out' | 'in', args: RelArgs): RelRef[] {
  const { p, other } = direction === 'out' ? loader.outEdges(node.id, node.g) : loader.inEdges(node.id, node.g);
  const tests: Array<(p: number, other: number) => boolean> = [];
  const add = (filter: FilterArg | null | undefined, matches: (ids: Set<number>, p: number, other: number) => boolean) => {
    if (filter === undefined || filter === null) return;
    const ids = filterIds(loader, filter);
    const exclude = filter.mode === 'EXCLUDE';
    tests.push((pp, oo) => matches(ids, pp, oo) !== exclude);
  };
  add(args.predicate, (ids, pp) => ids.has(pp));
  add(args.node, (ids, _pp, oo) => ids.has(oo));
  add(args.type, (ids, _pp, oo) => typesOf(loader, { id: oo, g: node.g }).some((t) => ids.has(t)));
  const out: RelRef[] = [];
  for (let i = 0; i < p.length; i++) {
    const pp = p[i]!;
    const oo = other[i]!;
    if (direction === 'out' && loader.isLiteral(oo)) continue;
    if (!tests.every((test) => test(pp, oo))) continue;
    out.push(direction === 'out' ? { s: node.id, p: pp, o: oo, g: node.g } : { s: oo, p: pp, o: node.id, g: node.g });
  }
  return out;
}

function properties(loader: TraversalLoader, node: NodeRef): PropertyRef[] {
  const { p, other } = loader.outEdges(node.id, node.g);
  const out: PropertyRef[] = [];
  for (let i = 0; i < p.length; i++) if (loader.isLiteral(other[i]!)) out.push({ p: p[i]!, o: other[i]! });
  return out;
}

const nonNull = <T extends GraphQLNullableType>(type: T) => new GraphQLNonNull(type);
const listOf = <T extends GraphQLType>(type: T) => new GraphQLNonNull(new GraphQLList(type));

const Property: GraphQLObjectType<PropertyRef, TraversalContext> = new GraphQLObjectType<PropertyRef, TraversalContext>({
  name: 'Property',
  description: 'A literal-valued triple of a node.',
  fields: {
    predicate: { type: nonNull(GraphQLString), resolve: (x, _a, c) => nodeText(c.loader.dataset, x.p) },
    shortPredicate: { type: nonNull(GraphQLString), resolve: (x, _a, c) => shorten(nodeText(c.loader.dataset, x.p), c.prefixes) },
    value: { type: nonNull(GraphQLString), resolve: (x, _a, c) => c.loader.dataset.term(x.o).value },
    datatype: { type: GraphQLString, resolve: (x, _a, c) => (c.loader.dataset.term(x.o) as Literal).datatype.value },
    language: { type: GraphQLString, resolve: (x, _a, c) => (c.loader.dataset.term(x.o) as Literal).language || null },
  },
});

const NodeRelCounts = new GraphQLObjectType<NodeRef, TraversalContext>({
  name: 'NodeRelCounts',
  description: 'Sizes of the paged lists of a node (what `limit`/`offset` page through).',
  fields: {
    inRels: { type: GraphQLInt, args: filterArgs('predicate', 'type', 'node'), resolve: (n, a, c) => rels(c.loader, n, 'in', relFilters(a)).length },
    outRels: { type: GraphQLInt, args: filterArgs('predicate', 'type', 'node'), resolve: (n, a, c) => rels(c.loader, n, 'out', relFilters(a)).length },
    properties: { type: GraphQLInt, resolve: (n, _a, c) => properties(c.loader, n).length },
    types: { type: GraphQLInt, resolve: (n, _a, c) => typesOf(c.loader, n).length },
    instances: { type: GraphQLInt, resolve: (n, _a, c) => instancesOf(c.loader, n).length },
  },
});

interface FacetRef {
  id: number;
  count: number;
}
const FacetInfo = new GraphQLObjectType<FacetRef, TraversalContext>({
  name: 'FacetInfo',
  fields: {
    uri: { type: nonNull(GraphQLString), resolve: (f, _a, c) => nodeText(c.loader.dataset, f.id) },
    shortUri: { type: nonNull(GraphQLString), resolve: (f, _a, c) => shorten(nodeText(c.loader.dataset, f.id), c.prefixes) },
    count: { type: GraphQLInt, resolve: (f) => f.count },
  },
});
/** Counts by key, in first-seen order (the relations' stable order). */
function facets(keys: number[]): FacetRef[] {
  const counts = new Map<number, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].map(([id, count]) => ({ id, count }));
}
interface FacetSource {
  node: NodeRef;
  direction: 'out' | 'in';
}
const RelFacetInfo = new GraphQLObjectType<FacetSource, TraversalContext>({
  name: 'RelFacetInfo',
  fields: {
    types: {
      type: listOf(nonNull(FacetInfo)),
      description: 'rdf:types of the nodes at the other end of the relations, with how many relations reach each.',
      args: filterArgs('type', 'node'),
      resolve: (f, a, c) => {
        const found = rels(c.loader, f.node, f.direction, relFilters(a));
        return facets(found.flatMap((r) => typesOf(c.loader, { id: f.direction === 'out' ? r.o : r.s, g: f.node.g })));
      },
    },
    predicates: {
      type: listOf(nonNull(FacetInfo)),
      description: 'Predicates of the relations, with how many use each.',
      args: filterArgs('predicate', 'node'),
      resolve: (f, a, c) => facets(rels(c.loader, f.node, f.direction, relFilters(a)).map((r) => r.p)),
    },
  },
});
const NodeRelFacets = new GraphQLObjectType<NodeRef, TraversalContext>({
  name: 'NodeRelFacets',
  fields: {
    inRels: { type: nonNull(RelFacetInfo), resolve: (node): FacetSource => ({ node, direction: 'in' }) },
    outRels: { type: nonNull(RelFacetInfo), resolve: (node): FacetSource => ({ node, direction: 'out' }) },
  },
});

/** N-Triples form of a node (for Rel.id). */
const ntriples = (loader: TraversalLoader, id: number) => {
  const text = nodeText(loader.dataset, id);
  return text.startsWith('_:') ? text : `<${text}>`;
};

const Rel: GraphQLObjectType<RelRef, TraversalContext> = new GraphQLObjectType<RelRef, TraversalContext>({
  name: 'Rel',
  description: 'An IRI- or blank-node-valued triple (rdf:type included).',
  fields: () => ({
    id: {
      type: nonNull(GraphQLID),
      description: 'SHA-1 (hex) of the triple in N-Triples, "<s> <p> <o>." (as graphql-jena).',
      resolve: (r, _a, c) => sha1Text(`${ntriples(c.loader, r.s)} ${ntriples(c.loader, r.p)} ${ntriples(c.loader, r.o)}.`),
    },
    domain: { type: nonNull(Node), resolve: (r): NodeRef => ({ id: r.s, g: r.g }) },
    domain_id: { type: nonNull(GraphQLString), resolve: (r, _a, c) => nodeText(c.loader.dataset, r.s) },
    predicate: { type: nonNull(GraphQLString), resolve: (r, _a, c) => nodeText(c.loader.dataset, r.p) },
    range_id: { type: nonNull(GraphQLString), resolve: (r, _a, c) => nodeText(c.loader.dataset, r.o) },
    range: { type: nonNull(Node), resolve: (r): NodeRef => ({ id: r.o, g: r.g }) },
  }),
});

function instancesOf(loader: TraversalLoader, n: NodeRef): number[] {
  if (loader.rdfType === undefined) return [];
  return rels(loader, n, 'in', { predicate: { values: [RDF_TYPE] } }).map((r) => r.s);
}

const Node: GraphQLObjectType<NodeRef, TraversalContext> = new GraphQLObjectType<NodeRef, TraversalContext>({
  name: 'Node',
  description: 'An IRI or blank node (`_:label`) seen in at least one visible triple.',
  fields: () => ({
    id: { type: nonNull(GraphQLID), resolve: (n, _a, c) => nodeText(c.loader.dataset, n.id) },
    uri: { type: nonNull(GraphQLString), resolve: (n, _a, c) => nodeText(c.loader.dataset, n.id) },
    uriHash: { type: nonNull(GraphQLString), deprecationReason: 'as graphql-jena: a client-side key only', description: 'SHA-1 (hex) of the uri.', resolve: (n, _a, c) => sha1Text(nodeText(c.loader.dataset, n.id)) },
    shortUri: { type: nonNull(GraphQLString), resolve: (n, _a, c) => shorten(nodeText(c.loader.dataset, n.id), c.prefixes) },
    types: { type: listOf(Node), args: pagingArgs, resolve: (n, a: Paging, c) => page(typesOf(c.loader, n), a).map((id) => ({ id, g: n.g })) },
    properties: { type: listOf(Property), args: pagingArgs, resolve: (n, a: Paging, c) => page(properties(c.loader, n), a) },
    outRels: { type: listOf(Rel), args: relArgs, resolve: (n, a: Paging & Record<string, unknown>, c) => page(rels(c.loader, n, 'out', relFilters(a)), a) },
    inRels: { type: listOf(Rel), args: relArgs, resolve: (n, a: Paging & Record<string, unknown>, c) => page(rels(c.loader, n, 'in', relFilters(a)), a) },
    relCounts: { type: nonNull(NodeRelCounts), resolve: (n) => n },
    relFacets: { type: nonNull(NodeRelFacets), resolve: (n) => n },
    instances: {
      type: new GraphQLList(Node),
      description: 'Nodes whose rdf:type is this node.',
      args: pagingArgs,
      resolve: (n, a: Paging, c) => page(instancesOf(c.loader, n), a).map((id) => ({ id, g: n.g })),
    },
  }),
});

/** IES4 (graphql-jena's IesFetchers): the predicates that make `?state` a state of an entity. */
export const IES = 'http://ies.data.gov.uk/ontology/ies4#';
export const IS_STATE_OF = `${IES}isStateOf`;
export const IS_START_OF = `${IES}isStartOf`;
export const IS_END_OF = `${IES}isEndOf`;
export const IN_PERIOD = `${IES}inPeriod`;
export const ISO8601_PERIOD = `${IES}iso8601PeriodRepresentation`;
export const STATE_PREDICATES = [IS_STATE_OF, IS_START_OF, IS_END_OF, `${IES}owns`, `${IES}isPartOf`, `${IES}isParticipationOf`];

/** A state `?state <p> <entity>` (p one of STATE_PREDICATES), all in the default graph. */
interface StateRef {
  state: number;
  p: number;
  entity: number;
}
interface NonDirectionalRef {
  p: number;
  entity: number;
}

const G0 = 0;
const idOf = (loader: TraversalLoader, iri: string) => loader.dataset.lookup(namedNode(iri));

/** The first IRI/blank object of (s, p, ?) in the default graph. */
function firstObject(loader: TraversalLoader, s: number, p: number | undefined): number | undefined {
  if (p === undefined) return undefined;
  const e = loader.outEdges(s, G0);
  for (let i = 0; i < e.p.length; i++) if (e.p[i] === p && !loader.isLiteral(e.other[i]!)) return e.other[i];
  return undefined;
}
/** The lexical form of the period's ies:iso8601PeriodRepresentation (the first literal one). */
function periodValue(loader: TraversalLoader, period: number | undefined): string | null {
  const rep = idOf(loader, ISO8601_PERIOD);
  if (period === undefined || rep === undefined) return null;
  const e = loader.outEdges(period, G0);
  for (let i = 0; i < e.p.length; i++) if (e.p[i] === rep && loader.isLiteral(e.other[i]!)) return loader.dataset.term(e.other[i]!).value;
  return null;
}
const periodOf = (loader: TraversalLoader, state: number) => periodValue(loader, firstObject(loader, state, idOf(loader, IN_PERIOD)));

/** start/end: the state's own period when it is itself the start (end) of the entity, else the
 * period of a state bounding it: `?x ies:isStartOf <state>` (`ies:isEndOf`). */
function boundary(loader: TraversalLoader, s: StateRef, which: string): string | null {
  const p = idOf(loader, which);
  if (p === undefined) return null;
  if (s.p === p) {
    const own = periodOf(loader, s.state);
    if (own) return own;
  }
  const e = loader.inEdges(s.state, G0);
  for (let i = 0; i < e.p.length; i++) if (e.p[i] === p && !loader.isLiteral(e.other[i]!)) return periodOf(loader, e.other[i]!);
  return null;
}

function hasType(loader: TraversalLoader, id: number): boolean {
  return typesOf(loader, { id, g: G0 }).length > 0;
}

/** Relations of a state: its IRI/blank-valued out-triples except rdf:type and the one to its
 * entity, then in-triples from typed IRI/blank nodes. */
function stateRelations(loader: TraversalLoader, s: StateRef): NonDirectionalRef[] {
  const out: NonDirectionalRef[] = [];
  const o = loader.outEdges(s.state, G0);
  for (let i = 0; i < o.p.length; i++) {
    const other = o.other[i]!;
    if (loader.isLiteral(other) || o.p[i] === loader.rdfType || other === s.entity) continue;
    out.push({ p: o.p[i]!, entity: other });
  }
  const inn = loader.inEdges(s.state, G0);
  for (let i = 0; i < inn.p.length; i++) if (hasType(loader, inn.other[i]!)) out.push({ p: inn.p[i]!, entity: inn.other[i]! });
  return out;
}

const NonDirectionalRel = new GraphQLObjectType<NonDirectionalRef, TraversalContext>({
  name: 'NonDirectionalRel',
  fields: () => ({
    predicate: { type: nonNull(GraphQLString), resolve: (r, _a, c) => nodeText(c.loader.dataset, r.p) },
    entity: { type: nonNull(Node), resolve: (r): NodeRef => ({ id: r.entity, g: G0 }) },
  }),
});
const StateRelCounts = new GraphQLObjectType<StateRef, TraversalContext>({
  name: 'StateRelCounts',
  fields: { relations: { type: GraphQLInt, resolve: (s, _a, c) => stateRelations(c.loader, s).length } },
});
const State = new GraphQLObjectType<StateRef, TraversalContext>({
  name: 'State',
  description: 'An IES state of an entity (`?state ies:isStateOf|isStartOf|isEndOf|owns|isPartOf|isParticipationOf <entity>`, the state typed).',
  fields: {
    uri: { type: nonNull(GraphQLString), resolve: (s, _a, c) => nodeText(c.loader.dataset, s.state) },
    type: {
      type: nonNull(GraphQLString),
      description: 'The first rdf:type of the state (term order).',
      resolve: (s, _a, c) => nodeText(c.loader.dataset, typesOf(c.loader, { id: s.state, g: G0 })[0]!),
    },
    start: { type: GraphQLString, description: 'ISO 8601 start: the period of the state if it is an ies:isStartOf, else of a state that is ies:isStartOf it.', resolve: (s, _a, c) => boundary(c.loader, s, IS_START_OF) },
    end: { type: GraphQLString, description: 'ISO 8601 end, as start with ies:isEndOf.', resolve: (s, _a, c) => boundary(c.loader, s, IS_END_OF) },
    period: { type: GraphQLString, description: 'The iso8601PeriodRepresentation of the state\'s own ies:inPeriod.', resolve: (s, _a, c) => periodOf(c.loader, s.state) },
    relations: { type: listOf(NonDirectionalRel), args: pagingArgs, resolve: (s, a: Paging, c) => page(stateRelations(c.loader, s), a) },
    relCounts: { type: nonNull(StateRelCounts), resolve: (s) => s },
  },
});

function statesOf(loader: TraversalLoader, uri: string): StateRef[] {
  const entity = loader.dataset.lookup(nodeTerm(uri));
  if (entity === undefined || loader.isLiteral(entity)) return [];
  const e = loader.inEdges(entity, G0);
  const out: StateRef[] = [];
  for (const iri of STATE_PREDICATES) {
    const p = idOf(loader, iri);
    if (p === undefined) continue;
    const seen = new Set<number>();
    for (let i = 0; i < e.p.length; i++) {
      const s = e.other[i]!;
      if (e.p[i] !== p || seen.has(s) || !hasType(loader, s)) continue;
      seen.add(s);
      out.push({ state: s, p, entity });
    }
  }
  return out;
}

const SearchType = new GraphQLEnumType({ name: 'SearchType', values: { QUERY: {}, TERM: {}, PHRASE: {}, WILDCARD: {} } });
interface SearchArgs extends Paging {
  graph?: string | null;
  searchTerm: string;
  searchType?: SearchTypeName | null;
  typeFilter?: string | null;
}
interface SearchOutcome {
  searchTerm: string;
  searchType: SearchTypeName;
  limit: number;
  offset: number;
  maybeMore: boolean;
  nodes: NodeRef[];
}
const searchArgs: GraphQLFieldConfigArgumentMap = {
  graph: { type: GraphQLString },
  searchTerm: { type: nonNull(GraphQLString) },
  searchType: { type: SearchType, description: 'QUERY (default), TERM, PHRASE or WILDCARD.' },
  limit: { type: GraphQLInt, description: `At most this many (default ${DEFAULT_LIMIT}, maximum ${MAX_LIMIT}).` },
  offset: { type: GraphQLInt, description: 'The first hit to return, 1-based (default 1).' },
  typeFilter: { type: GraphQLString, description: 'Only nodes with this rdf:type (an IRI).' },
};

/** Search over the literals the caller can see (see search.ts). */
function runSearch(loader: TraversalLoader, a: SearchArgs): SearchOutcome {
  const limit = a.limit ?? DEFAULT_LIMIT;
  const offset = a.offset ?? 1;
  const searchType = a.searchType ?? 'QUERY';
  const outcome: SearchOutcome = { searchTerm: a.searchTerm, searchType, limit, offset, maybeMore: false, nodes: [] };
  if (a.searchTerm.trim() === '') throw new TraversalError('BAD_REQUEST', 'search: give a non-empty searchTerm');
  page([], { limit, offset }); // checks the paging arguments
  const g = graphId(loader, a.graph);
  if (g === undefined) return outcome;
  let hits = textIndex(loader, g).search(a.searchTerm, searchType, (x, y) => (nodeText(loader.dataset, x) < nodeText(loader.dataset, y) ? -1 : 1));
  if (a.typeFilter) {
    const type = loader.dataset.lookup(nodeTerm(a.typeFilter));
    hits = type === undefined ? [] : hits.filter((h) => typesOf(loader, { id: h.id, g }).includes(type));
  }
  outcome.nodes = page(hits, { limit, offset }).map((h) => ({ id: h.id, g }));
  outcome.maybeMore = hits.length > offset - 1 + limit;
  return outcome;
}

const SearchResults = new GraphQLObjectType<SearchOutcome, TraversalContext>({
  name: 'SearchResults',
  fields: {
    searchTerm: { type: nonNull(GraphQLString) },
    searchType: { type: nonNull(SearchType) },
    limit: { type: nonNull(GraphQLInt) },
    offset: { type: nonNull(GraphQLInt) },
    maybeMore: { type: nonNull(GraphQLBoolean), description: 'Whether hits exist after this page.' },
    nodes: { type: new GraphQLList(Node) },
  },
});

const Query = new GraphQLObjectType<unknown, TraversalContext>({
  name: 'Query',
  fields: {
    search: {
      type: new GraphQLList(Node),
      deprecationReason: 'Use `searchWithMetadata` which offers richer response schema',
      description: 'Nodes whose visible literals match the search term (see searchWithMetadata).',
      args: searchArgs,
      resolve: (_s, a: SearchArgs, c) => runSearch(c.loader, a).nodes,
    },
    searchWithMetadata: {
      type: SearchResults,
      description: 'Nodes whose visible literals match the search term, best first, with the paging used.',
      args: searchArgs,
      resolve: (_s, a: SearchArgs, c) => runSearch(c.loader, a),
    },
    getAllEntities: {
      type: new GraphQLList(Node),
      description: 'Nodes with at least one rdf:type, in a stable order (paged like every list).',
      args: { graph: { type: GraphQLString }, ...pagingArgs },
      resolve: (_s, a: { graph?: string | null } & Paging, c) => {
        const g = graphId(c.loader, a.graph);
        const type = c.loader.rdfType;
        if (g === undefined || type === undefined) return page([], a);
        return page(c.loader.subjectsOf(type, g), a).map((id) => ({ id, g }));
      },
    },
    states: {
      type: listOf(State),
      description: 'States of an entity (IES4), in the default graph.',
      args: { uri: { type: nonNull(GraphQLString) }, ...pagingArgs },
      resolve: (_s, a: { uri: string } & Paging, c) => page(statesOf(c.loader, a.uri), a),
    },
    node: {
      type: Node,
      description: 'The node with this IRI (or `_:label`); null when it is in no visible triple of the graph.',
      args: { graph: { type: GraphQLString }, uri: { type: nonNull(GraphQLString) } },
      resolve: (_s, a: { graph?: string | null; uri: string }, c) => resolveNode(c.loader, graphId(c.loader, a.graph), a.uri),
    },
    nodes: {
      type: new GraphQLList(Node),
      description: 'node() for each IRI of a page of `uris`, in order (null where not found).',
      args: { graph: { type: GraphQLString }, uris: { type: listOf(nonNull(GraphQLString)) }, ...pagingArgs },
      resolve: (_s, a: { graph?: string | null; uris: string[] } & Paging, c) => {
        const g = graphId(c.loader, a.graph);
        return page(a.uris, a).map((uri) => resolveNode(c.loader, g, uri));
      },
    },
  },
});

/** The IES schema (built once; stateless: all per-request state is in the context). */
export const traversalSchema = new GraphQLSchema({ query: Query });
export const iesSchema = traversalSchema;
