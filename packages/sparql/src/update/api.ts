/** The public shape of SPARQL Update: where the writes go and what an update reports. */

/** A quad in dictionary-key form (see @ianode/rdf terms.ts); `g` '' = the default graph. The
 * store's `KeyQuad` has the same shape. */
export interface UpdateQuad {
  s: string;
  p: string;
  o: string;
  g: string;
}

export type UpdateOp = { type: 'add' | 'delete'; quad: UpdateQuad };

/** Where an update's writes go: usually one store transaction (`tx.add` / `tx.delete`). Called
 * once per operation, in request order, deletes of an operation before its inserts. A throw
 * aborts the update (the caller rolls the transaction back). */
export interface UpdateTarget {
  applyOps(ops: readonly UpdateOp[]): void | Promise<void>;
}

export interface UpdateOptions {
  baseIRI?: string | undefined;
  /** Epoch milliseconds (on `clock`) after which WHERE evaluation stops with a SparqlError of
   * code QUERY_TIMEOUT. */
  deadline?: number | undefined;
  /** The clock the deadline is read on; default `Date.now`. */
  clock?: (() => number) | undefined;
  /** Maximum solutions held in memory by an operator of a WHERE clause. */
  rowBudget?: number | undefined;
  /** Whether the caller will see the quads it inserts (their label is visible to the caller).
   * When false, later operations of the same request do not see them either. Default true. */
  insertsVisible?: boolean | undefined;
  /** LOAD: reads the document at `iri` as quad keys into `sink` (graph '' = the target graph), or
   * throws. Absent = LOAD is switched off (an error naming it). */
  load?: ((iri: string, sink: (s: string, p: string, o: string, g: string) => void) => Promise<void>) | undefined;
  /** Fixed NOW() (tests). */
  now?: Date | undefined;
}

export interface UpdateResult {
  /** Operations executed. */
  operations: number;
  /** Quad additions and deletions handed to the target (a re-added visible quad counts). */
  inserted: number;
  deleted: number;
}
