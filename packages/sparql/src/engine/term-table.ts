/**
 * The query's view of term ids. Ids below LOCAL_ID_BASE are the dataset's; terms a query computes
 * (BIND, SELECT expressions, aggregates, constants the dataset has never seen) get ids from
 * LOCAL_ID_BASE upwards. A term the dataset knows always gets the dataset's id, so equal terms have
 * equal ids and joins, DISTINCT and grouping compare ids only.
 *
 * Memory stays bounded for long results: decoding is left to the dataset (the store's dictionary
 * keeps a direct-mapped cache of recently decoded terms, shared by every query), and the cache of
 * dataset lookups is dropped when it grows large; only terms the dataset does not know are kept
 * for the whole query (rows refer to them).
 */
import { termToKey, type Dataset, type Term } from '@ianode/rdf';
import type { TermIds } from '../algebra/lower.js';

export const LOCAL_ID_BASE = 0x80000000;

const LOOKUP_CACHE_LIMIT = 1 << 16;

export class TermTable implements TermIds {
  /** Key -> id of the terms this query made up (kept: rows refer to them). */
  private readonly localIds = new Map<string, number>();
  private readonly localTerms: Term[] = [];
  /** Key -> dataset id of recently resolved terms. */
  private datasetIds = new Map<string, number>();

  constructor(private readonly dataset: Dataset) {}

  idOf(term: Term): number {
    const key = termToKey(term);
    const local = this.localIds.get(key);
    if (local !== undefined) return local;
    const cached = this.datasetIds.get(key);
    if (cached !== undefined) return cached;
    const id = this.dataset.lookup(term);
    if (id !== undefined && id !== 0) {
      if (this.datasetIds.size >= LOOKUP_CACHE_LIMIT) this.datasetIds = new Map();
      this.datasetIds.set(key, id);
      return id;
    }
    const fresh = LOCAL_ID_BASE + this.localTerms.length;
    if (fresh > 0xffffffff) throw new RangeError('too many computed terms in one query');
    this.localTerms.push(term);
    this.localIds.set(key, fresh);
    return fresh;
  }

  term(id: number): Term {
    if (id >= LOCAL_ID_BASE) {
      const t = this.localTerms[id - LOCAL_ID_BASE];
      if (t === undefined) throw new RangeError(`unknown query term id ${id}`);
      return t;
    }
    return this.dataset.term(id);
  }
}
