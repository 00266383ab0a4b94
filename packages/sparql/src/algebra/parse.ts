/**
 * Parsing: sparqljs (SPARQL 1.1, no SPARQL-star) and translation to SPARQL algebra with
 * sparqlalgebrajs. Every syntax problem becomes `SparqlError('SPARQL_SYNTAX')`, with the line and
 * column (1-based) when the parser reports them.
 */
import { Parser, type SparqlQuery } from 'sparqljs';
import { translate, type Algebra } from 'sparqlalgebrajs';
import { guardStack, isStackOverflow, SparqlError, tooComplex } from '../errors.js';
import { applySparqljsPatches } from './sparqljs-patches.js';

applySparqljsPatches();

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
  const parsed = guardStack('parse', () => parseUncached(text, options));
  cache.set(key, parsed);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return parsed;
}

/** sparqljs's parse of a query or update request (SPARQL 1.1, no SPARQL-star; \u escapes
 * replaced first); syntax errors become SPARQL_SYNTAX with their position. */
export function parseSparqljs(text: string, baseIRI: string | undefined): SparqlQuery {
  try {
    const parser = new Parser({ sparqlStar: false, ...(baseIRI !== undefined ? { baseIRI } : {}) });
    return parser.parse(unescapeCodepoints(text));
  } catch (e) {
    if (isStackOverflow(e)) throw tooComplex('parse', e);
    throw syntaxError(e, text);
  }
}

function parseUncached(text: string, options: ParseOptions): ParsedQuery {
  const parsed = parseSparqljs(text, options.baseIRI);
  if (parsed.type !== 'query') throw new SparqlError('SPARQL_SYNTAX', 'expected a query (SELECT, ASK, CONSTRUCT or DESCRIBE), got an update');
  checkQuery(parsed);
  patchTree(parsed);
  let algebra: Algebra.Operation;
  try {
    algebra = translate(parsed, { quads: false, ...(options.baseIRI !== undefined ? { baseIRI: options.baseIRI } : {}) });
  } catch (e) {
    if (e instanceof SparqlError) throw e;
    if (isStackOverflow(e)) throw tooComplex('parse', e);
    throw new SparqlError('SPARQL_SYNTAX', e instanceof Error ? e.message : String(e), undefined, { cause: e });
  }
  return { form: parsed.queryType, algebra, baseIRI: parsed.base ?? options.baseIRI };
}

export function syntaxError(e: unknown, text: string): SparqlError {
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
 * Work around sparqlalgebrajs translation bugs, on the sparqljs tree before translation:
 * - `LIMIT 0` is dropped (it tests `if (limit)`): mark it as -1, which lowering reads as 0;
 * - `OPTIONAL { { P FILTER(F) } }` loses the inner group, so F becomes the LeftJoin's filter and
 *   sees the outer variables: wrap the inner group in a one-branch UNION, which keeps it a group.
 */
export function patchTree(node: unknown): void {
  if (Array.isArray(node)) {
    for (const x of node) patchTree(x);
    return;
  }
  if (node === null || typeof node !== 'object' || 'termType' in node) return;
  const o = node as Record<string, unknown>;
  if (o.type === 'query' && o.limit === 0) o.limit = -1;
  // EXISTS { FILTER(...) } / EXISTS { MINUS {...} }: sparqljs hands over the lone pattern without
  // its group, which sparqlalgebrajs cannot translate.
  if (o.type === 'operation' && (o.operator === 'exists' || o.operator === 'notexists') && Array.isArray(o.args) && o.args.length === 1) {
    const inner = o.args[0] as { type?: string };
    if (inner.type !== 'group' && inner.type !== 'bgp') o.args = [{ type: 'group', patterns: [inner] }];
  }
  if (o.type === 'optional' && Array.isArray(o.patterns) && o.patterns.length === 1 && (o.patterns[0] as { type?: string }).type === 'group') {
    o.patterns = [{ type: 'union', patterns: o.patterns }];
  }
  for (const v of Object.values(o)) patchTree(v);
}

/**
 * Static rules sparqljs does not enforce: a blank node label may be used in one basic graph
 * pattern only (SPARQL 1.1 §4.1.4; a FILTER does not end a basic graph pattern, anything else
 * does). sparqljs names labelled blank nodes `e_<label>`; anonymous ones are fresh anyway.
 */
export function checkQuery(q: SparqlQuery & { type: 'query' }): void {
  const owner = new Map<string, number>();
  let bgps = 0;
  const term = (t: unknown, bgp: number): void => {
    const x = t as { termType?: string; value?: string };
    if (x?.termType !== 'BlankNode' || !x.value?.startsWith('e_')) return;
    const seen = owner.get(x.value);
    if (seen === undefined) owner.set(x.value, bgp);
    else if (seen !== bgp) throw new SparqlError('SPARQL_SYNTAX', `blank node label _:${x.value.slice(2)} is used in more than one basic graph pattern`);
  };
  const group = (patterns: unknown): void => {
    if (!Array.isArray(patterns)) return;
    let current = -1;
    for (const p of patterns as { type?: string; triples?: { subject: unknown; object: unknown }[]; expression?: unknown }[]) {
      if (p.type === 'bgp') {
        if (current < 0) current = bgps++;
        for (const t of p.triples ?? []) {
          term(t.subject, current);
          term(t.object, current);
        }
      } else if (p.type === 'filter') expression(p.expression);
      else {
        current = -1;
        nested(p);
      }
    }
  };
  const nested = (p: { type?: string; patterns?: unknown; where?: unknown; expression?: unknown }): void => {
    switch (p.type) {
      case 'union':
        for (const child of (p.patterns as { type?: string; patterns?: unknown }[]) ?? []) {
          if (child.type === 'group') group(child.patterns);
          else group([child]);
        }
        return;
      case 'group':
      case 'optional':
      case 'minus':
      case 'graph':
      case 'service':
        group(p.patterns);
        return;
      case 'query':
        group(p.where);
        return;
      case 'bind':
        expression(p.expression);
        return;
      default:
        return;
    }
  };
  const expression = (e: unknown): void => {
    if (e === null || typeof e !== 'object') return;
    const x = e as { type?: string; patterns?: unknown; args?: unknown[]; expression?: unknown };
    if (x.type === 'group') group(x.patterns);
    else if (x.type === 'operation' && (x.args?.[0] as { type?: string } | undefined)?.type === 'bgp') group(x.args);
    else if (x.type === 'operation') x.args?.forEach(expression);
    else if (x.type === 'aggregate') expression(x.expression);
  };
  group(q.where);
  for (const v of (q as { variables?: unknown[] }).variables ?? []) expression((v as { expression?: unknown }).expression);
  for (const h of (q as { having?: unknown[] }).having ?? []) expression(h);
  for (const o of (q as { order?: { expression: unknown }[] }).order ?? []) expression(o.expression);
}

/** Codepoint escapes (\uXXXX, \UXXXXXXXX) are replaced before parsing (SPARQL 1.1 §19.2), so
 * they work in IRIs and names too; sparqljs only reads them inside strings. */
export function unescapeCodepoints(text: string): string {
  if (!text.includes('\\u') && !text.includes('\\U')) return text;
  return text.replace(/\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})/g, (m, four: string | undefined, eight: string | undefined, at: number) => {
    // An escaped backslash (`\\u0041` in a string) is not an escape.
    let slashes = 0;
    for (let i = at - 1; i >= 0 && text.charCodeAt(i) === 92; i--) slashes++;
    if (slashes % 2 === 1) return m;
    const cp = parseInt(four ?? eight!, 16);
    // Surrogates cannot stand alone; leave such escapes for the parser to judge.
    return cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? m : String.fromCodePoint(cp);
  });
}
