/**
 * The media types of query results and HTTP content negotiation over them (RFC 9110 §12.5.1
 * `Accept`: q-values, `type/*` and `*\/*` ranges, the most specific matching range decides).
 */
import type { QueryResult } from '../api.js';

export const SPARQL_RESULTS_JSON = 'application/sparql-results+json';
export const SPARQL_RESULTS_XML = 'application/sparql-results+xml';
export const SPARQL_RESULTS_CSV = 'text/csv';
export const SPARQL_RESULTS_TSV = 'text/tab-separated-values';
export const TURTLE = 'text/turtle';
export const TRIG = 'application/trig';
export const N_TRIPLES = 'application/n-triples';
export const N_QUADS = 'application/n-quads';
export const JSON_LD = 'application/ld+json';
export const RDF_XML = 'application/rdf+xml';

export type ResultType = QueryResult['type'];

/** Formats for solution sequences and booleans, the default first. */
export const RESULTS_MEDIA_TYPES: readonly string[] = [SPARQL_RESULTS_JSON, SPARQL_RESULTS_XML, SPARQL_RESULTS_CSV, SPARQL_RESULTS_TSV];
/** Formats for graphs (CONSTRUCT, DESCRIBE), the default first. */
export const GRAPH_MEDIA_TYPES: readonly string[] = [TURTLE, N_TRIPLES, N_QUADS, TRIG, JSON_LD, RDF_XML];

/** Other names clients use, mapped to the canonical type, per result kind. */
const RESULTS_ALIASES: Readonly<Record<string, string>> = {
  'application/json': SPARQL_RESULTS_JSON,
  'application/xml': SPARQL_RESULTS_XML,
  'text/xml': SPARQL_RESULTS_XML,
  'text/tsv': SPARQL_RESULTS_TSV,
};
const GRAPH_ALIASES: Readonly<Record<string, string>> = {
  'application/x-turtle': TURTLE,
  'application/turtle': TURTLE,
  'text/n-triples': N_TRIPLES,
  'text/plain': N_TRIPLES,
  'text/x-nquads': N_QUADS,
  'application/x-trig': TRIG,
  'application/json': JSON_LD,
  // Not application/xml: a browser asks for that at q=0.9, and should get Turtle, not RDF/XML.
  'text/rdf+xml': RDF_XML,
};

/** The media types a result of this type can be written in, the default first. */
export function mediaTypesFor(resultType: ResultType): readonly string[] {
  return resultType === 'quads' ? GRAPH_MEDIA_TYPES : RESULTS_MEDIA_TYPES;
}

/** `text/csv; charset=utf-8` -> `text/csv`; aliases (`application/json` ...) -> the canonical
 * type for this result type; undefined when the type cannot carry such a result. */
export function canonicalMediaType(mediaType: string, resultType: ResultType): string | undefined {
  const semi = mediaType.indexOf(';');
  const essence = (semi < 0 ? mediaType : mediaType.slice(0, semi)).trim().toLowerCase();
  const offered = mediaTypesFor(resultType);
  if (offered.includes(essence)) return essence;
  return (resultType === 'quads' ? GRAPH_ALIASES : RESULTS_ALIASES)[essence];
}

interface MediaRange {
  type: string; // `*` for `*/*`
  subtype: string; // `*` for `type/*`
  q: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The ranges of an Accept header; malformed ranges are dropped (RFC 9110 asks for no more). */
function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';');
    const slash = range.indexOf('/');
    if (slash < 0) continue;
    const type = range.slice(0, slash).trim().toLowerCase();
    const subtype = range.slice(slash + 1).trim().toLowerCase();
    if (!TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'q') continue;
      const value = param.slice(eq + 1).trim();
      if (!/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value)) valid = false;
      q = Number(value);
    }
    if (valid) ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The quality the client gives `mediaType`: that of the most specific range matching it, or
 * undefined when none does. */
function qualityOf(ranges: MediaRange[], mediaType: string): number | undefined {
  const [type, subtype] = mediaType.split('/') as [string, string];
  let best: { specificity: number; q: number } | undefined;
  for (const r of ranges) {
    let specificity: number;
    if (r.type === type && r.subtype === subtype) specificity = 2;
    else if (r.type === type && r.subtype === '*') specificity = 1;
    else if (r.type === '*') specificity = 0;
    else continue;
    if (!best || specificity > best.specificity || (specificity === best.specificity && r.q > best.q)) best = { specificity, q: r.q };
  }
  return best?.q;
}

/**
 * The media type to answer with, given the request's `Accept` header and the kind of result:
 * the acceptable type of highest quality, ties going to our order (JSON for solutions and
 * booleans, Turtle for graphs, as listed in RESULTS_MEDIA_TYPES / GRAPH_MEDIA_TYPES). A missing or
 * empty header accepts the default. Aliases the client names (`application/json`, `text/xml`,
 * `application/x-turtle` ...) are honoured and answered with the canonical type. Undefined when
 * nothing we can write is acceptable (the server answers 406).
 */
export function negotiateResultType(acceptHeader: string | undefined, resultType: ResultType): string | undefined {
  if (resultType !== 'bindings' && resultType !== 'boolean' && resultType !== 'quads') {
    throw new TypeError(`unknown result type ${JSON.stringify(resultType)}`);
  }
  const offered = mediaTypesFor(resultType);
  if (acceptHeader === undefined || acceptHeader.trim() === '') return offered[0];
  const ranges = parseAccept(acceptHeader);
  let best: { mediaType: string; q: number } | undefined;
  const consider = (mediaType: string, q: number | undefined): void => {
    if (q !== undefined && q > 0 && (!best || q > best.q)) best = { mediaType, q };
  };
  for (const mediaType of offered) consider(mediaType, qualityOf(ranges, mediaType));
  // Aliases only count when named exactly (a wildcard already matched the canonical type).
  const aliases = resultType === 'quads' ? GRAPH_ALIASES : RESULTS_ALIASES;
  for (const [alias, canonical] of Object.entries(aliases)) {
    const exact = ranges.filter((r) => `${r.type}/${r.subtype}` === alias);
    if (exact.length > 0) consider(canonical, Math.max(...exact.map((r) => r.q)));
  }
  return best?.mediaType;
}
