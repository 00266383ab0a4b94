/**
 * Property path evaluation over ids (SPARQL 1.1 §9.3, §18.4): the (start, end) pairs a path
 * connects in one graph (or the merge of several). Links, sequences and alternatives give
 * multisets, like the triple patterns and unions they stand for; a negated property set gives each
 * pair once (its definition is a set of pairs); `*`, `+` and `?` give each (start, end) pair at
 * most once (§18.4 ALP), found by breadth-first search over ids.
 * A zero-length path connects every node to itself: with both ends unbound that is every subject
 * and object of the graph; with one end bound, that term (even when the graph lacks it).
 */
import type { QuadPattern } from '@ianode/rdf';
import type { PathExpr } from '../algebra/plan.js';
import type { QueryContext } from '../engine/context.js';

export type Emit = (s: number, o: number) => void;

/** Whether a scan yields anything (stops at the first quad; a count would read the whole range). */
function any(batches: Iterable<{ length: number }>): boolean {
  for (const b of batches) if (b.length > 0) return true;
  return false;
}

/** Reachability results kept for reuse within one evaluation (ids held in all sets together). */
const MEMO_LIMIT = 1 << 20;

export class PathEvaluator {
  private nodeList: Uint32Array | undefined;
  private readonly memo = new Map<PathExpr, Map<number, Uint32Array>>();
  private memoSize = 0;
  private steps = 0;
  private readonly nodeCache = new Map<number, boolean>();

  constructor(
    private readonly q: QueryContext,
    private readonly graphs: readonly number[],
  ) {}

  /** Every (s, p, o) in the graphs matching the bound positions (0 = any). */
  scan(s: number, p: number, o: number, emit: (s: number, p: number, o: number) => void): void {
    const seen = this.graphs.length > 1 ? new Set<string>() : undefined;
    for (const g of this.graphs) {
      const pattern: QuadPattern = { s: s || undefined, p: p || undefined, o: o || undefined, g };
      for (const b of this.q.dataset.matchBatches(pattern, 64)) {
        if (++this.steps % 64 === 0) this.q.tick();
        const n = b.length;
        // Copy: `emit` may scan again, and the dataset may reuse the batch's arrays.
        const bs = b.s.slice(0, n);
        const bp = b.p.slice(0, n);
        const bo = b.o.slice(0, n);
        for (let i = 0; i < n; i++) {
          if (seen !== undefined) {
            const k = `${bs[i]} ${bp[i]} ${bo[i]}`;
            if (seen.has(k)) continue;
            seen.add(k);
          }
          emit(bs[i]!, bp[i]!, bo[i]!);
        }
      }
    }
  }

  /** Whether `id` is a subject or object of the graphs. */
  hasNode(id: number): boolean {
    let known = this.nodeCache.get(id);
    if (known === undefined) {
      const ds = this.q.dataset;
      known = this.graphs.some((g) => any(ds.matchBatches({ s: id, g }, 1)) || any(ds.matchBatches({ o: id, g }, 1)));
      if (this.nodeCache.size >= 1 << 16) this.nodeCache.clear();
      this.nodeCache.set(id, known);
    }
    return known;
  }

  /** Every subject and object of the graphs. */
  nodes(): Uint32Array {
    if (this.nodeList === undefined) {
      const set = new Set<number>();
      for (const g of this.graphs) {
        for (const b of this.q.dataset.matchBatches({ g })) {
          this.q.tick();
          for (let i = 0; i < b.length; i++) {
            set.add(b.s[i]!);
            set.add(b.o[i]!);
          }
          this.q.checkBudget(set.size, 'a zero-length path over all nodes');
        }
      }
      this.nodeList = Uint32Array.from(set);
    }
    return this.nodeList;
  }

  /** Emit the pairs `path` connects, with `s` / `o` fixed when non-zero. */
  pairs(path: PathExpr, s: number, o: number, emit: Emit): void {
    switch (path.type) {
      case 'link':
        this.scan(s, path.iri.id, o, (x, _p, y) => emit(x, y));
        return;
      case 'inv':
        this.pairs(path.path, o, s, (x, y) => emit(y, x));
        return;
      case 'nps': {
        // A set of pairs (§18.4 NPS): two predicates linking the same nodes give one pair.
        const excluded = new Set(path.iris.map((i) => i.id));
        const seen = new Set<number | string>();
        this.scan(s, 0, o, (x, p, y) => {
          if (excluded.has(p)) return;
          const k = s !== 0 ? y : o !== 0 ? x : `${x} ${y}`;
          if (seen.has(k)) return;
          seen.add(k);
          emit(x, y);
        });
        return;
      }
      case 'alt':
        for (const item of path.items) this.pairs(item, s, o, emit);
        return;
      case 'seq':
        this.seq(path.items, 0, s, o, emit);
        return;
      case 'zeroOrOne':
        this.zeroOrOne(path.path, s, o, emit);
        return;
      case 'zeroOrMore':
      case 'oneOrMore':
        this.closure(path.path, path.type === 'zeroOrMore', s, o, emit);
        return;
    }
  }

  private seq(items: PathExpr[], from: number, s: number, o: number, emit: Emit): void {
    const first = items[from]!;
    if (from === items.length - 1) {
      this.pairs(first, s, o, emit);
      return;
    }
    if (s === 0 && o !== 0) {
      // Bound end first: walk the rest backwards from o, then the first step back to s.
      this.seq(items, from + 1, 0, o, (m, y) => this.pairs(first, 0, m, (x) => emit(x, y)));
      return;
    }
    this.pairs(first, s, 0, (x, m) => this.seq(items, from + 1, m, o, (_m, y) => emit(x, y)));
  }

  private zeroOrOne(path: PathExpr, s: number, o: number, emit: Emit): void {
    if (s !== 0 || o !== 0) {
      const fromS = s !== 0;
      const start = fromS ? s : o;
      const seen = new Set<number>([start]);
      if (!fromS || o === 0 || o === s) emit(start, start);
      const step = (x: number, y: number): void => {
        const other = fromS ? y : x;
        if (seen.has(other)) return;
        seen.add(other);
        emit(x, y);
      };
      this.pairs(path, s, o, step);
      return;
    }
    const seen = new Set<string>();
    for (const n of this.nodes()) {
      seen.add(`${n} ${n}`);
      emit(n, n);
    }
    this.pairs(path, 0, 0, (x, y) => {
      const k = `${x} ${y}`;
      if (seen.has(k)) return;
      seen.add(k);
      emit(x, y);
    });
  }

  /** `path*` (withSelf) or `path+`. */
  private closure(path: PathExpr, withSelf: boolean, s: number, o: number, emit: Emit): void {
    if (s !== 0) {
      for (const y of this.reach(path, false, withSelf, s)) if (o === 0 || y === o) emit(s, y);
      return;
    }
    if (o !== 0) {
      for (const x of this.reach(path, true, withSelf, o)) emit(x, o);
      return;
    }
    for (const n of this.nodes()) for (const y of this.reach(path, false, withSelf, n)) emit(n, y);
  }

  /** The nodes reachable from `start` by one or more steps of `path` (backwards with `inverse`),
   * plus `start` itself with `withSelf`; each once. */
  reach(path: PathExpr, inverse: boolean, withSelf: boolean, start: number): Uint32Array {
    const key: PathExpr = path;
    let byStart = this.memo.get(key);
    const memoKey = start * 4 + (inverse ? 2 : 0) + (withSelf ? 1 : 0);
    const hit = byStart?.get(memoKey);
    if (hit !== undefined) return hit;
    const visited = new Set<number>();
    const found: number[] = [];
    if (withSelf) {
      visited.add(start);
      found.push(start);
    }
    const queue = [start];
    const expanded = new Set<number>();
    while (queue.length > 0) {
      const n = queue.pop()!;
      if (expanded.has(n)) continue;
      expanded.add(n);
      const visit = (m: number): void => {
        if (visited.has(m)) return;
        visited.add(m);
        found.push(m);
        queue.push(m);
      };
      if (inverse) this.pairs(path, 0, n, (x) => visit(x));
      else this.pairs(path, n, 0, (_x, y) => visit(y));
      this.q.checkBudget(found.length, 'a property path');
    }
    const result = Uint32Array.from(found);
    if (this.memoSize + result.length <= MEMO_LIMIT) {
      if (byStart === undefined) {
        byStart = new Map();
        this.memo.set(key, byStart);
      }
      byStart.set(memoKey, result);
      this.memoSize += result.length;
    }
    return result;
  }
}
