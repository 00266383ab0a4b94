/**
 * SPARQL 1.1 Service Description (https://www.w3.org/TR/sparql11-service-description/): a GET on a
 * SPARQL endpoint without a `query` (or `update`) parameter answers an RDF description of the
 * service, content-negotiated (Turtle by default, and when the client accepts no RDF format).
 *
 * It describes the service, never the data: no graph names, no counts (in secure mode those would
 * depend on the caller's view). `sd:endpoint` is the URL the client addressed (origin from the
 * Host header). No `sd:feature` is claimed: the default graph is not the union of the named graphs
 * (UnionDefaultGraph), empty graphs are not kept (EmptyGraphs), FROM never fetches documents
 * (DereferencesURIs), SERVICE is not supported (BasicFederatedQuery) and a dataset is never
 * required (RequiresDataset).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { factory, type Quad } from '@ianode/rdf';
import { negotiateResultType, serialiseResult, TURTLE } from '../sparql-results.js';
import { endpointUrl } from '../request-iri.js';
import { sendChunks } from './respond.js';
import { acceptOf } from '../format-param.js';

const SD = 'http://www.w3.org/ns/sparql-service-description#';
const FORMATS = 'http://www.w3.org/ns/formats/';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/** What an endpoint runs: queries (`/ds/query`, `/ds/sparql`), updates (`/ds/update`) or both (`/ds`). */
export type EndpointKind = 'query' | 'update' | 'both';

/** The formats a query answers in (results of SELECT/ASK, then graphs of CONSTRUCT/DESCRIBE). */
const RESULT_FORMATS = ['SPARQL_Results_JSON', 'SPARQL_Results_XML', 'SPARQL_Results_CSV', 'SPARQL_Results_TSV', 'Turtle', 'N-Triples', 'N-Quads', 'TriG', 'JSON-LD', 'RDF_XML'];

/** The description of the endpoint at `endpoint` as quads (default graph). */
export function serviceDescription(endpoint: string, kind: EndpointKind): Quad[] {
  const { namedNode, blankNode, quad } = factory;
  const service = blankNode('service');
  const dataset = blankNode('dataset');
  const defaultGraph = blankNode('defaultGraph');
  const sd = (name: string) => namedNode(SD + name);
  const type = namedNode(RDF_TYPE);
  const quads: Quad[] = [
    quad(service, type, sd('Service')),
    quad(service, sd('endpoint'), namedNode(endpoint)),
  ];
  const languages = kind === 'query' ? ['SPARQL10Query', 'SPARQL11Query'] : kind === 'update' ? ['SPARQL11Update'] : ['SPARQL10Query', 'SPARQL11Query', 'SPARQL11Update'];
  for (const language of languages) quads.push(quad(service, sd('supportedLanguage'), sd(language)));
  if (kind !== 'update') {
    for (const format of RESULT_FORMATS) quads.push(quad(service, sd('resultFormat'), namedNode(FORMATS + format)));
  }
  quads.push(
    quad(service, sd('defaultDataset'), dataset),
    quad(dataset, type, sd('Dataset')),
    quad(dataset, sd('defaultGraph'), defaultGraph),
    quad(defaultGraph, type, sd('Graph')),
  );
  return quads;
}

/** Answers the service description of the endpoint at `path` (e.g. `/ds`), in the format the client accepts. */
export async function sendServiceDescription(request: FastifyRequest, reply: FastifyReply, path: string, kind: EndpointKind): Promise<FastifyReply> {
  const quads = serviceDescription(endpointUrl(request, path), kind);
  const mediaType = negotiateResultType(acceptOf(request).accept, 'quads') ?? TURTLE;
  return sendChunks(request, reply, mediaType, serialiseResult({ type: 'quads', quads }, mediaType));
}
