/**
 * SPARQL 1.1 Query Results CSV Format (https://www.w3.org/TR/sparql11-results-csv-tsv/ §2):
 * a buffered writer (each distinct term written once per document, chunks of about CHUNK_SIZE
 * characters) and a reader.
 *
 * CSV keeps only the text of each value: IRIs bare, literals by lexical form (no language or
 * datatype), blank nodes as `_:label`, unbound as an empty field. The reader therefore guesses:
 * `_:x` is a blank node, a string that looks like an absolute IRI is an IRI, anything else a
 * simple literal. We write an empty literal as `""` and read `""` back as one (unbound stays an
 * empty field), which RFC 4180 readers see as the same empty string.
 *
 * Booleans (ASK) have no CSV form in the specification; we write the convention Apache Jena uses,
 * a column `_askResult` holding `true` or `false`, and read exactly that shape back as a boolean.
 */
import { blankNode, literal, namedNode, type Term } from '@ianode/rdf';
import type { Solution } from '../api.js';
import { ResultsSyntaxError } from './errors.js';
import { SPARQL_RESULTS_CSV } from './media-types.js';
import { delimitedRows } from './text-buffer.js';
import type { BindingsResult, BooleanResult, ParsedResults } from './types.js';

export const ASK_RESULT_COLUMN = '_askResult';
const NEEDS_QUOTES = /[",\r\n]/;
const ABSOLUTE_IRI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|^`\\]*$/;

function field(text: string): string {
  return NEEDS_QUOTES.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
}

function termCsv(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return field(term.value);
    case 'BlankNode':
      return '_:' + term.value;
    case 'Literal':
      return term.value === '' ? '""' : field(term.value);
    default:
      throw new TypeError(`a ${term.termType} cannot be a solution value`);
  }
}

/** The document in chunks: the header, then one chunk per solution; lines end in CRLF (§2). */
export function* csvResultChunks(result: BindingsResult | BooleanResult): Generator<string> {
  if (result.type === 'boolean') {
    yield `${ASK_RESULT_COLUMN}\r\n${result.value ? 'true' : 'false'}\r\n`;
    return;
  }
  yield* delimitedRows(result, result.variables.map(field).join(','), ',', '\r\n', termCsv);
}

interface CsvField {
  text: string;
  quoted: boolean;
}

interface CsvRecord {
  fields: CsvField[];
  /** The line the record starts on. */
  line: number;
}

/** RFC 4180 records; LF, CRLF and CR all end a record outside quotes. */
function csvRecords(text: string, fail: (detail: string, line: number) => never): CsvRecord[] {
  const records: CsvRecord[] = [];
  let record: CsvField[] = [];
  let i = 0;
  let line = 1;
  let recordLine = 1;
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  for (;;) {
    let f: CsvField;
    if (text[i] === '"') {
      let value = '';
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) fail('unterminated quoted field', line);
        value += text.slice(j, q);
        if (text[q + 1] === '"') {
          value += '"';
          j = q + 2;
        } else {
          j = q + 1;
          break;
        }
      }
      line += value.split(/\r\n|\r|\n/).length - 1;
      f = { text: value, quoted: true };
      i = j;
      if (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') fail('text after a closing quote', line);
    } else {
      let j = i;
      while (j < text.length && text[j] !== ',' && text[j] !== '\r' && text[j] !== '\n') j++;
      const value = text.slice(i, j);
      if (value.includes('"')) fail('a quote inside an unquoted field', line);
      f = { text: value, quoted: false };
      i = j;
    }
    record.push(f);
    if (i >= text.length) {
      if (!(record.length === 1 && record[0]!.text === '' && !record[0]!.quoted)) records.push({ fields: record, line: recordLine });
      return records;
    }
    if (text[i] === ',') {
      i++;
      continue;
    }
    // A line break ends the record.
    i += text[i] === '\r' && text[i + 1] === '\n' ? 2 : 1;
    line++;
    records.push({ fields: record, line: recordLine });
    record = [];
    recordLine = line;
    if (i >= text.length) return records;
  }
}

function csvTerm(f: CsvField): Term | undefined {
  if (f.text === '') return f.quoted ? literal('') : undefined;
  if (!f.quoted || !NEEDS_QUOTES.test(f.text)) {
    if (f.text.startsWith('_:') && f.text.length > 2) return blankNode(f.text.slice(2));
    if (ABSOLUTE_IRI.test(f.text)) return namedNode(f.text);
  }
  return literal(f.text);
}

/** Reads a CSV results document (see the module comment for what CSV loses). */
export function parseCsvResults(text: string): ParsedResults {
  const fail = (detail: string, line: number): never => {
    throw new ResultsSyntaxError(SPARQL_RESULTS_CSV, detail, { line, column: 1 });
  };
  const records = csvRecords(text, fail);
  const header = records[0]?.fields;
  if (header === undefined) return fail('no header line', 1);
  // A SELECT with no variables has an empty header line, and an empty line per solution.
  const noVariables = header.length === 1 && header[0]!.text === '' && !header[0]!.quoted;
  const variables = noVariables ? [] : header.map((f) => f.text);
  if (variables.length === 1 && variables[0] === ASK_RESULT_COLUMN && records.length === 2) {
    const value = records[1]!.fields[0]?.text;
    if (records[1]!.fields.length === 1 && (value === 'true' || value === 'false')) return { type: 'boolean', value: value === 'true' };
  }
  const solutions = records.slice(1).map(({ fields, line }): Solution => {
    if (noVariables && fields.length === 1 && fields[0]!.text === '' && !fields[0]!.quoted) return new Map();
    if (fields.length !== variables.length) fail(`${fields.length} fields where the header has ${variables.length}`, line);
    const solution: Solution = new Map();
    fields.forEach((f, k) => {
      const term = csvTerm(f);
      if (term !== undefined) solution.set(variables[k]!, term);
    });
    return solution;
  });
  return { type: 'bindings', variables, solutions };
}
