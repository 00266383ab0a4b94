/**
 * Per-view label visibility: each distinct label id is evaluated once (lazily) against the view's
 * predicate and remembered in a byte table, so the scan's per-quad check is one array read.
 */
import type { LabelPredicate } from '@ianode/rdf';
import type { LabelTable } from './labels.js';

const UNKNOWN = 0;
const VISIBLE = 1;
const HIDDEN = 2;

export class VisibilityMask {
  private table: Uint8Array;

  constructor(
    private readonly labels: LabelTable,
    readonly predicate: LabelPredicate,
  ) {
    this.table = new Uint8Array(Math.max(16, labels.size));
  }

  /** Whether quads with label id `id` are visible. */
  visible(id: number): boolean {
    const t = this.table;
    const v = id < t.length ? t[id]! : UNKNOWN;
    if (v !== UNKNOWN) return v === VISIBLE;
    return this.resolve(id);
  }

  /** The byte table for hot loops: 1 visible, 2 hidden, 0 not yet evaluated (call `visible`). */
  get bytes(): Uint8Array {
    return this.table;
  }

  /** True when every label currently known is visible (counts can then use index ranges). */
  allVisible(): boolean {
    const n = this.labels.size;
    for (let id = 0; id < n; id++) if (!this.visible(id)) return false;
    return true;
  }

  private resolve(id: number): boolean {
    if (id >= this.table.length) {
      const t = new Uint8Array(Math.max(id + 1, this.table.length * 2));
      t.set(this.table);
      this.table = t;
    }
    // The one policy for a label whose evaluation throws (say, an attribute hierarchy that cannot
    // be fetched): the error propagates and fails the read or the write (nothing is stored).
    // Hiding the quads instead would give a partial answer, or a write outcome, that looks complete.
    const ok = this.predicate(this.labels.text(id)) === true;
    this.table[id] = ok ? VISIBLE : HIDDEN;
    return ok;
  }
}
