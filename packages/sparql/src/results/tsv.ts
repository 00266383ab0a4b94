/**
 * SPARQL 1.1 Query Results TSV Format (https://www.w3.org/TR/sparql11-results-csv-tsv/ §3):
 * a buffered writer (each distinct term written once per document, chunks of about CHUNK_SIZE
 * characters) and a reader. Terms are written as in
 * Turtle/N-Triples (`<iri>`, `"text"@en`, `"x"^^<dt>`, `_:label`); integers, decimals and doubles
 * whose lexical form is a Turtle number are written bare (`4`, `5.5`, `1.0e6`).
 *
 * Booleans (ASK) have no TSV form in the specification; as in csv.ts we write Apache Jena's
 * convention, a header `_askResult` (no `?`, so never a variable) and `true` or `false`.
 */
import { blankNode, keyToTerm, parseTurtleTerm, RdfSyntaxError, termToNTriples, XSD, type Term } from '@ianode/rdf';
import type { Solution } from '../api.js';
import { ASK_RESULT_COLUMN } from './csv.js';
import { ResultsSyntaxError } from './errors.js';
import { SPARQL_RESULTS_TSV } from './media-types.js';
import { delimitedRows } from './text-buffer.js';
import type { BindingsResult, BooleanResult, ParsedResults } from './types.js';

const BARE_NUMBER: Readonly<Record<string, RegExp>> = {
  [XSD + 'integer']: /^[+-]?[0-9]+$/,
  [XSD + 'decimal']: /^[+-]?[0-9]*\.[0-9]+$/,
  [XSD + 'double']: /^[+-]?(?:[0-9]+\.[0-9]*[eE][+-]?[0-9]+|\.[0-9]+[eE][+-]?[0-9]+|[0-9]+[eE][+-]?[0-9]+)$/,
};

// Blank node labels from other systems could hold any character; keep the cell one token.
const BNODE_LABEL = /^[^\s]+$/u;

function termTsv(term: Term): string {
  if (term.termType === 'Literal' && !term.language) {
    const bare = BARE_NUMBER[term.datatype.value];
    if (bare?.test(term.value)) return term.value;
  }
  if (term.termType === 'BlankNode') {
    if (!BNODE_LABEL.test(term.value)) throw new TypeError(`the blank node label ${JSON.stringify(term.value)} cannot be written in TSV`);
    return '_:' + term.value;
  }
  if (term.termType === 'DefaultGraph') throw new TypeError('the default graph cannot be a solution value');
  return termToNTriples(term);
}

/** The document in chunks: the header, then one chunk per solution; lines end in LF (§3). */
export function* tsvResultChunks(result: BindingsResult | BooleanResult): Generator<string> {
  if (result.type === 'boolean') {
    yield `${ASK_RESULT_COLUMN}\n${result.value ? 'true' : 'false'}\n`;
    return;
  }
  yield* delimitedRows(result, result.variables.map((v) => '?' + v).join('\t'), '\t', '\n', termTsv);
}

/** Reads a TSV results document. Throws ResultsSyntaxError with the line and column. */
export function parseTsvResults(text: string): ParsedResults {
  const fail = (detail: string, line: number, column = 1, cause?: unknown): never => {
    throw new ResultsSyntaxError(SPARQL_RESULTS_TSV, detail, { line, column }, cause === undefined ? undefined : { cause });
  };
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const header = lines[0];
  if (header === undefined || text === '') return fail('no header line', 1);
  if (header === ASK_RESULT_COLUMN) {
    const value = lines[1];
    if (lines.length !== 2 || (value !== 'true' && value !== 'false')) return fail(`${ASK_RESULT_COLUMN} must be followed by one line, true or false`, 2);
    return { type: 'boolean', value: value === 'true' };
  }
  // A SELECT with no variables has an empty header line.
  const variables = header === '' ? [] : header.split('\t').map((cell, k) => {
    if (!/^[?$]./u.test(cell)) fail(`header cell ${JSON.stringify(cell)} is not a variable (?name)`, 1, k + 1);
    return cell.slice(1);
  });
  const solutions = lines.slice(1).map((line, r): Solution => {
    const solution: Solution = new Map();
    // A solution of a SELECT with no variables is an empty line.
    if (variables.length === 0) {
      if (line !== '') fail('values in a result with no variables', r + 2);
      return solution;
    }
    const cells = line.split('\t');
    if (cells.length !== variables.length) fail(`${cells.length} cells where the header has ${variables.length}`, r + 2);
    let column = 1;
    cells.forEach((cell, k) => {
      const value = cell.trim();
      if (value !== '') {
        let term: Term;
        if (value.startsWith('_:')) {
          term = blankNode(value.slice(2));
        } else {
          try {
            term = keyToTerm(parseTurtleTerm(value, {}));
          } catch (error) {
            if (!(error instanceof RdfSyntaxError)) throw error;
            return fail(error.detail, r + 2, column + error.column - 1, error);
          }
        }
        solution.set(variables[k]!, term);
      }
      column += cell.length + 1;
    });
    return solution;
  });
  return { type: 'bindings', variables, solutions };
}
