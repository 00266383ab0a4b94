/** Helpers of the parser tests (line-parser, turtle-parser): parse to rows of dictionary keys. */
import { expect } from 'vitest';
import { parseQuadKeys, RdfSyntaxError, type RdfFormat } from '../../src/index.js';

export type Row = [string, string, string, string];

/** The rows of keys `text` parses to (blank nodes prefixed `x_`) and its declared prefixes. */
export function parseRows(text: string, format: RdfFormat, baseIRI?: string): { rows: Row[]; prefixes: Record<string, string> } {
  const rows: Row[] = [];
  const { prefixes } = parseQuadKeys(text, { format, baseIRI, blankNodePrefix: 'x_' }, (s, p, o, g) => rows.push([s, p, o, g]));
  return { rows, prefixes };
}

/** The RdfSyntaxError parsing `text` throws (fails the test when it throws none). */
export function syntaxErrorOf(text: string, format: RdfFormat): RdfSyntaxError {
  try {
    parseRows(text, format);
  } catch (e) {
    expect(e).toBeInstanceOf(RdfSyntaxError);
    return e as RdfSyntaxError;
  }
  throw new Error(`no error for ${JSON.stringify(text)}`);
}
