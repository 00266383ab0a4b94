/**
 * The dataset an operation of an update request reads: the caller's view (usually of the store
 * snapshot taken when the request's transaction started) plus the adds and deletes of the
 * request's earlier operations, which the store holds only as pending transaction writes. So
 * later operations see the effects of earlier ones without the store exposing uncommitted state.
 *
 * Deletes are only ever recorded for quads the base view shows; adds only for quads it does not
 * (or that were deleted earlier in the request). New terms get ids in [OVERLAY_ID_BASE,
 * LOCAL_ID_BASE), below the engine's own computed-term ids; store ids stay below that range.
 */
import { estimateOf, keyToTerm, termToKey, type Dataset, type IdQuad, type LabelPredicate, type QuadBatch, type QuadPattern, type Term } from '@ianode/rdf';
import { LOCAL_ID_BASE } from '../engine/term-table.js';

export const OVERLAY_ID_BASE = 0x70000000;

const quadId = (s: number, p: number, o: number, g: number): string => `${s} ${p} ${o} ${g}`;

function matches(q: IdQuad, p: QuadPattern): boolean {
  return (p.s === undefined || p.s === q.s) && (p.p === undefined || p.p === q.p) && (p.o === undefined || p.o === q.o) && (p.g === undefined || p.g === q.g);
}

export class OverlayDataset implements Dataset {
  private readonly localTerms: Term[] = [];
  private readonly localKeys: string[] = [];
  private readonly localIds = new Map<string, number>();
  private readonly added = new Map<string, IdQuad>();
  private readonly deleted = new Map<string, IdQuad>();

  constructor(private readonly base: Dataset) {}

  get clean(): boolean {
    return this.added.size === 0 && this.deleted.size === 0;
  }

  /** Overlay ids first: the base may learn a term later (a store transaction interns the terms
   * of pending writes), but the overlay keeps the id it gave out. */
  lookup(term: Term): number | undefined {
    if (this.localIds.size > 0) {
      const local = this.localIds.get(termToKey(term));
      if (local !== undefined) return local;
    }
    return this.base.lookup(term);
  }

  term(id: number): Term {
    if (id >= OVERLAY_ID_BASE && id < LOCAL_ID_BASE) {
      const t = this.localTerms[id - OVERLAY_ID_BASE];
      if (t === undefined) throw new RangeError(`unknown term id ${id}`);
      return t;
    }
    return this.base.term(id);
  }

  key(id: number): string {
    if (id >= OVERLAY_ID_BASE && id < LOCAL_ID_BASE) {
      const k = this.localKeys[id - OVERLAY_ID_BASE];
      if (k === undefined) throw new RangeError(`unknown term id ${id}`);
      return k;
    }
    return this.base.key(id);
  }

  /** The id of a term key, allocating an overlay id for a term the base has never seen. */
  idOfKey(key: string): number {
    if (key === '') return 0;
    const local = this.localIds.get(key);
    if (local !== undefined) return local;
    const term = keyToTerm(key);
    const id = this.base.lookup(term);
    if (id !== undefined) {
      if (id >= OVERLAY_ID_BASE) throw new RangeError('the store has too many terms for an update overlay');
      return id;
    }
    const fresh = OVERLAY_ID_BASE + this.localTerms.length;
    if (fresh >= LOCAL_ID_BASE) throw new RangeError('too many new terms in one update');
    this.localTerms.push(term);
    this.localKeys.push(key);
    this.localIds.set(key, fresh);
    return fresh;
  }

  /** Whether the quad (by ids) is in this dataset. */
  has(q: IdQuad): boolean {
    const k = quadId(q.s, q.p, q.o, q.g);
    if (this.added.has(k)) return true;
    if (this.deleted.has(k)) return false;
    if (q.s >= OVERLAY_ID_BASE || q.p >= OVERLAY_ID_BASE || q.o >= OVERLAY_ID_BASE || q.g >= OVERLAY_ID_BASE) return false;
    return this.base.count(q) > 0;
  }

  /** Records an add; `visible` false = the caller will not see it (so neither do later reads). */
  add(q: IdQuad, visible: boolean): void {
    const k = quadId(q.s, q.p, q.o, q.g);
    if (this.deleted.delete(k)) {
      if (!visible) this.deleted.set(k, q);
      return;
    }
    if (!visible || this.added.has(k)) return;
    if (this.has(q)) return;
    this.added.set(k, { s: q.s, p: q.p, o: q.o, g: q.g });
  }

  /** Records a delete of a quad this dataset holds (callers check `has` first). */
  delete(q: IdQuad): void {
    const k = quadId(q.s, q.p, q.o, q.g);
    if (this.added.delete(k)) return;
    this.deleted.set(k, { s: q.s, p: q.p, o: q.o, g: q.g });
  }

  *match(pattern: QuadPattern): Iterable<IdQuad> {
    const { s, p, o, g } = pattern;
    const local = (s !== undefined && s >= OVERLAY_ID_BASE) || (p !== undefined && p >= OVERLAY_ID_BASE) || (o !== undefined && o >= OVERLAY_ID_BASE) || (g !== undefined && g >= OVERLAY_ID_BASE);
    if (!local) {
      for (const q of this.base.match(pattern)) {
        if (this.deleted.size > 0 && this.deleted.has(quadId(q.s, q.p, q.o, q.g))) continue;
        yield { s: q.s, p: q.p, o: q.o, g: q.g };
      }
    }
    for (const q of this.added.values()) if (matches(q, pattern)) yield q;
  }

  *matchBatches(pattern: QuadPattern, batchSize = 1024): Iterable<QuadBatch> {
    if (this.clean) {
      yield* this.base.matchBatches(pattern, batchSize);
      return;
    }
    const size = Math.max(1, batchSize);
    const batch: QuadBatch = { length: 0, s: new Uint32Array(size), p: new Uint32Array(size), o: new Uint32Array(size), g: new Uint32Array(size) };
    for (const q of this.match(pattern)) {
      const i = batch.length++;
      batch.s[i] = q.s;
      batch.p[i] = q.p;
      batch.o[i] = q.o;
      batch.g[i] = q.g;
      if (batch.length === size) {
        yield batch;
        batch.length = 0;
      }
    }
    if (batch.length > 0) yield batch;
  }

  count(pattern: QuadPattern): number {
    if (this.clean) return this.base.count(pattern);
    const { s, p, o, g } = pattern;
    const local = (s !== undefined && s >= OVERLAY_ID_BASE) || (p !== undefined && p >= OVERLAY_ID_BASE) || (o !== undefined && o >= OVERLAY_ID_BASE) || (g !== undefined && g >= OVERLAY_ID_BASE);
    let n = local ? 0 : this.base.count(pattern);
    if (!local) for (const q of this.deleted.values()) if (matches(q, pattern)) n--;
    for (const q of this.added.values()) if (matches(q, pattern)) n++;
    return n;
  }

  /** The base's estimate plus this request's adds (deletes only lower the count, so an upper
   * bound need not subtract them). */
  estimate(pattern: QuadPattern): number {
    const base = estimateOf(this.base, pattern);
    if (this.added.size === 0) return base;
    let n = base;
    for (const q of this.added.values()) if (matches(q, pattern)) n++;
    return n;
  }

  graphs(): number[] {
    if (this.clean) return this.base.graphs();
    const out = new Set<number>();
    for (const g of this.base.graphs()) if (this.count({ g }) > 0) out.add(g);
    for (const q of this.added.values()) if (q.g !== 0) out.add(q.g);
    return [...out];
  }

  /** The overlay has no labels: build it over an already narrowed view instead (fail closed). */
  view(visible: LabelPredicate): Dataset {
    void visible;
    throw new TypeError('an update overlay cannot be narrowed: build it over the caller\'s view');
  }
}
