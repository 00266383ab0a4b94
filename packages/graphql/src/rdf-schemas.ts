/**
 * graphql-jena's two RDF-centric schemas, over the request's Dataset (the caller's view):
 *
 *   Dataset   `quads(subject, predicate, object, graph: NodeFilter): [Quad!]!` — the quads matching
 *             the filters, every graph (default graph included) when `graph` is not given.
 *   Traversal `nodes(starts: [NodeFilter!]): [TraversalNode!]!`, then `outgoing` / `incoming`
 *             edges of each node, filtered by predicate and by the kind of the node at the other end.
 *
 * The SDL is ours (same type, field and argument names as the reference: the interface); the
 * resolvers follow the reference's answers: starts are distinct subjects of some quad (a node seen
 * only as an object is not a start), edges span every graph, and an empty edge list is `null`.
 * Lists here are unpaged as in the reference, so a request has a budget of `maxItems` list items in
 * all (quads, nodes and edges together): past it, a RESULT_LIMIT error, not a silently cut answer.
 * The items counted are those of the caller's view, so the error reveals nothing hidden.
 */
import { buildSchema, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import type { Dataset, QuadPattern } from '@ianode/rdf';
import { CORE_SDL, coreNode, filterId, kindOf, type NodeFilterArg, type NodeKind } from './core.js';
import { TraversalError } from './errors.js';
import type { TraversalLoader } from './loader.js';

/** List items one request of the Dataset or Traversal schema may return in all. */
export const MAX_UNPAGED = 100_000;

export interface RdfContext {
  loader: TraversalLoader;
  maxItems: number;
  /** Items returned so far by this request. */
  items: number;
}

function spend(ctx: RdfContext, n: number, what: string): void {
  ctx.items += n;
  if (ctx.items > ctx.maxItems) {
    throw new TraversalError('RESULT_LIMIT', `${what}: the answer would hold more than ${ctx.maxItems} list items; narrow the filters or the starts`);
  }
}

interface QuadRef {
  s: number;
  p: number;
  o: number;
  g: number;
}

const DATASET_SDL = `${CORE_SDL}
schema {
  query: Quads
}

type Quads {
  "Quads matching every given filter; a filter left out (or null) matches anything."
  quads(subject: NodeFilter, predicate: NodeFilter, object: NodeFilter, graph: NodeFilter): [Quad!]!
}
`;

const TRAVERSAL_SDL = `${CORE_SDL}
schema {
  query: Traversal
}

type Traversal {
  "Distinct subjects of the quads each start names (all subjects when starts is left out)."
  nodes(starts: [NodeFilter!]): [TraversalNode!]!
}

type TraversalNode {
  node: Node
  outgoing(predicate: [NodeFilter!], kinds: [NodeKind!]): [TraversalEdge!]
  incoming(predicate: [NodeFilter!], kinds: [NodeKind!]): [TraversalEdge!]
}

type TraversalEdge {
  edge: Node
  direction: EdgeDirection
  target: TraversalNode!
}

enum EdgeDirection {
  OUT
  IN
}
`;

/** Runs `pattern` over the view, capped. */
function collect(ctx: RdfContext, pattern: QuadPattern, what: string): QuadRef[] {
  ctx.loader.tick();
  const out: QuadRef[] = [];
  for (const q of ctx.loader.dataset.match(pattern)) {
    if (out.length > ctx.maxItems) spend(ctx, out.length, what);
    out.push({ s: q.s, p: q.p, o: q.o, g: q.g });
  }
  return out;
}

const nodeOf = (field: keyof QuadRef): GraphQLFieldResolver<QuadRef, RdfContext> => (q, _a, c) => coreNode(c.loader.dataset, q[field]);

function datasetSchemaOf(): GraphQLSchema {
  const schema = buildSchema(DATASET_SDL);
  const quads = schema.getQueryType()!.getFields().quads!;
  quads.resolve = (_s, a: Record<'subject' | 'predicate' | 'object' | 'graph', NodeFilterArg | null | undefined>, c: RdfContext) => {
    const ds = c.loader.dataset;
    const s = filterId(ds, a.subject, 'quads(subject)');
    const p = filterId(ds, a.predicate, 'quads(predicate)');
    const o = filterId(ds, a.object, 'quads(object)');
    const g = filterId(ds, a.graph, 'quads(graph)');
    if (s === null || p === null || o === null || g === null) return [];
    const found = collect(c, { s, p, o, g }, 'quads');
    spend(c, found.length, 'quads');
    return found;
  };
  const quad = schema.getType('Quad') as import('graphql').GraphQLObjectType;
  const fields = quad.getFields();
  fields.subject!.resolve = nodeOf('s');
  fields.predicate!.resolve = nodeOf('p');
  fields.object!.resolve = nodeOf('o');
  fields.graph!.resolve = nodeOf('g');
  return schema;
}

interface TNode {
  id: number;
}
interface TEdge {
  p: number;
  direction: 'OUT' | 'IN';
  target: number;
}

/** Ids of a list of filters: undefined = any; unknown terms dropped (they match nothing). */
function filterIds(ds: Dataset, filters: NodeFilterArg[] | null | undefined, where: string): Array<number | undefined> {
  if (filters === undefined || filters === null) return [undefined];
  const ids = new Set<number | undefined>();
  for (const f of filters) {
    const id = filterId(ds, f, where);
    if (id !== null) ids.add(id);
  }
  return [...ids];
}

function edges(direction: 'OUT' | 'IN'): GraphQLFieldResolver<TNode, RdfContext, { predicate?: NodeFilterArg[] | null; kinds?: NodeKind[] | null }> {
  const field = direction === 'OUT' ? 'outgoing' : 'incoming';
  return (n, a, c) => {
    const ds = c.loader.dataset;
    const kinds = a.kinds === undefined || a.kinds === null ? undefined : new Set(a.kinds);
    const out: TEdge[] = [];
    for (const p of filterIds(ds, a.predicate, `${field}(predicate)`)) {
      if (p === 0) continue;
      const quads = collect(c, direction === 'OUT' ? { s: n.id, p } : { p, o: n.id }, field);
      for (const q of quads) {
        const target = direction === 'OUT' ? q.o : q.s;
        if (kinds !== undefined && !kinds.has(kindOf(ds.term(target)))) continue;
        out.push({ p: q.p, direction, target });
      }
    }
    spend(c, out.length, field);
    return out.length > 0 ? out : null;
  };
}

function traversalSchemaOf(): GraphQLSchema {
  const schema = buildSchema(TRAVERSAL_SDL);
  schema.getQueryType()!.getFields().nodes!.resolve = (_s, a: { starts?: NodeFilterArg[] | null }, c: RdfContext): TNode[] => {
    const ds = c.loader.dataset;
    const seen = new Set<number>();
    const out: TNode[] = [];
    for (const s of filterIds(ds, a.starts, 'nodes(starts)')) {
      if (s === 0) continue;
      // Distinct subjects, without holding the quads: all subjects of a large store stay cheap
      // until they pass the item budget.
      c.loader.tick();
      for (const q of ds.match({ s })) {
        if (seen.has(q.s)) continue;
        seen.add(q.s);
        out.push({ id: q.s });
        if (out.length > c.maxItems) spend(c, out.length, 'nodes');
      }
    }
    spend(c, out.length, 'nodes');
    return out;
  };
  const node = (schema.getType('TraversalNode') as import('graphql').GraphQLObjectType).getFields();
  node.node!.resolve = (n: TNode, _a, c: RdfContext) => coreNode(c.loader.dataset, n.id);
  node.outgoing!.resolve = edges('OUT') as GraphQLFieldResolver<unknown, unknown>;
  node.incoming!.resolve = edges('IN') as GraphQLFieldResolver<unknown, unknown>;
  const edge = (schema.getType('TraversalEdge') as import('graphql').GraphQLObjectType).getFields();
  edge.edge!.resolve = (e: TEdge, _a, c: RdfContext) => coreNode(c.loader.dataset, e.p);
  edge.direction!.resolve = (e: TEdge) => e.direction;
  edge.target!.resolve = (e: TEdge): TNode => ({ id: e.target });
  return schema;
}

/** Built once; all per-request state is in the context. */
export const datasetSchema = datasetSchemaOf();
export const traversalGraphSchema = traversalSchemaOf();
