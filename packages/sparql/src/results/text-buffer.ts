/**
 * The pieces the result writers share: a bounded per-response memo of each term's text in one
 * format, and the chunk size.
 *
 * Results repeat terms a lot (a type, a graph, a subject across its rows), and the store's
 * dictionary hands back the same Term object for a recently decoded id, so a writer that keys a
 * memo by the Term object escapes each distinct term once per response instead of once per
 * occurrence. Terms whose getters do work (N3.js literals parse `value`, `language` and `datatype`
 * out of their id on each read) are read once too. The memo lives as long as one document; it is
 * never shared between responses or callers.
 */
import type { Term } from '@ianode/rdf';

/** Characters a writer gathers before it hands a chunk on. */
export const CHUNK_SIZE = 64 * 1024;

/** Entries a memo holds before it starts afresh (a result of all-distinct terms gains nothing
 * from it and must not grow it without bound). */
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
