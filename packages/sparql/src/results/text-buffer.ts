/**
 * The pieces the result writers share: the chunk size, the delimited (CSV/TSV) row writer, and
 * the per-response memo of each term's text (`memoTermText`, from @ianode/rdf: escaped once per
 * distinct term per document, never shared between responses or callers).
 */
import { memoTermText, type Term } from '@ianode/rdf';
import type { BindingsResult } from './types.js';

/** Characters a writer gathers before it hands a chunk on. */
export const CHUNK_SIZE = 64 * 1024;

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

export { memoTermText };
