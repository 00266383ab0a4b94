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

/**
 * Label administration (`GET /{ds}/labels/stats`, `GET /{ds}/labels/quads`; ../routes/labels-admin.ts),
 * over the caller's view like everything else: an administrator sees the labels and counts of the
 * quads their attributes let them read (all of them with full attributes).
 *
 * The labels in use with their quad counts, by label text: quads under the dataset default (no
 * label of their own) count under the default label's text, together with any quad labelled with
 * that same text explicitly. Sorted by label.
 */
export function labelStats(view: SnapshotDataset, defaultLabel: string): { labels: { label: string; quads: number; default: boolean }[]; quads: number } {
  const counts = new Map<string, number>();
  let labelled = 0;
  for (const q of view.labelled()) {
    counts.set(q.label, (counts.get(q.label) ?? 0) + 1);
    labelled++;
  }
  const total = view.count({});
  const unlabelled = total - labelled;
  if (unlabelled > 0) counts.set(defaultLabel, (counts.get(defaultLabel) ?? 0) + unlabelled);
  const labels = [...counts].map(([label, quads]) => ({ label, quads, default: label === defaultLabel }));
  labels.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  return { labels, quads: total };
}

/** The view's quads whose label text is `label` (the default label: also the quads under the
 * default), at most `limit`, as N-Triples terms. */
export function* quadsWithLabel(view: SnapshotDataset, label: string, defaultLabel: string, limit: number): Generator<{ s: string; p: string; o: string; g: string | undefined }> {
  if (limit <= 0) return;
  const out = (q: { s: number; p: number; o: number; g: number }) => ({
    s: termToNTriples(view.term(q.s)), p: termToNTriples(view.term(q.p)), o: termToNTriples(view.term(q.o)),
    g: q.g === 0 ? undefined : termToNTriples(view.term(q.g)),
  });
  let n = 0;
  if (label !== defaultLabel) {
    for (const q of view.labelled()) {
      if (q.label !== label) continue;
      yield out(q);
      if (++n >= limit) return;
    }
    return;
  }
  // The default label: every quad without a label of its own, or with the default's text.
  const own = new Map<string, string>();
  for (const q of view.labelled()) own.set(`${q.g} ${q.s} ${q.p} ${q.o}`, q.label);
  for (const q of view.match({})) {
    const text = own.get(`${q.g} ${q.s} ${q.p} ${q.o}`) ?? defaultLabel;
    if (text !== label) continue;
    yield out(q);
    if (++n >= limit) return;
  }
}

/** The answer of a stats or quads job: JSON, or N-Quads for quads (the default for quads). */
export function readLabelAdmin(
  view: SnapshotDataset,
  job: { mode: 'stats' | 'quads'; defaultLabel: string; label?: string | undefined; limit?: number | undefined; accept: string | undefined },
): { mediaType: string; chunks: AsyncIterable<string> } {
  if (job.mode === 'stats') {
    const stats = labelStats(view, job.defaultLabel);
    return { mediaType: 'application/json', chunks: once(JSON.stringify({ defaultLabel: job.defaultLabel, ...stats })) };
  }
  const label = job.label!;
  const limit = job.limit ?? 1000;
  const json = /application\/json/i.test(job.accept ?? '') && !/application\/n-quads/i.test(job.accept ?? '');
  if (json) {
    const quads = [...quadsWithLabel(view, label, job.defaultLabel, limit + 1)];
    const truncated = quads.length > limit;
    if (truncated) quads.pop();
    return { mediaType: 'application/json', chunks: once(JSON.stringify({ label, quads: quads.map((q) => (q.g === undefined ? { s: q.s, p: q.p, o: q.o } : q)), truncated })) };
  }
  return {
    mediaType: 'application/n-quads',
    chunks: (async function* () {
      for (const q of quadsWithLabel(view, label, job.defaultLabel, limit)) yield `${q.s} ${q.p} ${q.o}${q.g === undefined ? '' : ` ${q.g}`} .\n`;
    })(),
  };
}

async function* once(text: string): AsyncIterable<string> {
  yield text;
}
