/**
 * The RDF-centric "core" types shared by the Dataset and Traversal schemas (graphql-jena's core
 * schema: `Node {kind value triple datatype language}`, `Triple`, `Quad`, `NodeKind`, the
 * `NodeFilter` input). Written here as SDL; the type and field names and the argument shapes are the
 * reference's interface, so a reference client's queries validate unchanged.
 *
 * Term mapping (as the reference answers on Jena 5, where every literal has a datatype):
 *   IRI → URI (value = the IRI); blank node → BLANK (value = its label);
 *   literal with a language → LANGUAGE_LITERAL (datatype rdf:langString);
 *   any other literal, xsd:string included → TYPED_LITERAL (datatype given).
 *   PLAIN_LITERAL is accepted in filters (an xsd:string literal) but never returned; TRIPLE and
 *   VARIABLE terms do not occur in ianode's store, so filters of those kinds match nothing.
 * The default graph is reported as the URI `urn:x-arq:DefaultGraph` (Jena's name for it), and a graph
 * filter with that URI selects the default graph.
 */
import { blankNode, literal, namedNode, RDF_LANG_STRING, XSD_STRING, type Dataset, type Literal, type Term } from '@ianode/rdf';
import { TraversalError } from './errors.js';

export const CORE_SDL = `
"A triple term (RDF-star); ianode stores none, so no Node has one."
type Triple {
  subject: Node!
  predicate: Node!
  object: Node!
}

type Quad {
  subject: Node!
  predicate: Node!
  object: Node!
  graph: Node!
}

enum NodeKind {
  URI
  BLANK
  PLAIN_LITERAL
  LANGUAGE_LITERAL
  TYPED_LITERAL
  VARIABLE
  TRIPLE
}

"An RDF term."
type Node {
  kind: NodeKind!
  value: String
  triple: Triple
  datatype: String
  language: String
}

"Names one RDF term (the same shape as Node)."
input NodeFilter {
  kind: NodeKind!
  value: String
  triple: TripleFilter
  datatype: String
  language: String
}

input TripleFilter {
  subject: NodeFilter!
  predicate: NodeFilter!
  object: NodeFilter!
}
`;

/** Jena's IRI for the default graph. */
export const DEFAULT_GRAPH_IRI = 'urn:x-arq:DefaultGraph';

export type NodeKind = 'URI' | 'BLANK' | 'PLAIN_LITERAL' | 'LANGUAGE_LITERAL' | 'TYPED_LITERAL' | 'VARIABLE' | 'TRIPLE';

export interface NodeFilterArg {
  kind: NodeKind;
  value?: string | null;
  triple?: unknown;
  datatype?: string | null;
  language?: string | null;
}

/** What a core `Node` field resolves from: a term id of the request's dataset. */
export interface CoreNodeRef {
  id: number;
}

export function kindOf(term: Term): NodeKind {
  switch (term.termType) {
    case 'NamedNode':
    case 'DefaultGraph':
      return 'URI';
    case 'BlankNode':
      return 'BLANK';
    default:
      return (term as Literal).language ? 'LANGUAGE_LITERAL' : 'TYPED_LITERAL';
  }
}

/** The `Node` object of a term id (id 0 = the default graph). */
export function coreNode(dataset: Dataset, id: number): Record<string, unknown> {
  if (id === 0) return { kind: 'URI', value: DEFAULT_GRAPH_IRI, triple: null, datatype: null, language: null };
  const term = dataset.term(id);
  const kind = kindOf(term);
  const lit = term as Literal;
  return {
    kind,
    value: term.value,
    triple: null,
    datatype: kind === 'LANGUAGE_LITERAL' ? RDF_LANG_STRING : kind === 'TYPED_LITERAL' ? lit.datatype.value : null,
    language: kind === 'LANGUAGE_LITERAL' ? lit.language : null,
  };
}

/**
 * The term id a filter names: `undefined` = any (no filter), `null` = a term this dataset has never
 * seen (so nothing matches), else the id. A filter without the value its kind needs is a GraphQL
 * error naming the field.
 */
export function filterId(dataset: Dataset, filter: NodeFilterArg | null | undefined, where: string): number | null | undefined {
  if (filter === undefined || filter === null) return undefined;
  const value = filter.value;
  if (filter.kind === 'TRIPLE' || filter.kind === 'VARIABLE') return null;
  if (value === undefined || value === null) {
    throw new TraversalError('BAD_REQUEST', `${where}: a ${filter.kind} NodeFilter needs a value`);
  }
  let term: Term;
  switch (filter.kind) {
    case 'URI':
      if (value === DEFAULT_GRAPH_IRI) return 0;
      term = namedNode(value);
      break;
    case 'BLANK':
      term = blankNode(value);
      break;
    case 'PLAIN_LITERAL':
      term = literal(value);
      break;
    case 'LANGUAGE_LITERAL':
      if (!filter.language) throw new TraversalError('BAD_REQUEST', `${where}: a LANGUAGE_LITERAL NodeFilter needs a language`);
      term = literal(value, filter.language.toLowerCase());
      break;
    case 'TYPED_LITERAL':
      term = literal(value, namedNode(filter.datatype || XSD_STRING));
      break;
  }
  const id = dataset.lookup(term);
  // Language tags are stored as parsed: try the tag as given when the lower-cased one is unknown.
  if (id === undefined && filter.kind === 'LANGUAGE_LITERAL') return dataset.lookup(literal(value, filter.language!)) ?? null;
  return id ?? null;
}
