/** SPARQL 1.1 Query Results JSON: the table the SPARQL page shows, its pages and its CSV. */

export interface Term {
  type: 'uri' | 'literal' | 'bnode' | 'triple';
  value: string;
  'xml:lang'?: string;
  datatype?: string;
}

export type Results =
  | { kind: 'boolean'; value: boolean }
  | { kind: 'bindings'; vars: string[]; rows: Array<Record<string, Term | undefined>> };

export function parseResults(json: unknown): Results {
  const body = json as { head?: { vars?: unknown }; boolean?: unknown; results?: { bindings?: unknown } };
  if (body === null || typeof body !== 'object') throw new Error('the answer is not SPARQL results JSON');
  if (typeof body.boolean === 'boolean') return { kind: 'boolean', value: body.boolean };
  const vars = body.head?.vars;
  const bindings = body.results?.bindings;
  if (!Array.isArray(vars) || !Array.isArray(bindings)) throw new Error('the answer is not SPARQL results JSON (no head.vars or results.bindings)');
  return { kind: 'bindings', vars: vars.map(String), rows: bindings as Array<Record<string, Term | undefined>> };
}

const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** A term as shown in a cell: IRIs in <>, literals with their language or a short datatype. */
export function showTerm(term: Term | undefined): string {
  if (term === undefined) return '';
  switch (term.type) {
    case 'uri':
      return `<${term.value}>`;
    case 'bnode':
      return `_:${term.value}`;
    case 'literal':
      if (term['xml:lang']) return `"${term.value}"@${term['xml:lang']}`;
      if (term.datatype && term.datatype !== `${XSD}string`) return `"${term.value}"^^${term.datatype.startsWith(XSD) ? `xsd:${term.datatype.slice(XSD.length)}` : `<${term.datatype}>`}`;
      return term.value;
    default:
      return term.value;
  }
}

export interface Page<T> {
  items: T[];
  /** 0-based. */
  page: number;
  pages: number;
  first: number;
  last: number;
  total: number;
}

/** Page `page` (clamped) of `size` items. */
export function pageOf<T>(items: T[], page: number, size: number): Page<T> {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const p = Math.min(Math.max(0, Math.floor(page)), pages - 1);
  const slice = items.slice(p * size, p * size + size);
  return { items: slice, page: p, pages, first: items.length === 0 ? 0 : p * size + 1, last: p * size + slice.length, total: items.length };
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** SPARQL 1.1 Query Results CSV: the variables, then plain values (IRIs bare, blank nodes `_:`). */
export function toCsv(results: Results): string {
  if (results.kind === 'boolean') return `boolean\r\n${results.value}\r\n`;
  const lines = [results.vars.map(csvField).join(',')];
  for (const row of results.rows) {
    lines.push(results.vars.map((v) => {
      const term = row[v];
      if (term === undefined) return '';
      return csvField(term.type === 'bnode' ? `_:${term.value}` : term.value);
    }).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
