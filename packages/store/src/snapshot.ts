/**
 * A consistent, read-only Dataset over one committed state of the store, optionally narrowed by a
 * visibility mask (a view). This is the single enforcement point of ABAC: every read path — match,
 * batches, counts, graph lists — goes through `scan`, which drops rows whose label the mask hides.
 */
import type { Dataset, IdQuad, LabelPredicate, QuadBatch, QuadPattern, Term } from '@ianode/rdf';
import { termToKey, type TermDictionary } from '@ianode/rdf';
import { DEFAULT_LABEL_ID, type LabelTable } from './labels.js';
import { boundPrefix, chooseOrder, ORDERS, type OrderName } from './orders.js';
import { prefixRange, runMayMatch, type Run } from './run.js';
import { VisibilityMask } from './visibility.js';

/** The row columns a state reads (RowColumns on the writer's thread; their shared arrays on a
 * query worker's). A growth may swap the arrays: read them through this object each time. */
export interface ReadColumns {
  readonly g: Uint32Array;
  readonly s: Uint32Array;
  readonly p: Uint32Array;
  readonly o: Uint32Array;
  readonly label: Uint32Array;
  /** Commit id that deleted the row, 0 = live; undefined = no row deleted yet. */
  readonly deleted: Uint32Array | undefined;
}

/** One committed state. Immutable once published (the columns only grow past `rowCount`). */
export interface StoreState {
  readonly txId: number;
  readonly cols: ReadColumns;
  readonly runs: readonly Run[];
  readonly rowCount: number;
  /** Rows deleted at or before txId (0 lets scans skip the deleted check). */
  readonly deletedRows: number;
  /** Dictionary size at publication: ids at or past it belong to a later or uncommitted
   * transaction (which may still roll back and give them to other terms). */
  readonly termCount: number;
  /** Label table size at publication (ids at or past it are uncommitted). */
  readonly labelCount: number;
  readonly dict: TermDictionary;
  readonly labels: LabelTable;
}

const MAX_ID = 0xffffffff;

export class SnapshotDataset implements Dataset {
  /** The batch of the last finished `matchBatches` call, for the next one. */
  private spare: QuadBatch | undefined;

  constructor(
    readonly state: StoreState,
    private readonly mask?: VisibilityMask,
  ) {}

  lookup(term: Term): number | undefined {
    const id = this.state.dict.lookupKey(termToKey(term));
    return id !== undefined && id < this.state.termCount ? id : undefined;
  }

  term(id: number): Term {
    return this.state.dict.term(id);
  }

  key(id: number): string {
    return this.state.dict.key(id);
  }

  termScope(): object {
    return this.state.dict.termScope();
  }

  view(visible: LabelPredicate): SnapshotDataset {
    const outer = this.mask;
    const pred: LabelPredicate = outer ? (label) => outer.predicate(label) && visible(label) : visible;
    return new SnapshotDataset(this.state, new VisibilityMask(this.state.labels, pred));
  }

  /**
   * The quads of this dataset (view) that carry a label of their own, with its text, in graph,
   * subject, predicate, object order; quads under the dataset default (label id 0) are left out,
   * as RDF-ABAC's labels store holds only given labels. For the graph server's labels dump.
   */
  *labelled(): Iterable<IdQuad & { label: string }> {
    const { state, mask } = this;
    for (const run of state.runs) {
      const perm = run.perms.gspo;
      for (let i = 0; i < perm.length; i++) {
        const r = perm[i]!;
        const { g, s, p, o, label, deleted } = state.cols;
        if (r >= state.rowCount) continue;
        if (state.deletedRows > 0 && deleted !== undefined) {
          const d = deleted[r]!;
          if (d !== 0 && d <= state.txId) continue;
        }
        const id = label[r]!;
        if (id === DEFAULT_LABEL_ID || id >= state.labelCount) continue;
        if (mask !== undefined && !mask.visible(id)) continue;
        yield { g: g[r]!, s: s[r]!, p: p[r]!, o: o[r]!, label: state.labels.text(id) };
      }
    }
  }

  *match(pattern: QuadPattern): Iterable<IdQuad> {
    for (const b of this.matchBatches(pattern)) {
      for (let i = 0; i < b.length; i++) yield { s: b.s[i]!, p: b.p[i]!, o: b.o[i]!, g: b.g[i]! };
    }
  }

  *matchBatches(pattern: QuadPattern, batchSize = 1024): Iterable<QuadBatch> {
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new TypeError(`batchSize must be a positive integer, got ${batchSize}`);
    if (!validPattern(pattern)) return;
    const order = chooseOrder(pattern);
    // Ranges first, so the batch is no bigger than the match: the engine probes once per row of
    // a nested-loop join, and most probes match a handful of quads or none.
    const ranges = this.runRanges(order, pattern);
    let total = 0;
    for (let k = 0; k < ranges.length; k += 2) total += ranges[k + 1]! - ranges[k]!;
    if (total === 0) return;
    const size = Math.min(batchSize, total);
    // A nested-loop join calls this once per probed row, one call finished before the next
    // starts: reuse the batch of a finished call (it is handed back below only when its
    // iteration has ended, so no consumer still reads it under the "copy what you keep" rule).
    let batch = this.spare;
    if (batch !== undefined && batch.s.length >= size) this.spare = undefined;
    else batch = { length: 0, s: new Uint32Array(size), p: new Uint32Array(size), o: new Uint32Array(size), g: new Uint32Array(size) };
    const { state, mask } = this;
    const { s: bs, p: bp, o: bo, g: bg } = batch;
    try {
      for (let k = 0; k < state.runs.length; k++) {
        const perm = state.runs[k]!.perms[order];
        const lo = ranges[2 * k]!;
        const hi = ranges[2 * k + 1]!;
        let i = lo;
        while (i < hi) {
          // Re-read the columns each batch: a concurrent commit may have grown (replaced) them.
          const { g, s, p, o, label, deleted } = state.cols;
          const dels = state.deletedRows > 0 ? deleted : undefined;
          const txId = state.txId;
          let n = 0;
          if (dels === undefined && mask === undefined) {
            for (; i < hi && n < size; i++, n++) {
              const r = perm[i]!;
              bs[n] = s[r]!;
              bp[n] = p[r]!;
              bo[n] = o[r]!;
              bg[n] = g[r]!;
            }
          } else {
            for (; i < hi && n < size; i++) {
              const r = perm[i]!;
              if (dels !== undefined) {
                const d = dels[r]!;
                if (d !== 0 && d <= txId) continue;
              }
              if (mask !== undefined) {
                // The mask's byte table first (1 visible, 2 hidden); 0 or past its end asks the
                // mask, which evaluates a label it has not seen yet.
                const id = label[r]!;
                const v = mask.bytes[id];
                if (v !== 1 && (v === 2 || !mask.visible(id))) continue;
              }
              bs[n] = s[r]!;
              bp[n] = p[r]!;
              bo[n] = o[r]!;
              bg[n] = g[r]!;
              n++;
            }
          }
          if (n > 0) {
            batch.length = n;
            yield batch;
          }
        }
      }
    } finally {
      batch.length = 0;
      if (this.spare === undefined || this.spare.s.length < batch.s.length) this.spare = batch;
    }
  }

  count(pattern: QuadPattern): number {
    if (!validPattern(pattern)) return 0;
    const { state, mask } = this;
    const order = chooseOrder(pattern);
    const ranges = this.runRanges(order, pattern);
    const exactRanges = state.deletedRows === 0 && (mask === undefined || mask.allVisible());
    let total = 0;
    for (let k = 0; k < state.runs.length; k++) {
      const perm = state.runs[k]!.perms[order];
      const lo = ranges[2 * k]!;
      const hi = ranges[2 * k + 1]!;
      if (exactRanges) {
        total += hi - lo;
        continue;
      }
      total += this.visibleIn(perm, lo, hi, Infinity);
    }
    return total;
  }

  /** The size of the pattern's index ranges, before the deleted and label checks: an upper bound
   * on `count` in O(runs · log n), for the planner (it can count invisible quads; see Dataset). */
  estimate(pattern: QuadPattern): number {
    if (!validPattern(pattern)) return 0;
    const ranges = this.runRanges(chooseOrder(pattern), pattern);
    let total = 0;
    for (let k = 0; k < ranges.length; k += 2) total += ranges[k + 1]! - ranges[k]!;
    return total;
  }

  /** [lo, hi) of the pattern in each run's `order` permutation, as lo0, hi0, lo1, hi1, ... With
   * several runs, a run that holds none of the pattern's subject or object is not searched. */
  private runRanges(order: OrderName, pattern: QuadPattern): number[] {
    const { state } = this;
    const keys = ORDERS[order];
    const prefix = boundPrefix(order, pattern);
    const skip = state.runs.length > 1 && (pattern.s !== undefined || pattern.o !== undefined);
    const ranges: number[] = [];
    for (const run of state.runs) {
      if (skip && !runMayMatch(state.cols, run, pattern.s, pattern.o)) {
        ranges.push(0, 0);
        continue;
      }
      const [lo, hi] = prefixRange(state.cols, keys, run.perms[order], prefix);
      ranges.push(lo, hi);
    }
    return ranges;
  }

  graphs(): number[] {
    const found = new Set<number>();
    const { state } = this;
    const keys = ORDERS.gspo;
    for (const run of state.runs) {
      const perm = run.perms.gspo;
      let i = 0;
      while (i < perm.length) {
        const gid = state.cols.g[perm[i]!]!;
        const [, hi] = prefixRange(state.cols, keys, perm, [gid]);
        if (gid !== 0 && !found.has(gid) && this.anyVisible(perm, i, hi)) found.add(gid);
        i = hi;
      }
    }
    return [...found].sort((a, b) => a - b);
  }

  private anyVisible(perm: Uint32Array, lo: number, hi: number): boolean {
    return this.visibleIn(perm, lo, hi, 1) > 0;
  }

  /** How many rows of perm[lo, hi) are live at this snapshot and visible through the mask,
   * counting no further than `limit` (1: "is there any"). The one loop of `count` and `graphs`. */
  private visibleIn(perm: Uint32Array, lo: number, hi: number, limit: number): number {
    const { state, mask } = this;
    const { label, deleted } = state.cols;
    const dels = state.deletedRows > 0 ? deleted : undefined;
    let n = 0;
    for (let i = lo; i < hi; i++) {
      const r = perm[i]!;
      if (dels !== undefined) {
        const d = dels[r]!;
        if (d !== 0 && d <= state.txId) continue;
      }
      if (mask !== undefined && !mask.visible(label[r]!)) continue;
      if (++n >= limit) return n;
    }
    return n;
  }
}

function validId(v: number | undefined): boolean {
  return v === undefined || (Number.isInteger(v) && v >= 0 && v <= MAX_ID);
}

function validPattern(p: QuadPattern): boolean {
  return validId(p.s) && validId(p.p) && validId(p.o) && validId(p.g);
}
