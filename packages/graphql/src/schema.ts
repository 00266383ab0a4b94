/**
 * The traversal schema of SPEC §5. Resolvers are synchronous and read only through the request's
 * `TraversalLoader` (itself over the caller's Dataset view), so a field can never see a quad the
 * caller may not see, and repeated look-ups of one node cost one scan.
 *
 * Scope: without `graph` the default graph (as in SPARQL without FROM), with `graph` that named
 * graph; nodes reached from a node keep its graph.
 */
import {
  GraphQLEnumType, GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull,
  GraphQLObjectType, GraphQLSchema, GraphQLString, type GraphQLFieldConfigArgumentMap, type GraphQLNullableType, type GraphQLType,
} from 'graphql';
import { namedNode, type Literal } from '@ianode/rdf';
import { TraversalError } from './errors.js';
import { RDF_TYPE, type TraversalLoader } from './loader.js';
import { hashText, nodeTerm, nodeText, shorten } from './terms.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 250;
/** IES4: `?state ies:isStateOf ?entity` (the reference node's `states`). */
export const IS_STATE_OF = 'http://ies.data.gov.uk/ontology/ies4#isStateOf';

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
  limit: { type: GraphQLInt, description: `At most this many (default ${DEFAULT_LIMIT}, maximum ${MAX_LIMIT}).` },
  offset: { type: GraphQLInt, description: 'The first item to return, 1-based (default 1).' },
};

const FilterMode = new GraphQLEnumType({ name: 'FilterMode', values: { INCLUDE: {}, EXCLUDE: {} } });
const RelFilter = new GraphQLInputObjectType({
  name: 'RelFilter',
  description: 'INCLUDE keeps relations matching one of the values; EXCLUDE drops them.',
  fields: {
    mode: { type: FilterMode, defaultValue: 'INCLUDE' },
    values: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))) },
  },
});
const relArgs: GraphQLFieldConfigArgumentMap = {
  predicate: { type: RelFilter, description: 'Filter on the predicate IRI.' },
  type: { type: RelFilter, description: 'Filter on an rdf:type of the node at the other end.' },
  node: { type: RelFilter, description: 'Filter on the node at the other end (IRI or _:label).' },
  ...pagingArgs,
};

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
    datatype: { type: nonNull(GraphQLString), resolve: (x, _a, c) => (c.loader.dataset.term(x.o) as Literal).datatype.value },
    language: { type: GraphQLString, resolve: (x, _a, c) => (c.loader.dataset.term(x.o) as Literal).language || null },
  },
});

const RelCounts = new GraphQLObjectType<NodeRef, TraversalContext>({
  name: 'RelCounts',
  fields: {
    outRels: { type: nonNull(GraphQLInt), resolve: (n, _a, c) => rels(c.loader, n, 'out', {}).length },
    inRels: { type: nonNull(GraphQLInt), resolve: (n, _a, c) => c.loader.inEdges(n.id, n.g).p.length },
  },
});

const Rel: GraphQLObjectType<RelRef, TraversalContext> = new GraphQLObjectType<RelRef, TraversalContext>({
  name: 'Rel',
  description: 'An IRI- or blank-node-valued triple (rdf:type included).',
  fields: () => ({
    id: { type: nonNull(GraphQLID), resolve: (r, _a, c) => [r.s, r.p, r.o].map((id) => nodeText(c.loader.dataset, id)).join(' ') },
    domain_id: { type: nonNull(GraphQLString), resolve: (r, _a, c) => nodeText(c.loader.dataset, r.s) },
    predicate: { type: nonNull(GraphQLString), resolve: (r, _a, c) => nodeText(c.loader.dataset, r.p) },
    range_id: { type: nonNull(GraphQLString), resolve: (r, _a, c) => nodeText(c.loader.dataset, r.o) },
    domain: { type: nonNull(Node), resolve: (r): NodeRef => ({ id: r.s, g: r.g }) },
    range: { type: nonNull(Node), resolve: (r): NodeRef => ({ id: r.o, g: r.g }) },
  }),
});

const Node: GraphQLObjectType<NodeRef, TraversalContext> = new GraphQLObjectType<NodeRef, TraversalContext>({
  name: 'Node',
  description: 'An IRI or blank node (`_:label`) seen in at least one visible triple.',
  fields: () => ({
    id: { type: nonNull(GraphQLID), resolve: (n, _a, c) => nodeText(c.loader.dataset, n.id) },
    uri: { type: nonNull(GraphQLString), resolve: (n, _a, c) => nodeText(c.loader.dataset, n.id) },
    shortUri: { type: nonNull(GraphQLString), resolve: (n, _a, c) => shorten(nodeText(c.loader.dataset, n.id), c.prefixes) },
    uriHash: { type: nonNull(GraphQLString), resolve: (n, _a, c) => hashText(nodeText(c.loader.dataset, n.id)) },
    types: { type: listOf(nonNull(Node)), args: pagingArgs, resolve: (n, a: Paging, c) => page(typesOf(c.loader, n), a).map((id) => ({ id, g: n.g })) },
    properties: { type: listOf(nonNull(Property)), args: pagingArgs, resolve: (n, a: Paging, c) => page(properties(c.loader, n), a) },
    outRels: { type: listOf(nonNull(Rel)), args: relArgs, resolve: (n, a: RelArgs, c) => page(rels(c.loader, n, 'out', a), a) },
    inRels: { type: listOf(nonNull(Rel)), args: relArgs, resolve: (n, a: RelArgs, c) => page(rels(c.loader, n, 'in', a), a) },
    relCounts: { type: nonNull(RelCounts), resolve: (n) => n },
    instances: {
      type: listOf(nonNull(Node)),
      description: 'Nodes whose rdf:type is this node.',
      args: pagingArgs,
      resolve: (n, a: Paging, c) => {
        const found = rels(c.loader, n, 'in', { predicate: { values: [RDF_TYPE] } });
        return page(found, a).map((r) => ({ id: r.s, g: n.g }));
      },
    },
  }),
});

const Query = new GraphQLObjectType<unknown, TraversalContext>({
  name: 'Query',
  fields: {
    node: {
      type: Node,
      description: 'The node with this IRI (or `_:label`); null when it is in no visible triple of the graph.',
      args: { graph: { type: GraphQLString }, uri: { type: nonNull(GraphQLString) } },
      resolve: (_s, a: { graph?: string | null; uri: string }, c) => resolveNode(c.loader, graphId(c.loader, a.graph), a.uri),
    },
    nodes: {
      type: listOf(Node),
      description: 'node() for each IRI of a page of `uris`, in order (null where not found).',
      args: { graph: { type: GraphQLString }, uris: { type: listOf(nonNull(GraphQLString)) }, ...pagingArgs },
      resolve: (_s, a: { graph?: string | null; uris: string[] } & Paging, c) => {
        const g = graphId(c.loader, a.graph);
        return page(a.uris, a).map((uri) => resolveNode(c.loader, g, uri));
      },
    },
    getAllEntities: {
      type: listOf(nonNull(Node)),
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
      type: listOf(nonNull(Node)),
      description: 'States of an entity: nodes `?state ies:isStateOf <uri>` (default graph).',
      args: { uri: { type: nonNull(GraphQLString) }, ...pagingArgs },
      resolve: (_s, a: { uri: string } & Paging, c) => {
        const node = resolveNode(c.loader, 0, a.uri);
        if (node === null) return page([], a);
        return page(rels(c.loader, node, 'in', { predicate: { values: [IS_STATE_OF] } }), a).map((r) => ({ id: r.s, g: 0 }));
      },
    },
  },
});

/** The schema (built once; stateless: all per-request state is in the context). */
export const traversalSchema = new GraphQLSchema({ query: Query });
