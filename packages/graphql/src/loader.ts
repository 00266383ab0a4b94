/**
 * Per-request data access for the traversal schema: every read goes through the caller's Dataset
 * view (SPEC §3, one enforcement point) and is memoised per request, DataLoader-style, so a deep
 * query reads each pattern once however many fields ask for it:
 *
 *   (s, ?, ?, g)  one scan per node: serves `properties`, `outRels`, `types`, `relCounts.outRels`
 *   (?, ?, o, g)  one scan per node: serves `inRels`, `instances`, `relCounts.inRels`, `states`
 *   (?, p, ?, g)  for `getAllEntities` (p = rdf:type) and the "used as a predicate" existence check
 *
 * `scans` counts every call into the dataset (match, matchBatches, count) for tests and benchmarks.
 * Edges are sorted by term id (predicate, then the other end), a stable order within one store.
 */
import { namedNode, type Dataset, type QuadPattern } from '@ianode/rdf';
import { TraversalError } from './errors.js';

export const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/** Edges of one node in one graph: parallel arrays, sorted by (p, other). */
export interface Edges {
  /** Predicate ids. */
  p: Uint32Array;
  /** The other end: object ids for out-edges, subject ids for in-edges. */
  other: Uint32Array;
}

export interface LoaderOptions {
  /** Epoch milliseconds after which reads stop with a QUERY_TIMEOUT error. */
  deadline?: number | undefined;
}

export class TraversalLoader {
  /** Dataset calls made so far by this request. */
  scans = 0;
  private readonly out = new Map<number, Map<number, Edges>>();
  private readonly in = new Map<number, Map<number, Edges>>();
  private readonly literal = new Map<number, boolean>();
  private rdfTypeId: number | undefined | null = null;

  constructor(
    readonly dataset: Dataset,
    private readonly options: LoaderOptions = {},
  ) {}

  /** The id of rdf:type in this dataset (undefined when never seen). */
  get rdfType(): number | undefined {
    if (this.rdfTypeId === null) this.rdfTypeId = this.dataset.lookup(namedNode(RDF_TYPE));
    return this.rdfTypeId;
  }

  /** Quads (s, ?, ?, g), memoised. */
  outEdges(s: number, g: number): Edges {
    return this.memo(this.out, s, g, () => this.collect({ s, g }, 'o'));
  }

  /** Quads (?, ?, o, g), memoised. */
  inEdges(o: number, g: number): Edges {
    return this.memo(this.in, o, g, () => this.collect({ o, g }, 's'));
  }

  /** Subjects of (?, p, ?, g), in id order, distinct. */
  subjectsOf(p: number, g: number): number[] {
    const edges = this.collect({ p, g }, 's');
    const seen: number[] = [];
    for (const s of [...edges.other].sort((a, b) => a - b)) if (seen[seen.length - 1] !== s) seen.push(s);
    return seen;
  }

  /** Whether the term with this id occurs in some visible quad of graph g (any position). */
  occurs(id: number, g: number): boolean {
    if (this.outEdges(id, g).p.length > 0 || this.inEdges(id, g).p.length > 0) return true;
    this.tick();
    return this.dataset.count({ p: id, g }) > 0;
  }

  /** Whether the term with this id is a literal (decided from its key; memoised). */
  isLiteral(id: number): boolean {
    let known = this.literal.get(id);
    if (known === undefined) {
      known = this.dataset.key(id).charCodeAt(0) === 34; /* " */
      this.literal.set(id, known);
    }
    return known;
  }

  private memo(cache: Map<number, Map<number, Edges>>, id: number, g: number, load: () => Edges): Edges {
    let byId = cache.get(g);
    if (byId === undefined) cache.set(g, (byId = new Map()));
    let edges = byId.get(id);
    if (edges === undefined) byId.set(id, (edges = load()));
    return edges;
  }

  /** Counts one dataset call and stops the request past its deadline (QUERY_TIMEOUT). */
  tick(): void {
    this.scans++;
    const { deadline } = this.options;
    if (deadline !== undefined && Date.now() > deadline) throw new TraversalError('QUERY_TIMEOUT', 'query cancelled: over the time limit');
  }

  /** One scan of `pattern`, keeping the predicate and the `other` column, sorted by (p, other). */
  private collect(pattern: QuadPattern, other: 's' | 'o'): Edges {
    this.tick();
    let p = new Uint32Array(16);
    let o = new Uint32Array(16);
    let n = 0;
    for (const batch of this.dataset.matchBatches(pattern)) {
      if (n + batch.length > p.length) {
        const size = Math.max(p.length * 2, n + batch.length);
        const p2 = new Uint32Array(size);
        const o2 = new Uint32Array(size);
        p2.set(p.subarray(0, n));
        o2.set(o.subarray(0, n));
        p = p2;
        o = o2;
      }
      p.set(batch.p.subarray(0, batch.length), n);
      o.set(batch[other].subarray(0, batch.length), n);
      n += batch.length;
    }
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => p[a]! - p[b]! || o[a]! - o[b]!);
    const edges: Edges = { p: new Uint32Array(n), other: new Uint32Array(n) };
    for (let i = 0; i < n; i++) {
      edges.p[i] = p[order[i]!]!;
      edges.other[i] = o[order[i]!]!;
    }
    return edges;
  }
}
