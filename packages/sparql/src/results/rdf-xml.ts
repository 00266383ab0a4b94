/**
 * Triples as RDF/XML (https://www.w3.org/TR/rdf-syntax-grammar/), streamed: each run of
 * consecutive triples with the same subject becomes one `rdf:Description`, so nothing is buffered
 * beyond a run.
 *
 * Written by hand: the only streaming RDF/XML writer on npm, @graphy/content.xml.scribe, has had
 * no release since 2020 and its family is unmaintained; N3.js and rdf-serialize have no RDF/XML
 * writer. The subset used here is small and regular:
 * - subjects `rdf:about="IRI"` or `rdf:nodeID="..."`; objects `rdf:resource`, `rdf:nodeID`, or the
 *   literal as element text with `xml:lang` or `rdf:datatype`;
 * - each predicate IRI is split into a namespace and the longest suffix that is an XML NCName,
 *   declared on the property element itself (`<ns:local xmlns:ns="...">`), so no prefix table has
 *   to be known before the first triple; `rdf:` terms use the root's declaration;
 * - blank node labels become NCNames injectively (`b` + the label, any character other than
 *   ASCII letters, digits, `-` and `.` written `_hex_`).
 * What RDF/XML cannot hold is refused with an RdfXmlError naming the term (the server answers 406
 * when that happens before the first byte): a predicate with no NCName suffix (`http://ex/1`,
 * `http://ex/p/`), an RDF syntax term as a predicate (`rdf:li` would be read back as `rdf:_n`),
 * characters XML 1.0 cannot carry even escaped (most C0 controls), a named graph.
 */
import { RDF_LANG_STRING, RDF_NS, XSD_STRING, type Quad, type Term } from '@ianode/rdf';

export class RdfXmlError extends TypeError {
  override name = 'RdfXmlError';
}

// NCName (Namespaces in XML 1.0): NameStartChar minus ':' and NameChar minus ':'.
const NAME_START = 'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME_CHAR = NAME_START + '\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040';
const NAME_START_CHAR = new RegExp(`[${NAME_START}]`, 'u');
// eslint-disable-next-line no-misleading-character-class -- combining marks (U+0300-036F) are NameChars on their own, as XML lists them
const NOT_NAME_CHAR = new RegExp(`[^${NAME_CHAR}]`, 'u');

/** Characters XML 1.0 cannot carry at all, even as character references. */
// eslint-disable-next-line no-control-regex -- these are exactly the characters to refuse
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** RDF syntax terms that cannot be property elements (RDF/XML §7.2.5 and §7.2.14, `li`). */
const NOT_PROPERTY = new Set(['RDF', 'ID', 'about', 'parseType', 'resource', 'nodeID', 'datatype', 'Description', 'aboutEach', 'aboutEachPrefix', 'bagID', 'li']);

function checkXml(text: string, what: string): void {
  if (NOT_XML.test(text)) throw new RdfXmlError(`${what} has a character XML 1.0 cannot carry (a control character): use Turtle, N-Triples or JSON-LD`);
}

const ATTR_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };
const TEXT_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };

/** An attribute value, quoted; tabs and line breaks as references (attribute normalisation would
 * turn them into spaces). */
function attr(value: string, what: string): string {
  checkXml(value, what);
  return '"' + value.replace(/[&<>"\t\n\r]/g, (c) => ATTR_ESCAPES[c]!) + '"';
}

/** Element text (a CR as a reference: XML parsers turn a raw one into LF). */
function text(value: string): string {
  checkXml(value, 'a literal');
  return value.replace(/[&<>\r]/g, (c) => TEXT_ESCAPES[c]!);
}

/** A blank node label as an NCName, injectively. */
export function nodeId(label: string): string {
  let out = 'b';
  for (const c of label) out += /[A-Za-z0-9.-]/.test(c) ? c : `_${c.codePointAt(0)!.toString(16)}_`;
  return out;
}

/** `[namespace, local]` of a predicate IRI, or throws RdfXmlError. */
export function splitPredicate(iri: string): [string, string] {
  // The longest run of NameChars that ends the IRI, from its first NameStartChar on.
  let start = iri.length;
  while (start > 0) {
    const code = iri.codePointAt(start - 1)!;
    const width = code >= 0xdc00 && code <= 0xdfff && start >= 2 ? 2 : 1;
    if (NOT_NAME_CHAR.test(iri.slice(start - width, start))) break;
    start -= width;
  }
  const first = iri.slice(start).search(NAME_START_CHAR);
  if (first < 0 || start + first === 0) {
    throw new RdfXmlError(`the predicate <${iri}> cannot be written in RDF/XML (it does not end in an XML name): use Turtle, N-Triples or JSON-LD`);
  }
  const namespace = iri.slice(0, start + first);
  const local = iri.slice(start + first);
  if (namespace === RDF_NS && NOT_PROPERTY.has(local)) {
    throw new RdfXmlError(`the predicate <${iri}> is RDF/XML syntax and cannot be written as a property: use Turtle, N-Triples or JSON-LD`);
  }
  return [namespace, local];
}

function subjectAttr(term: Term): string {
  if (term.termType === 'NamedNode') return `rdf:about=${attr(term.value, 'an IRI')}`;
  if (term.termType === 'BlankNode') return `rdf:nodeID="${nodeId(term.value)}"`;
  throw new RdfXmlError(`a ${term.termType} cannot be a subject`);
}

/** `[open tag start, element name]` of a predicate's property element. */
function propertyElement(iri: string): [string, string] {
  const [namespace, local] = splitPredicate(iri);
  const name = namespace === RDF_NS ? `rdf:${local}` : `ns:${local}`;
  return [namespace === RDF_NS ? `<${name}` : `<${name} xmlns:ns=${attr(namespace, 'an IRI')}`, name];
}

function property(elements: Map<string, [string, string]>, predicate: Term, object: Term): string {
  if (predicate.termType !== 'NamedNode') throw new RdfXmlError(`a ${predicate.termType} cannot be a predicate`);
  let element = elements.get(predicate.value);
  if (element === undefined) {
    element = propertyElement(predicate.value);
    if (elements.size < 4096) elements.set(predicate.value, element);
  }
  const [open, name] = element;
  switch (object.termType) {
    case 'NamedNode':
      return `  ${open} rdf:resource=${attr(object.value, 'an IRI')}/>\n`;
    case 'BlankNode':
      return `  ${open} rdf:nodeID="${nodeId(object.value)}"/>\n`;
    case 'Literal': {
      let attrs = '';
      if (object.language) attrs = ` xml:lang=${attr(object.language, 'a language tag')}`;
      else if (object.datatype.value !== XSD_STRING && object.datatype.value !== RDF_LANG_STRING) attrs = ` rdf:datatype=${attr(object.datatype.value, 'a datatype IRI')}`;
      return `  ${open}${attrs}>${text(object.value)}</${name}>\n`;
    }
    default:
      throw new RdfXmlError(`a ${object.termType} cannot be an object`);
  }
}

/** The document in chunks, one per `rdf:Description`. */
export function* rdfXmlChunks(quads: Iterable<Quad>): Generator<string> {
  yield `<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF xmlns:rdf="${RDF_NS}">\n`;
  let open: Term | undefined;
  let node = '';
  const elements = new Map<string, [string, string]>(); // predicates are few: split each once
  for (const q of quads) {
    if (q.graph.termType !== 'DefaultGraph') throw new RdfXmlError('RDF/XML cannot hold named graphs: use TriG, N-Quads or JSON-LD');
    const same = open !== undefined && open.termType === q.subject.termType && open.value === q.subject.value;
    if (!same) {
      if (open !== undefined) {
        yield node + '</rdf:Description>\n';
        node = '';
      }
      node = `<rdf:Description ${subjectAttr(q.subject)}>\n`;
      open = q.subject;
    }
    node += property(elements, q.predicate, q.object);
  }
  if (open !== undefined) yield node + '</rdf:Description>\n';
  yield '</rdf:RDF>\n';
}
