/**
 * The `format` and `output` query parameters, as Fuseki accepts them (docs/graph-server.md
 * "Formats"): a short name or a media type that replaces the Accept header. A short name stands
 * for one type per kind of answer (`xml`: SPARQL XML results for SELECT/ASK, RDF/XML for a graph),
 * so it is turned into an Accept value listing those and the worker picks the one that fits once
 * the query form is known. An unknown short name is a 400 naming it.
 */
import type { FastifyRequest } from 'fastify';
import { GraphServerError } from './errors.js';
import {
  JSON_LD, N_QUADS, N_TRIPLES, RDF_XML, SPARQL_RESULTS_CSV, SPARQL_RESULTS_JSON, SPARQL_RESULTS_TSV, SPARQL_RESULTS_XML, TRIG, TURTLE,
} from './sparql-results.js';

/** Short name -> the media types it stands for (results, graph). */
export const FORMAT_NAMES: Readonly<Record<string, readonly string[]>> = {
  json: [SPARQL_RESULTS_JSON, JSON_LD],
  srj: [SPARQL_RESULTS_JSON],
  xml: [SPARQL_RESULTS_XML, RDF_XML],
  srx: [SPARQL_RESULTS_XML],
  csv: [SPARQL_RESULTS_CSV],
  tsv: [SPARQL_RESULTS_TSV],
  // Fuseki's `text` is a text table for results, which is not offered (use csv or tsv); for a
  // graph it is N-Triples, whose old type is text/plain.
  text: [N_TRIPLES],
  ttl: [TURTLE],
  turtle: [TURTLE],
  nt: [N_TRIPLES],
  ntriples: [N_TRIPLES],
  'n-triples': [N_TRIPLES],
  nq: [N_QUADS],
  nquads: [N_QUADS],
  'n-quads': [N_QUADS],
  trig: [TRIG],
  jsonld: [JSON_LD],
  'json-ld': [JSON_LD],
  rdfxml: [RDF_XML],
  'rdf/xml': [RDF_XML],
  'rdf+xml': [RDF_XML],
  rdf: [RDF_XML],
};

const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/i;

function values(source: Record<string, unknown> | undefined, name: string): string[] {
  const value = source?.[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

/**
 * The Accept value that the request's `format` / `output` parameters (URL or form body) stand
 * for, with the parameters as given; undefined when there is none. Several values are allowed
 * and keep their order (SPARQLWrapper sends each format twice, e.g. `format=tsv` and
 * `format=text/tab-separated-values`, and a media type list such as
 * `application/ld+json,application/x-json+ld`): the first one that can carry the answer wins.
 * Throws 400 naming a value that is neither a known short name nor a media type.
 */
export function formatParameter(request: FastifyRequest, form?: Record<string, unknown>): { accept: string; given: string } | undefined {
  const url = (request.query ?? {}) as Record<string, unknown>;
  const given = [...values(url, 'format'), ...values(url, 'output'), ...values(form, 'format'), ...values(form, 'output')];
  // A `+` written unescaped in a URL arrives as a space (`rdf+xml`, `application/rdf+xml`).
  const items = given.flatMap((v) => v.split(',')).map((v) => v.trim().replace(/ /g, '+')).filter((v) => v !== '');
  if (items.length === 0) return undefined;
  const types: string[] = [];
  for (const item of items) {
    const named = FORMAT_NAMES[item.toLowerCase()];
    if (named !== undefined) types.push(...named);
    else if (MEDIA_TYPE.test(item.split(';')[0]!.trim())) types.push(item);
    else throw new GraphServerError('BAD_REQUEST', `unknown format ${JSON.stringify(item)} (format= / output=): use one of ${Object.keys(FORMAT_NAMES).join(', ')}, or a media type`);
  }
  // Falling q-values keep the parameters' order (the negotiator breaks ties by its own preference).
  const accept = [...new Set(types)].slice(0, 500).map((type, i) => `${type};q=${((1000 - i) / 1000).toFixed(3)}`).join(', ');
  return { accept, given: [...new Set(given)].join(', ') };
}

/** The Accept value a negotiated read goes by: the format parameter's, else the header. */
export function acceptOf(request: FastifyRequest, form?: Record<string, unknown>): { accept: string | undefined; format: string | undefined } {
  const param = formatParameter(request, form);
  if (param !== undefined) return { accept: param.accept, format: param.given };
  return { accept: request.headers.accept, format: undefined };
}
