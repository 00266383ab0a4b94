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
import type { BindingsResult } from './types.js';

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

/**
 * The chunks of a delimited results document (CSV, TSV): the header line, then a line per solution
 * with each bound value's text (memoised per term) and nothing for an unbound one, gathered into
 * chunks of about `CHUNK_SIZE` characters.
 */
export function* delimitedRows(
  result: BindingsResult,
  header: string,
  separator: string,
  lineEnd: string,
  termText: (term: Term) => string,
): Generator<string> {
  const variables = result.variables;
  const text = memoTermText(termText);
  let out = header + lineEnd;
  for (const solution of result.solutions) {
    for (let i = 0; i < variables.length; i++) {
      if (i > 0) out += separator;
      const term = solution.get(variables[i]!);
      if (term !== undefined) out += text(term);
    }
    out += lineEnd;
    if (out.length >= CHUNK_SIZE) {
      yield out;
      out = '';
    }
  }
  if (out.length > 0) yield out;
}
