/**
 * Quads as JSON-LD 1.1 in expanded form (https://www.w3.org/TR/json-ld11/ §5.1, "expanded document
 * form"): a top-level array of node objects; quads of a named graph inside a graph object
 * `{"@id": graph, "@graph": [...]}`. Written by hand and streamed: each run of consecutive quads
 * with the same graph and subject becomes one node object, so nothing is buffered beyond a run (a property seen
 * earlier in the run starts a new node object for the same subject, as JSON keys must be unique).
 * A JSON-LD processor merges node objects that share an `@id`; the RDF a document yields
 * (JSON-LD 1.1 API §8 "Deserialize JSON-LD to RDF") is exactly the quads written, literals keeping
 * their lexical form (`{"@value": "01", "@type": xsd:integer}` is not normalised).
 */
import { RDF_LANG_STRING, XSD_STRING, type Quad, type Term } from '@ianode/rdf';

function id(term: Term): string {
  if (term.termType === 'NamedNode') return term.value;
  if (term.termType === 'BlankNode') return '_:' + term.value;
  throw new TypeError(`a ${term.termType} cannot be a subject or a graph name`);
}

function objectJson(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
    case 'BlankNode':
      return JSON.stringify({ '@id': id(term) });
    case 'Literal': {
      if (term.language) return JSON.stringify({ '@value': term.value, '@language': term.language });
      const dt = term.datatype.value;
      if (dt === XSD_STRING || dt === RDF_LANG_STRING) return JSON.stringify({ '@value': term.value });
      return JSON.stringify({ '@value': term.value, '@type': dt });
    }
    default:
      throw new TypeError(`a ${term.termType} cannot be an object`);
  }
}

/** The document in chunks, one per node object. */
export function* jsonLdChunks(quads: Iterable<Quad>): Generator<string> {
  yield '[';
  let graph: string | undefined; // the open graph object's @id; undefined = default graph
  let subject: string | undefined; // the open node object's @id
  let predicate: string | undefined; // the open property's IRI
  const predicates = new Set<string>(); // the properties of the open node object (JSON keys are unique)
  let firstNode = true;
  let node = '';
  const closeNode = (): string => {
    if (subject === undefined) return '';
    subject = undefined;
    predicate = undefined;
    predicates.clear();
    return ']}';
  };
  for (const q of quads) {
    const g = q.graph.termType === 'DefaultGraph' ? undefined : id(q.graph);
    const s = id(q.subject);
    if (q.predicate.termType !== 'NamedNode') throw new TypeError(`a ${q.predicate.termType} cannot be a predicate`);
    const p = q.predicate.value;
    if (subject !== undefined && s === subject && g === graph && (p === predicate || !predicates.has(p))) {
      node = p === predicate ? ',' : '],' + JSON.stringify(p) + ':[';
    } else {
      node = closeNode();
      if (g !== graph) {
        if (graph !== undefined) node += ']}';
        graph = g;
        if (graph !== undefined) {
          node += (firstNode ? '\n' : ',\n') + `{"@id":${JSON.stringify(graph)},"@graph":[`;
          firstNode = true;
        }
      }
      node += (firstNode ? '\n' : ',\n') + `{"@id":${JSON.stringify(s)},${JSON.stringify(p)}:[`;
      firstNode = false;
      subject = s;
    }
    predicate = p;
    predicates.add(p);
    yield node + objectJson(q.object);
  }
  yield closeNode() + (graph !== undefined ? ']}' : '') + '\n]\n';
}
