/**
 * Graph Store Protocol reads (GET/HEAD of a graph, the default graph, or the whole dataset) as a
 * query worker runs them (./worker.ts): the graph is looked up in the caller's view (404 when the
 * caller sees none of it), the format negotiated, and the quads serialised in chunks.
 */
import { defaultGraph, factory, namedNode, type Dataset, type Quad } from '@ianode/rdf';
import { GraphServerError } from '../errors.js';
import { GRAPH_MEDIA_TYPES, negotiateResultType, serialiseResult, N_TRIPLES, RDF_XML, TRIG, TURTLE } from '../sparql-results.js';

/** What a request names: the default graph, a named graph, or (neither parameter) the dataset. */
export type GraphTarget = { kind: 'default' } | { kind: 'graph'; iri: string } | { kind: 'dataset' };

function* quadsOf(view: Dataset, g: number | undefined): Generator<Quad> {
  const dg = defaultGraph();
  for (const q of view.match(g === undefined ? {} : { g })) {
    const graph = g !== undefined || q.g === 0 ? dg : view.term(q.g);
    yield factory.quad(view.term(q.s) as Quad['subject'], view.term(q.p) as Quad['predicate'], view.term(q.o) as Quad['object'], graph as Quad['graph']);
  }
}

/** What a 406 says the client asked for: its `format`/`output` parameter when it replaced the
 * Accept header, else the header. */
export function askedFor(accept: string | undefined, format: string | undefined): string {
  return format === undefined ? `Accept: ${JSON.stringify(accept)}` : `the format parameter ${JSON.stringify(format)}`;
}

/** The media type and chunks of a graph read; throws NOT_FOUND / NOT_ACCEPTABLE. */
export function readGraph(view: Dataset, target: GraphTarget, accept: string | undefined, datasetName: string, format?: string): { mediaType: string; chunks: AsyncIterable<string> } {
  let g: number | undefined;
  if (target.kind === 'default') g = 0;
  else if (target.kind === 'graph') {
    const id = view.lookup(namedNode(target.iri));
    if (id === undefined || view.count({ g: id }) === 0) throw new GraphServerError('NOT_FOUND', `no graph <${target.iri}> in /${datasetName}`);
    g = id;
  }
  let mediaType = negotiateResultType(accept, 'quads');
  if (g === undefined && (mediaType === TURTLE || mediaType === N_TRIPLES || mediaType === RDF_XML)) {
    // The whole dataset has named graphs: only the quad formats can carry it.
    if (accept !== undefined && /turtle|n-triples|rdf\+xml/i.test(accept) && !/trig|n-quads|ld\+json|\*\/\*/i.test(accept)) {
      throw new GraphServerError('NOT_ACCEPTABLE', 'the whole dataset is served as application/trig, application/n-quads or application/ld+json');
    }
    mediaType = TRIG;
  }
  if (mediaType === undefined) {
    throw new GraphServerError('NOT_ACCEPTABLE', `cannot serve a graph in ${askedFor(accept, format)}: offered ${GRAPH_MEDIA_TYPES.join(', ')}`);
  }
  return { mediaType, chunks: serialiseResult({ type: 'quads', quads: quadsOf(view, g) }, mediaType) };
}
