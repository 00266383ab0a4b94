/**
 * A write transaction's buffer and its resolution into effects.
 *
 * Added quads are written straight into the row columns past the committed row count (no copy of
 * a bulk load); deletes and label assignments are kept as a short op list with their position in
 * the add sequence. At commit, everything is sorted by quad (stable, so the order of operations
 * on one quad is kept) and each quad's operations are replayed against its stored state: the
 * result is the rows to add, the rows to delete and the pending-label changes.
 *
 * With a `writable` predicate (WriteOptions), a stored quad whose label the writer may not write
 * is left as it is: adds, deletes and label assignments of it are dropped here, at the one place
 * every write path goes through. A pending label the writer may not write stays, and a quad that
 * arrives under it takes it. What the transaction itself adds is the writer's.
 */
import { keyToTerm, termToKey, type TermDictionary } from '@ianode/rdf';
import type { KeyQuad, WriteTransaction } from './api.js';
import type { RowColumns } from './columns.js';
import { DEFAULT_LABEL_ID, type LabelTable } from './labels.js';
import { ORDERS } from './orders.js';
import { compareRows, sortRows } from './radix-sort.js';
import { findLiveRow, type Run } from './run.js';
import { VisibilityMask } from './visibility.js';

/** Label id of an add that names no label (keep the current one, else pending, else default). */
export const NO_LABEL = 0xffffffff;

const enum OpKind {
  Delete = 1,
  SetLabel = 2,
}

interface Op {
  kind: OpKind;
  /** Position in the add sequence: the op happened after adds with row < seq. */
  seq: number;
  g: number;
  s: number;
  p: number;
  o: number;
  label: number;
}

export interface Effects {
  /** New rows (ids in the columns), in SPOG order, labels final. */
  addRows: Uint32Array;
  /** Stored rows to mark deleted. */
  deleteRows: number[];
  /** Pending labels to set: quad key -> label id. */
  pendingSet: Map<string, number>;
  /** Pending labels to drop. */
  pendingDelete: string[];
  /** What the transaction did, as the writer sees it (`WriteOutcome`, label ids). */
  outcome: OutcomeCounts;
}

/**
 * The counts of a resolved transaction as the writer sees it: a stored quad or pending label the
 * writer may not write counts as absent, so the counts (and the labels the writer is told) are the
 * same whether or not such a quad exists. Labels are ids here; the store turns them into text.
 */
export interface OutcomeCounts {
  inserted: number;
  relabelled: number;
  deleted: number;
  unchanged: number;
  /** Resulting label id -> quads the transaction added or labelled that are present after it. */
  labels: Map<number, number>;
}

export function quadKey(g: number, s: number, p: number, o: number): string {
  return `${g} ${s} ${p} ${o}`;
}

export class TxBuffer implements WriteTransaction {
  readonly ops: Op[] = [];
  /** Which label ids the writer may write, each judged once (undefined: every label). */
  private readonly writableMask: VisibilityMask | undefined;

  constructor(
    private readonly dict: TermDictionary,
    private readonly labels: LabelTable,
    readonly cols: RowColumns,
    readonly firstRow: number,
    private readonly writable?: ((label: string) => boolean) | undefined,
  ) {
    // A predicate that throws fails the commit, as it fails a read (visibility.ts: the one policy).
    this.writableMask = writable === undefined ? undefined : new VisibilityMask(labels, writable);
  }

  /** Whether the writer may change a quad labelled `id`. */
  private mayWrite(id: number): boolean {
    return this.writableMask === undefined || this.writableMask.visible(id);
  }

  add(quad: KeyQuad, label?: string): void {
    const l = label === undefined ? NO_LABEL : this.labels.intern(label);
    const d = this.dict;
    const q = canonical(quad);
    this.cols.push(d.intern(q.g), d.intern(q.s), d.intern(q.p), d.intern(q.o), l);
  }

  /** Hot path of the loader: ids already interned. */
  addIds(g: number, s: number, p: number, o: number, label: number): void {
    this.cols.push(g, s, p, o, label);
  }

  delete(quad: KeyQuad): void {
    const d = this.dict;
    quad = canonical(quad);
    const g = d.lookupKey(quad.g);
    const s = d.lookupKey(quad.s);
    const p = d.lookupKey(quad.p);
    const o = d.lookupKey(quad.o);
    if (g === undefined || s === undefined || p === undefined || o === undefined) return;
    this.ops.push({ kind: OpKind.Delete, seq: this.cols.length, g, s, p, o, label: 0 });
  }

  setLabel(quad: KeyQuad, label: string): void {
    const l = this.labels.intern(label);
    const d = this.dict;
    quad = canonical(quad);
    this.setLabelIds(d.intern(quad.g), d.intern(quad.s), d.intern(quad.p), d.intern(quad.o), l);
  }

  setLabelIds(g: number, s: number, p: number, o: number, label: number): void {
    this.ops.push({ kind: OpKind.SetLabel, seq: this.cols.length, g, s, p, o, label });
  }

  get addCount(): number {
    return this.cols.length - this.firstRow;
  }

  /** Resolve the buffered operations against the committed state. */
  resolve(runs: readonly Run[], pending: ReadonlyMap<string, number>): Effects {
    const cols = this.cols;
    const n = this.addCount;
    const added = new Uint32Array(n);
    for (let i = 0; i < n; i++) added[i] = this.firstRow + i;
    sortRows(cols, ORDERS.spog, added);
    const ops = [...this.ops].sort(
      (a, b) => a.s - b.s || a.p - b.p || a.o - b.o || a.g - b.g || a.seq - b.seq,
    );
    const out: number[] = [];
    const effects: Effects = {
      addRows: new Uint32Array(0), deleteRows: [], pendingSet: new Map(), pendingDelete: [],
      outcome: { inserted: 0, relabelled: 0, deleted: 0, unchanged: 0, labels: new Map() },
    };
    const hasStored = runs.length > 0;
    let i = 0;
    let j = 0;
    while (i < n || j < ops.length) {
      // The next quad: the smaller of the next add and the next op.
      let g: number, s: number, p: number, o: number;
      const op = ops[j];
      if (i < n && (op === undefined || compareRowToOp(cols, added[i]!, op) <= 0)) {
        const r = added[i]!;
        g = cols.g[r]!;
        s = cols.s[r]!;
        p = cols.p[r]!;
        o = cols.o[r]!;
      } else {
        ({ g, s, p, o } = op!);
      }
      const iEnd = advanceAdds(cols, added, i, g, s, p, o);
      let jEnd = j;
      while (jEnd < ops.length && sameQuad(ops[jEnd]!, g, s, p, o)) jEnd++;
      this.resolveQuad(g, s, p, o, added, i, iEnd, ops, j, jEnd, runs, hasStored, pending, out, effects);
      i = iEnd;
      j = jEnd;
    }
    effects.addRows = Uint32Array.from(out);
    return effects;
  }

  private resolveQuad(
    g: number, s: number, p: number, o: number,
    added: Uint32Array, i0: number, i1: number,
    ops: readonly Op[], j0: number, j1: number,
    runs: readonly Run[], hasStored: boolean,
    pending: ReadonlyMap<string, number>,
    out: number[], effects: Effects,
  ): void {
    const cols = this.cols;
    let stored = -1;
    if (hasStored) {
      for (let k = runs.length - 1; k >= 0 && stored < 0; k--) stored = findLiveRow(cols, cols.deleted, runs[k]!, g, s, p, o);
    }
    const key = pending.size > 0 || j1 > j0 ? quadKey(g, s, p, o) : '';
    const pendingBefore = key !== '' ? pending.get(key) : undefined;
    // The write boundary judges the state before this transaction: a stored quad the writer may
    // not write is left alone by every operation; so is a pending label (a quad arriving under it
    // takes it). The writer's own adds of this transaction are its to relabel or remove.
    let pendingLocked = false;
    let storedLocked = false;
    if (this.writable !== undefined) {
      if (stored >= 0) {
        storedLocked = !this.mayWrite(cols.label[stored]!);
      } else if (pendingBefore !== undefined && !this.mayWrite(pendingBefore)) {
        pendingLocked = true;
      }
    }
    const storedLabel = stored >= 0 ? cols.label[stored]! : 0;
    // The writer's view: what it may not write counts as absent (the outcome must not depend on it).
    const seen = storedLocked || pendingLocked
      ? replay(cols, added, i0, i1, ops, j0, j1, false, 0, undefined, false)
      : undefined;
    if (storedLocked) {
      count(effects.outcome, false, 0, seen!);
      return;
    }
    const after = replay(cols, added, i0, i1, ops, j0, j1, stored >= 0, storedLabel, pendingBefore, pendingLocked);
    if (seen !== undefined) count(effects.outcome, false, 0, seen);
    else count(effects.outcome, stored >= 0, storedLabel, after);
    const { present, label, row } = after;
    let pendingLabel = after.pendingLabel;
    // The locked pending label is consumed by the quad's arrival, else kept.
    if (pendingLocked) pendingLabel = present ? undefined : pendingBefore;
    if (stored >= 0) {
      if (present && label === storedLabel) {
        // unchanged: keep the stored row
      } else {
        effects.deleteRows.push(stored);
        if (present) out.push(this.placeRow(row, g, s, p, o, label));
      }
    } else if (present) {
      out.push(this.placeRow(row, g, s, p, o, label));
    }
    if (key !== '' && pendingLabel !== pendingBefore) {
      if (pendingLabel === undefined) effects.pendingDelete.push(key);
      else effects.pendingSet.set(key, pendingLabel);
    }
  }

  /** The row that will hold the quad: the last add of it, or a fresh row for a re-label. */
  private placeRow(row: number, g: number, s: number, p: number, o: number, label: number): number {
    if (row < 0) return this.cols.push(g, s, p, o, label);
    this.cols.label[row] = label;
    return row;
  }
}

interface Replayed {
  present: boolean;
  label: number;
  pendingLabel: number | undefined;
  /** The row of the last add, -1 when none (or deleted since). */
  row: number;
  /** Whether the transaction added or labelled the quad. */
  written: boolean;
}

/** One quad's adds (by row = seq) and ops (by seq), merged in sequence order, from a start state. */
function replay(
  cols: RowColumns, added: Uint32Array, i0: number, i1: number, ops: readonly Op[], j0: number, j1: number,
  present: boolean, label: number, pendingLabel: number | undefined, pendingLocked: boolean,
): Replayed {
  const pendingBefore = pendingLabel;
  let row = -1;
  let written = false;
  let a = i0;
  let b = j0;
  while (a < i1 || b < j1) {
    const op = b < j1 ? ops[b] : undefined; // ops[j1] and on belong to later quads
    if (a < i1 && (op === undefined || added[a]! < op.seq)) {
      const r = added[a++]!;
      let l = cols.label[r]!;
      if (pendingLocked) l = pendingBefore!;
      else if (l === NO_LABEL) l = present ? label : (pendingLabel ?? DEFAULT_LABEL_ID);
      present = true;
      label = l;
      row = r;
      written = true;
      pendingLabel = undefined;
    } else {
      b++;
      if (op!.kind === OpKind.Delete) {
        present = false;
        row = -1;
        written = false;
      } else if (pendingLocked) {
        // a label the writer may not write decides this quad's label
      } else if (present) {
        label = op!.label;
        written = true;
      } else {
        pendingLabel = op!.label;
      }
    }
  }
  return { present, label, pendingLabel, row, written };
}

/** Adds one quad's before/after to the outcome counts. */
function count(outcome: OutcomeCounts, before: boolean, beforeLabel: number, after: Replayed): void {
  if (after.present) {
    if (!before) outcome.inserted++;
    else if (after.label !== beforeLabel) outcome.relabelled++;
    else if (after.written) outcome.unchanged++;
    if (after.written) outcome.labels.set(after.label, (outcome.labels.get(after.label) ?? 0) + 1);
  } else if (before) {
    outcome.deleted++;
  }
}

/** Keys in canonical form (e.g. lower-case language tags), so equal terms get equal ids.
 * Throws TypeError for a string that is not a term key. */
function canonical(q: KeyQuad): KeyQuad {
  return { g: termToKey(keyToTerm(q.g)), s: termToKey(keyToTerm(q.s)), p: termToKey(keyToTerm(q.p)), o: termToKey(keyToTerm(q.o)) };
}

function compareRowToOp(cols: RowColumns, r: number, op: Op): number {
  return cols.s[r]! - op.s || cols.p[r]! - op.p || cols.o[r]! - op.o || cols.g[r]! - op.g;
}

function sameQuad(op: Op, g: number, s: number, p: number, o: number): boolean {
  return op.s === s && op.p === p && op.o === o && op.g === g;
}

function advanceAdds(cols: RowColumns, added: Uint32Array, i: number, g: number, s: number, p: number, o: number): number {
  const n = added.length;
  while (i < n) {
    const r = added[i]!;
    if (cols.s[r] !== s || cols.p[r] !== p || cols.o[r] !== o || cols.g[r] !== g) break;
    i++;
  }
  return i;
}

export { compareRows };
