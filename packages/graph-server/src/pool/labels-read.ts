/**
 * `GET /{ds}/labels` as a query worker runs it (./worker.ts): the labels of the caller's view in
 * RDF-ABAC's labels-graph shape, one blank node per labelled quad,
 *
 *     [ authz:pattern "<s> <p> <o>" ; authz:label "label" ]          (default graph)
 *     [ authz:pattern "<g> <s> <p> <o>" ; authz:label "label" ]      (named graph: graph first)
 *
 * which is what RDF-ABAC's labels store dump answers and what an upload's labels graph reads back
 * (a dump can be uploaded again as it is). Only quads with a label of their own are listed: quads
 * under the dataset default have none, as in the reference's store. The terms are written in
 * N-Triples form, so no prefix is needed to read a pattern back.
 */
import { blankNode, defaultGraph, factory, literal, namedNode, termToNTriples, type Quad } from '@ianode/rdf';
import type { SnapshotDataset } from '@ianode/store';
import { GraphServerError } from '../errors.js';
import { GRAPH_MEDIA_TYPES, negotiateResultType, serialiseResult } from '../sparql-results.js';
import { askedFor } from './graph-read.js';

export const AUTHZ = 'http://telicent.io/security#';
const PATTERN = namedNode(`${AUTHZ}pattern`);
const LABEL = namedNode(`${AUTHZ}label`);

/** The labels-graph triples of the view's labelled quads. */
export function* labelTriples(view: SnapshotDataset): Generator<Quad> {
  const dg = defaultGraph();
  let n = 0;
  for (const q of view.labelled()) {
    const terms = [q.s, q.p, q.o].map((id) => termToNTriples(view.term(id)));
    if (q.g !== 0) terms.unshift(termToNTriples(view.term(q.g)));
    const node = blankNode(`l${n++}`);
    yield factory.quad(node, PATTERN, literal(terms.join(' ')), dg);
    yield factory.quad(node, LABEL, literal(q.label), dg);
  }
}

/** Media type and chunks of the labels graph; throws NOT_ACCEPTABLE. A graph: Turtle by default
 * (as the reference), N-Triples, RDF/XML, JSON-LD, or TriG / N-Quads (its default graph). */
export function readLabels(view: SnapshotDataset, accept: string | undefined, format?: string): { mediaType: string; chunks: AsyncIterable<string> } {
  const mediaType = negotiateResultType(accept, 'quads');
  if (mediaType === undefined) {
    throw new GraphServerError('NOT_ACCEPTABLE', `cannot serve the labels graph in ${askedFor(accept, format)}: offered ${GRAPH_MEDIA_TYPES.join(', ')}`);
  }
  return { mediaType, chunks: serialiseResult({ type: 'quads', quads: labelTriples(view) }, mediaType) };
}
