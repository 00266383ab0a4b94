/**
 * The result writers as they were before they memoised term text and buffered chunks (commit
 * 932ea5b), kept verbatim apart from names, as the reference of the differential test
 * (buffered-writers.test.ts). Kept on purpose: it repeats src/results/{json,xml,csv,tsv}.ts by
 * design (the `duplicates` tool lists those pairs), and must not import from or be merged into
 * them, or the test would compare the writers with themselves.
 */
import { RDF_LANG_STRING, termToNTriples, XSD, XSD_STRING, type Quad, type Term } from '@ianode/rdf';
import type { Solution } from '../../src/api.js';
import type { BindingsResult } from '../../src/results/index.js';

type Result = BindingsResult;

// --- json.ts
/** The JSON object of an RDF term (§3.2.2). */
function termJson(term: Term): Record<string, string> {
  switch (term.termType) {
    case 'NamedNode':
      return { type: 'uri', value: term.value };
    case 'BlankNode':
      return { type: 'bnode', value: term.value };
    case 'Literal': {
      if (term.language) return { type: 'literal', value: term.value, 'xml:lang': term.language };
      const dt = term.datatype.value;
      if (dt === XSD_STRING || dt === RDF_LANG_STRING) return { type: 'literal', value: term.value };
      return { type: 'literal', value: term.value, datatype: dt };
    }
    default:
      throw new TypeError(`a ${term.termType} cannot be a solution value`);
  }
}

function solutionJson(solution: Solution, variables: readonly string[]): string {
  const parts: string[] = [];
  for (const v of variables) {
    const term = solution.get(v);
    if (term !== undefined) parts.push(JSON.stringify(v) + ':' + JSON.stringify(termJson(term)));
  }
  return '{' + parts.join(',') + '}';
}

/** The document in chunks: the head, then one chunk per solution as it is produced, then the end. */
export function* legacyJson(result: Result): Generator<string> {
  const variables = result.variables;
  yield `{"head":{"vars":${JSON.stringify(variables)}},"results":{"bindings":[`;
  let first = true;
  for (const solution of result.solutions) {
    yield (first ? '\n' : ',\n') + solutionJson(solution, variables);
    first = false;
  }
  yield '\n]}}\n';
}

// --- xml.ts
// XML 1.0 cannot carry these at all, not even as character references: C0 controls other than
// tab, LF and CR, lone surrogates, U+FFFE and U+FFFF. They are written as U+FFFD.
// eslint-disable-next-line no-control-regex -- exactly the characters XML 1.0 forbids
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const TEXT_SPECIAL = /[&<>\r]/g;
const ATTRIBUTE_SPECIAL = /[&<>"\t\n\r]/g;
const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#x9;', '\n': '&#xA;', '\r': '&#xD;',
};
const escapeOne = (ch: string): string => ESCAPES[ch]!;

/** Character data: `&`, `<`, `>` (for `]]>`) and CR (which XML parsers would turn into LF). */
function escapeXmlText(text: string): string {
  return text.replace(NOT_XML, '\ufffd').replace(TEXT_SPECIAL, escapeOne);
}

/** An attribute value in double quotes; white space kept as character references, which
 * attribute-value normalisation leaves alone. */
function escapeXmlAttribute(text: string): string {
  return text.replace(NOT_XML, '\ufffd').replace(ATTRIBUTE_SPECIAL, escapeOne);
}

function termXml(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return `<uri>${escapeXmlText(term.value)}</uri>`;
    case 'BlankNode':
      return `<bnode>${escapeXmlText(term.value)}</bnode>`;
    case 'Literal': {
      const value = escapeXmlText(term.value);
      if (term.language) return `<literal xml:lang="${escapeXmlAttribute(term.language)}">${value}</literal>`;
      const dt = term.datatype.value;
      if (dt === XSD_STRING || dt === RDF_LANG_STRING) return `<literal>${value}</literal>`;
      return `<literal datatype="${escapeXmlAttribute(dt)}">${value}</literal>`;
    }
    default:
      throw new TypeError(`a ${term.termType} cannot be a solution value`);
  }
}

function solutionXml(solution: Solution, variables: readonly string[]): string {
  let out = '<result>';
  for (const v of variables) {
    const term = solution.get(v);
    if (term !== undefined) out += `<binding name="${escapeXmlAttribute(v)}">${termXml(term)}</binding>`;
  }
  return out + '</result>\n';
}

const PROLOGUE = '<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n';

/** The document in chunks: the head, then one chunk per solution as it is produced, then the end. */
export function* legacyXml(result: Result): Generator<string> {
  const variables = result.variables;
  yield `${PROLOGUE}<head>${variables.map((v) => `<variable name="${escapeXmlAttribute(v)}"/>`).join('')}</head>\n<results>\n`;
  for (const solution of result.solutions) yield solutionXml(solution, variables);
  yield '</results>\n</sparql>\n';
}

// --- csv.ts
const NEEDS_QUOTES = /[",\r\n]/;
function field(text: string): string {
  return NEEDS_QUOTES.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
}

function termCsv(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return field(term.value);
    case 'BlankNode':
      return '_:' + term.value;
    case 'Literal':
      return term.value === '' ? '""' : field(term.value);
    default:
      throw new TypeError(`a ${term.termType} cannot be a solution value`);
  }
}

/** The document in chunks: the header, then one chunk per solution; lines end in CRLF (§2). */
export function* legacyCsv(result: Result): Generator<string> {
  const variables = result.variables;
  yield variables.map(field).join(',') + '\r\n';
  for (const solution of result.solutions) {
    yield variables.map((v) => {
      const term = solution.get(v);
      return term === undefined ? '' : termCsv(term);
    }).join(',') + '\r\n';
  }
}

// --- tsv.ts
const BARE_NUMBER: Readonly<Record<string, RegExp>> = {
  [XSD + 'integer']: /^[+-]?[0-9]+$/,
  [XSD + 'decimal']: /^[+-]?[0-9]*\.[0-9]+$/,
  [XSD + 'double']: /^[+-]?(?:[0-9]+\.[0-9]*[eE][+-]?[0-9]+|\.[0-9]+[eE][+-]?[0-9]+|[0-9]+[eE][+-]?[0-9]+)$/,
};

// Blank node labels from other systems could hold any character; keep the cell one token.
const BNODE_LABEL = /^[^\s]+$/u;

function termTsv(term: Term): string {
  if (term.termType === 'Literal' && !term.language) {
    const bare = BARE_NUMBER[term.datatype.value];
    if (bare?.test(term.value)) return term.value;
  }
  if (term.termType === 'BlankNode') {
    if (!BNODE_LABEL.test(term.value)) throw new TypeError(`the blank node label ${JSON.stringify(term.value)} cannot be written in TSV`);
    return '_:' + term.value;
  }
  if (term.termType === 'DefaultGraph') throw new TypeError('the default graph cannot be a solution value');
  return termToNTriples(term);
}

/** The document in chunks: the header, then one chunk per solution; lines end in LF (§3). */
export function* legacyTsv(result: Result): Generator<string> {
  const variables = result.variables;
  yield variables.map((v) => '?' + v).join('\t') + '\n';
  for (const solution of result.solutions) {
    yield variables.map((v) => {
      const term = solution.get(v);
      return term === undefined ? '' : termTsv(term);
    }).join('\t') + '\n';
  }
}
// --- @ianode/rdf quad-serialiser.ts (createLineSerialiser) and serialise.ts (rdfChunks)
export function* legacyLines(quads: Iterable<Quad>, nQuads: boolean): Generator<string> {
  for (const q of quads) {
    if (!nQuads && q.graph.termType !== 'DefaultGraph') {
      throw new TypeError(`application/n-triples cannot hold a quad in the named graph ${termToNTriples(q.graph)}; use TriG or N-Quads`);
    }
    const g = q.graph.termType === 'DefaultGraph' ? '' : ' ' + termToNTriples(q.graph);
    yield termToNTriples(q.subject) + ' ' + termToNTriples(q.predicate) + ' ' + termToNTriples(q.object) + g + ' .\n';
  }
}
