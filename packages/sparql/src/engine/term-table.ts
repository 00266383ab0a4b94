/**
 * The query's view of term ids. Ids below LOCAL_ID_BASE are the dataset's; terms a query computes
 * (BIND, SELECT expressions, aggregates, constants the dataset has never seen) get ids from
 * LOCAL_ID_BASE upwards. A term the dataset knows always gets the dataset's id, so equal terms have
 * equal ids and joins, DISTINCT and grouping compare ids only. Decoded terms are cached per query.
 */
import { termToKey, type Dataset, type Term } from '@ianode/rdf';
import type { TermIds } from '../algebra/lower.js';

export const LOCAL_ID_BASE = 0x80000000;

export class TermTable implements TermIds {
  /** Key -> id for every term this query has resolved (dataset ids and local ones). */
  private readonly ids = new Map<string, number>();
  private readonly localTerms: Term[] = [];
  private readonly decoded = new Map<number, Term>();

  constructor(private readonly dataset: Dataset) {}

  idOf(term: Term): number {
    const key = termToKey(term);
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    const id = this.dataset.lookup(term);
    if (id !== undefined && id !== 0) {
      this.ids.set(key, id);
      return id;
    }
    const fresh = LOCAL_ID_BASE + this.localTerms.length;
    if (fresh > 0xffffffff) throw new RangeError('too many computed terms in one query');
    this.localTerms.push(term);
    this.ids.set(key, fresh);
    return fresh;
  }

  term(id: number): Term {
    if (id >= LOCAL_ID_BASE) {
      const t = this.localTerms[id - LOCAL_ID_BASE];
      if (t === undefined) throw new RangeError(`unknown query term id ${id}`);
      return t;
    }
    let t = this.decoded.get(id);
    if (t === undefined) {
      t = this.dataset.term(id);
      this.decoded.set(id, t);
    }
    return t;
  }
}
