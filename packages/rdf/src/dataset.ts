/**
 * The Dataset interface: the only way the query engine, GraphQL and graph-store reads reach data.
 * Everything is in term ids (see dictionary.ts); terms are decoded only for expressions and output.
 *
 * Access control is a view: `view(visible)` returns a Dataset whose `match`, `matchBatches`,
 * `count` and `graphs` never reveal a quad whose label the predicate rejects.
 */
import type { TermLookup } from './dictionary.js';

/** A quad pattern over term ids; an absent position matches anything. `g` absent = every graph
 * (the default graph has id 0), `g: 0` = the default graph only. */
export interface QuadPattern {
  s?: number | undefined;
  p?: number | undefined;
  o?: number | undefined;
  g?: number | undefined;
}

export interface IdQuad {
  s: number;
  p: number;
  o: number;
  g: number;
}

/** Columns of up to `length` matching quads. The arrays may be reused by the next batch, and by
 * another `matchBatches` call once this iteration has ended: copy what you keep. */
export interface QuadBatch {
  length: number;
  s: Uint32Array;
  p: Uint32Array;
  o: Uint32Array;
  g: Uint32Array;
}

/** Decides whether a caller may see quads carrying a label (the label's text, e.g. `employee`). */
export type LabelPredicate = (label: string) => boolean;

export interface Dataset extends TermLookup {
  /** Matching quads, in the order of the index that serves the pattern. */
  match(pattern: QuadPattern): Iterable<IdQuad>;
  /** Matching quads in column batches of at most `batchSize` (default 1024). */
  matchBatches(pattern: QuadPattern, batchSize?: number): Iterable<QuadBatch>;
  /** Exactly the number of quads `match(pattern)` yields. */
  count(pattern: QuadPattern): number;
  /**
   * For query planning only: a cheap upper bound on `count(pattern)` (0 only when `count` is 0).
   * A view may answer the size of the unfiltered index range, so the figure can reflect quads the
   * caller cannot see: it may steer a plan, never reach a response. Without it, planners use
   * `count`, which on a partly visible view has to scan the range.
   */
  estimate?(pattern: QuadPattern): number;
  /** Ids of the named graphs (not the default graph) holding at least one quad of this dataset. */
  graphs(): number[];
  /** A dataset that holds only the quads of this one whose label `visible` accepts. */
  view(visible: LabelPredicate): Dataset;
}

/** What a planner should use as a pattern's size: `estimate` where the dataset has it, else the
 * exact `count`. */
export function estimateOf(dataset: Dataset, pattern: QuadPattern): number {
  return dataset.estimate ? dataset.estimate(pattern) : dataset.count(pattern);
}
