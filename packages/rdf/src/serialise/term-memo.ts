/**
 * A bounded memo of each term's text in one output format, for the serialisers (N-Triples and
 * N-Quads here, the SPARQL result formats in @ianode/sparql).
 *
 * Output repeats terms a lot (a subject over its triples, the predicates, a graph, a type), and the
 * store's dictionary hands back the same Term object for a recently decoded id, so keying by the
 * Term object escapes each distinct term once per document instead of once per occurrence. Terms
 * whose getters do work (N3.js literals parse `value`, `language` and `datatype` out of their id on
 * each read) are read once too. A memo lives as long as one document; never share it between
 * responses or callers.
 */
import type { Term } from '../terms.js';

/** Entries a memo holds before it starts afresh (output of all-distinct terms gains nothing from
 * it and must not grow it without bound). */
export const TERM_MEMO_LIMIT = 1 << 14;

/** `textOf`, remembered per Term object, up to `limit` entries at a time. Errors `textOf` throws
 * are not remembered: the term throws again each time it is met. */
export function memoTermText(textOf: (term: Term) => string, limit = TERM_MEMO_LIMIT): (term: Term) => string {
  let memo = new Map<Term, string>();
  return (term) => {
    let text = memo.get(term);
    if (text === undefined) {
      text = textOf(term);
      if (memo.size >= limit) memo = new Map();
      memo.set(term, text);
    }
    return text;
  };
}
