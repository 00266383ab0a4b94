/**
 * `POST /{ds}/shacl` as a query worker runs it (./worker.ts): SHACL validation of one graph of the
 * CALLER'S VIEW against the shapes graph of the request body, with rdf-validate-shacl (Zazuko's
 * SHACL Core engine on the RDF/JS stack; see docs/graph-server.md "SHACL validation").
 *
 * The engine reads the data through `ViewGraph`, an RDF/JS DatasetCore over the view: every quad
 * it can see has passed the caller's label check, so the report (focus nodes, values, counts
 * behind sh:minCount and sh:class) is computed from visible data only and can name nothing else.
 * Nothing is copied: each `match` the engine makes is one index lookup on the view.
 */
import SHACLValidator from 'rdf-validate-shacl';
import type * as RDF from '@rdfjs/types';
import { defaultGraph, factory, parseQuads, type Dataset, type Quad, type RdfFormat } from '@ianode/rdf';
import { GraphServerError } from '../errors.js';
import { GRAPH_MEDIA_TYPES, negotiateResultType, serialiseResult } from '../sparql-results.js';
import { askedFor } from './graph-read.js';

/** The data graph a validation runs over: the default graph, the union of all graphs (each triple
 * once), or one named graph. */
export type ShaclTarget = { kind: 'default' } | { kind: 'union' } | { kind: 'graph'; iri: string };

/** A fixed list of quads as an RDF/JS DatasetCore (what `match` answers). */
class QuadList implements RDF.DatasetCore {
  constructor(private readonly quads: Quad[]) {}
  get size(): number {
    return this.quads.length;
  }
  match(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): RDF.DatasetCore {
    return new QuadList(this.quads.filter((q) => (!s || q.subject.equals(s)) && (!p || q.predicate.equals(p)) && (!o || q.object.equals(o)) && (!g || q.graph.equals(g))));
  }
  has(quad: RDF.Quad): boolean {
    return this.quads.some((q) => q.equals(quad));
  }
  add(): this {
    throw new TypeError('read-only');
  }
  delete(): this {
    throw new TypeError('read-only');
  }
  [Symbol.iterator](): Iterator<Quad> {
    return this.quads[Symbol.iterator]();
  }
}

/**
 * One graph of a view as a read-only RDF/JS DatasetCore, its triples in the default graph (SHACL
 * validates a data graph). `g` undefined = the union of every graph.
 */
export class ViewGraph implements RDF.DatasetCore {
  constructor(private readonly view: Dataset, private readonly g: number | undefined) {}

  get size(): number {
    if (this.g !== undefined) return this.view.count({ g: this.g });
    return this.match().size;
  }

  match(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): RDF.DatasetCore {
    const empty = new QuadList([]);
    // The data graph is presented as the default graph: a named graph term matches nothing.
    if (g && g.termType !== 'DefaultGraph') return empty;
    const pattern: { s?: number; p?: number; o?: number; g?: number } = {};
    if (this.g !== undefined) pattern.g = this.g;
    for (const [key, term] of [['s', s], ['p', p], ['o', o]] as const) {
      if (!term) continue;
      if (term.termType === 'Variable' || term.termType === 'DefaultGraph' || term.termType === 'Quad') return empty;
      const id = this.view.lookup(term);
      if (id === undefined) return empty;
      pattern[key] = id;
    }
    const out: Quad[] = [];
    const seen = this.g === undefined ? new Set<string>() : undefined;
    const dg = defaultGraph();
    for (const q of this.view.match(pattern)) {
      if (seen !== undefined) {
        const key = `${q.s} ${q.p} ${q.o}`;
        if (seen.has(key)) continue;
        seen.add(key);
      }
      out.push(factory.quad(this.view.term(q.s) as Quad['subject'], this.view.term(q.p) as Quad['predicate'], this.view.term(q.o) as Quad['object'], dg));
    }
    return new QuadList(out);
  }

  has(quad: RDF.Quad): boolean {
    return this.match(quad.subject, quad.predicate, quad.object, quad.graph).size > 0;
  }
  add(): this {
    throw new TypeError('the data graph of a SHACL validation is read-only');
  }
  delete(): this {
    throw new TypeError('the data graph of a SHACL validation is read-only');
  }
  [Symbol.iterator](): Iterator<Quad> {
    return (this.match() as QuadList)[Symbol.iterator]();
  }
}

export interface ShaclInput {
  /** The shapes graph as text in `format` (JSON-LD and RDF/XML arrive converted to N-Quads). */
  shapes: string;
  format: RdfFormat;
  baseIRI: string | undefined;
  target: ShaclTarget;
  accept: string | undefined;
  formatParam?: string | undefined;
  datasetName: string;
}

/** Validates and answers the report: its media type and chunks. Throws BAD_REQUEST (shapes),
 * NOT_FOUND (a named graph the caller sees nothing of), NOT_ACCEPTABLE. */
export async function runShacl(view: Dataset, input: ShaclInput): Promise<{ mediaType: string; chunks: AsyncIterable<string> }> {
  const mediaType = negotiateResultType(input.accept, 'quads');
  if (mediaType === undefined) {
    throw new GraphServerError('NOT_ACCEPTABLE', `cannot serve a validation report in ${askedFor(input.accept, input.formatParam)}: offered ${GRAPH_MEDIA_TYPES.join(', ')}`);
  }
  // Shapes are parsed with ianode's own parser (RdfSyntaxError: 400 with the position).
  const { quads: shapeQuads } = parseQuads(input.shapes, { format: input.format, baseIRI: input.baseIRI });
  // SHACL reads the shapes graph as one graph: quads of a TriG body's named graphs join it.
  const shapes = new QuadList(shapeQuads.map((q) => factory.quad(q.subject, q.predicate, q.object, defaultGraph())));
  let g: number | undefined;
  if (input.target.kind === 'default') g = 0;
  else if (input.target.kind === 'graph') {
    const id = view.lookup(factory.namedNode(input.target.iri));
    if (id === undefined || view.count({ g: id }) === 0) throw new GraphServerError('NOT_FOUND', `no graph <${input.target.iri}> in /${input.datasetName}`);
    g = id;
  }
  let report;
  try {
    const validator = new SHACLValidator(shapes, {
      // owl:imports would make the server fetch URLs a caller chose: refused.
      importGraph: (url) => {
        throw new GraphServerError('BAD_REQUEST', `the shapes graph imports <${url.value}> (owl:imports): send the imported shapes in the body instead`);
      },
    });
    report = await validator.validate(new ViewGraph(view, g));
  } catch (error) {
    if (error instanceof GraphServerError) throw error;
    // The engine throws on shapes it cannot use (a malformed sh:path, an unknown constraint value).
    throw new GraphServerError('BAD_REQUEST', `the shapes graph cannot be used for validation: ${(error as Error).message}`);
  }
  const reportQuads = [...(report.dataset as Iterable<Quad>)];
  return { mediaType, chunks: serialiseResult({ type: 'quads', quads: reportQuads }, mediaType) };
}
