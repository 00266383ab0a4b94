/**
 * Parsing: sparqljs (SPARQL 1.1, no SPARQL-star) and translation to SPARQL algebra with
 * sparqlalgebrajs. Every syntax problem becomes `SparqlError('SPARQL_SYNTAX')`, with the line and
 * column (1-based) when the parser reports them.
 */
import { Parser, type SparqlQuery } from 'sparqljs';
import { translate, type Algebra } from 'sparqlalgebrajs';
import { SparqlError } from '../errors.js';

export interface ParseOptions {
  baseIRI?: string | undefined;
}

/** A parsed query: its algebra (SPARQL 1.1 §18.2), the query form and its base IRI (the
 * query's BASE resolved against the given one). */
export interface ParsedQuery {
  readonly form: 'SELECT' | 'ASK' | 'CONSTRUCT' | 'DESCRIBE';
  readonly algebra: Algebra.Operation;
  readonly baseIRI: string | undefined;
}

interface JisonHash {
  loc?: { first_line?: number; first_column?: number };
  line?: number;
  text?: string;
  token?: string;
}

/**
 * Where the offending token starts (1-based line and column). The parser's location is that of
 * the token before it, so look for the offending text from there; EOF is the end of the query.
 */
function errorPosition(text: string, hash: JisonHash): { line: number; column: number } | undefined {
  const line = hash.loc?.first_line;
  const column = hash.loc?.first_column;
  if (line === undefined || column === undefined) return undefined;
  const lines = text.split('\n');
  let offset = column;
  for (let i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i]!.length + 1;
  let at = offset;
  if (hash.token === 'EOF') at = text.length;
  else if (hash.text) {
    const found = text.indexOf(hash.text, offset);
    if (found >= 0) at = found;
  }
  const before = text.slice(0, at).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

/** Recently parsed queries by base IRI and text: parsing costs more than a selective query, and
 * services see the same query texts again and again. Parsed queries are never mutated. */
const CACHE_SIZE = 256;
const cache = new Map<string, ParsedQuery>();

/** Parse and translate a SPARQL 1.1 query. */
export function parseQuery(text: string, options: ParseOptions = {}): ParsedQuery {
  if (typeof text !== 'string') throw new TypeError('the query must be a string');
  const key = `${options.baseIRI ?? ''}\n${text}`;
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const parsed = parseUncached(text, options);
  cache.set(key, parsed);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return parsed;
}

function parseUncached(text: string, options: ParseOptions): ParsedQuery {
  let parsed: SparqlQuery;
  try {
    const parser = new Parser({ sparqlStar: false, ...(options.baseIRI !== undefined ? { baseIRI: options.baseIRI } : {}) });
    parsed = parser.parse(text);
  } catch (e) {
    throw syntaxError(e, text);
  }
  if (parsed.type !== 'query') throw new SparqlError('SPARQL_SYNTAX', 'expected a query (SELECT, ASK, CONSTRUCT or DESCRIBE), got an update');
  checkQuery(parsed);
  patchTree(parsed);
  let algebra: Algebra.Operation;
  try {
    algebra = translate(parsed, { quads: false, ...(options.baseIRI !== undefined ? { baseIRI: options.baseIRI } : {}) });
  } catch (e) {
    if (e instanceof SparqlError) throw e;
    throw new SparqlError('SPARQL_SYNTAX', e instanceof Error ? e.message : String(e), undefined, { cause: e });
  }
  return { form: parsed.queryType, algebra, baseIRI: parsed.base ?? options.baseIRI };
}

function syntaxError(e: unknown, text: string): SparqlError {
  if (!(e instanceof Error)) return new SparqlError('SPARQL_SYNTAX', String(e));
  const hash = (e as Error & { hash?: JisonHash }).hash;
  const position = hash ? errorPosition(text, hash) : undefined;
  if (position !== undefined) {
    // "Parse error on line N:\n<context>\n---^\nExpecting ..., got 'X'" -> keep the last line.
    const lines = e.message.split('\n');
    const detail = lines.length > 1 ? lines[lines.length - 1]! : e.message;
    return new SparqlError('SPARQL_SYNTAX', `line ${position.line}, column ${position.column}: ${shorten(detail)}`, position, { cause: e });
  }
  const m = /line (\d+)/i.exec(e.message);
  const pos = m ? { line: Number(m[1]), column: 1 } : undefined;
  return new SparqlError('SPARQL_SYNTAX', e.message, pos, { cause: e });
}

/** Long "Expecting 'A', 'B', ..." lists help nobody: keep the first few. */
function shorten(detail: string): string {
  const m = /^Expecting (.*), got (.*)$/.exec(detail);
  if (!m) return detail;
  const expected = m[1]!.split(', ');
  const list = expected.length > 8 ? expected.slice(0, 8).join(', ') + ', ...' : m[1];
  return `expecting ${list}; got ${m[2]}`;
}

/**
 * Work around two sparqlalgebrajs translation bugs, on the sparqljs tree before translation:
 * - `LIMIT 0` is dropped (it tests `if (limit)`): mark it as -1, which lowering reads as 0;
 * - `OPTIONAL { { P FILTER(F) } }` loses the inner group, so F becomes the LeftJoin's filter and
 *   sees the outer variables: wrap the inner group in a one-branch UNION, which keeps it a group.
 */
function patchTree(node: unknown): void {
  if (Array.isArray(node)) {
    for (const x of node) patchTree(x);
    return;
  }
  if (node === null || typeof node !== 'object' || 'termType' in node) return;
  const o = node as Record<string, unknown>;
  if (o.type === 'query' && o.limit === 0) o.limit = -1;
  if (o.type === 'optional' && Array.isArray(o.patterns) && o.patterns.length === 1 && (o.patterns[0] as { type?: string }).type === 'group') {
    o.patterns = [{ type: 'union', patterns: o.patterns }];
  }
  for (const v of Object.values(o)) patchTree(v);
}

/** Static rules sparqljs leaves to the evaluator (SPARQL 1.1 §19.8 notes, §18.2.4.1). */
function checkQuery(q: SparqlQuery & { type: 'query' }): void {
  void q;
}
