/**
 * SPARQL Query Results XML Format (https://www.w3.org/TR/rdf-sparql-XMLres/): a buffered writer
 * and a reader built on saxes (a streaming, conforming XML parser).
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { blankNode, literal, namedNode, RDF_LANG_STRING, XSD_STRING, type Term } from '@ianode/rdf';
import type { Solution } from '../api.js';
import { ResultsSyntaxError } from './errors.js';
import { SPARQL_RESULTS_XML } from './media-types.js';
import { CHUNK_SIZE, memoTermText } from './text-buffer.js';
import type { BindingsResult, BooleanResult, ParsedResults } from './types.js';

export const SPARQL_RESULTS_NS = 'http://www.w3.org/2005/sparql-results#';

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
export function escapeXmlText(text: string): string {
  return text.replace(NOT_XML, '\ufffd').replace(TEXT_SPECIAL, escapeOne);
}

/** An attribute value in double quotes; white space kept as character references, which
 * attribute-value normalisation leaves alone. */
export function escapeXmlAttribute(text: string): string {
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

const PROLOGUE = `<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="${SPARQL_RESULTS_NS}">\n`;

/** The document in chunks of about CHUNK_SIZE characters: the head, one line per solution, the
 * end. Each distinct term is written once per document (memoTermText) and reused. */
export function* xmlResultChunks(result: BindingsResult | BooleanResult): Generator<string> {
  if (result.type === 'boolean') {
    yield `${PROLOGUE}<head/>\n<boolean>${result.value ? 'true' : 'false'}</boolean>\n</sparql>\n`;
    return;
  }
  const variables = result.variables;
  const bindings = variables.map((v) => `<binding name="${escapeXmlAttribute(v)}">`);
  const text = memoTermText(termXml);
  let out = `${PROLOGUE}<head>${variables.map((v) => `<variable name="${escapeXmlAttribute(v)}"/>`).join('')}</head>\n<results>\n`;
  for (const solution of result.solutions) {
    out += '<result>';
    for (let i = 0; i < variables.length; i++) {
      const term = solution.get(variables[i]!);
      if (term !== undefined) out += bindings[i]! + text(term) + '</binding>';
    }
    out += '</result>\n';
    if (out.length >= CHUNK_SIZE) {
      yield out;
      out = '';
    }
  }
  yield out + '</results>\n</sparql>\n';
}

type TermElement = 'uri' | 'bnode' | 'literal';

/** Reads a whole XML results document. Elements are recognised by local name in the results
 * namespace (elements of other namespaces, e.g. extensions, are ignored); `<link>` is ignored.
 * Throws ResultsSyntaxError with the line and column of the problem. */
export function parseXmlResults(text: string): ParsedResults {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const fail = (detail: string, cause?: unknown): never => {
    throw new ResultsSyntaxError(SPARQL_RESULTS_XML, detail, { line: parser.line, column: parser.column }, cause === undefined ? undefined : { cause });
  };
  const variables: string[] = [];
  const solutions: Solution[] = [];
  let booleanValue: boolean | undefined;
  let sawRoot = false;
  let sawResults = false;
  // The open elements of the results namespace, outermost first.
  const stack: string[] = [];
  let solution: Solution | undefined;
  let bindingName: string | undefined;
  let termElement: { kind: TermElement; lang: string | undefined; datatype: string | undefined } | undefined;
  let textBuffer = '';
  let foreignDepth = 0;

  const attribute = (node: SaxesTagNS, local: string, uri = ''): string | undefined => {
    for (const a of Object.values(node.attributes)) if (a.local === local && a.uri === uri) return a.value;
    return undefined;
  };

  parser.on('error', (error) => fail(error.message.replace(/^\d+:\d+: /, ''), error));
  parser.on('opentag', (node) => {
    if (foreignDepth > 0 || node.uri !== SPARQL_RESULTS_NS) {
      if (stack.length === 0) fail(`the root element must be <sparql> in ${SPARQL_RESULTS_NS}, found <${node.name}>`);
      foreignDepth++;
      return;
    }
    const parent = stack[stack.length - 1];
    const name = node.local;
    const expect = (allowedParent: string | undefined): void => {
      if (parent !== allowedParent) fail(`unexpected <${name}>${parent ? ` inside <${parent}>` : ''}`);
    };
    switch (name) {
      case 'sparql':
        expect(undefined);
        sawRoot = true;
        break;
      case 'head':
      case 'results':
      case 'boolean':
        expect('sparql');
        if (name === 'results') sawResults = true;
        break;
      case 'variable': {
        expect('head');
        const v = attribute(node, 'name');
        if (v === undefined) fail('<variable> without a name');
        variables.push(v!);
        break;
      }
      case 'link':
        break;
      case 'result':
        expect('results');
        solution = new Map();
        break;
      case 'binding': {
        expect('result');
        bindingName = attribute(node, 'name');
        if (bindingName === undefined) fail('<binding> without a name');
        if (solution!.has(bindingName!)) fail(`?${bindingName} is bound twice in one result`);
        break;
      }
      case 'uri':
      case 'bnode':
      case 'literal':
        expect('binding');
        if (termElement !== undefined || solution!.has(bindingName!)) fail('a <binding> holds exactly one term');
        termElement = {
          kind: name,
          lang: attribute(node, 'lang', 'http://www.w3.org/XML/1998/namespace'),
          datatype: attribute(node, 'datatype'),
        };
        break;
      default:
        fail(`unknown element <${name}>`);
    }
    textBuffer = '';
    stack.push(name);
  });
  parser.on('text', (t) => {
    if (foreignDepth === 0) textBuffer += t;
  });
  parser.on('cdata', (t) => {
    if (foreignDepth === 0) textBuffer += t;
  });
  parser.on('closetag', () => {
    if (foreignDepth > 0) {
      foreignDepth--;
      return;
    }
    const name = stack.pop();
    switch (name) {
      case 'uri':
      case 'bnode':
      case 'literal': {
        const { kind, lang, datatype } = termElement!;
        let term: Term;
        if (kind === 'uri') term = namedNode(textBuffer.trim());
        else if (kind === 'bnode') term = blankNode(textBuffer.trim());
        else if (lang) term = literal(textBuffer, lang);
        else if (datatype && datatype !== RDF_LANG_STRING) term = literal(textBuffer, namedNode(datatype));
        else term = literal(textBuffer);
        solution!.set(bindingName!, term);
        termElement = undefined;
        break;
      }
      case 'binding':
        if (!solution!.has(bindingName!)) fail(`<binding name="${bindingName}"> holds no term`);
        break;
      case 'result':
        solutions.push(solution!);
        solution = undefined;
        break;
      case 'boolean': {
        const value = textBuffer.trim();
        if (value !== 'true' && value !== 'false') fail(`<boolean> must hold true or false, found ${JSON.stringify(value)}`);
        booleanValue = value === 'true';
        break;
      }
    }
    textBuffer = '';
  });
  parser.write(text).close();
  if (!sawRoot) fail('no <sparql> element');
  if (booleanValue !== undefined) {
    if (sawResults) fail('a document holds either <results> or <boolean>, not both');
    return { type: 'boolean', value: booleanValue };
  }
  if (!sawResults) fail('neither <results> nor <boolean>');
  return { type: 'bindings', variables, solutions };
}
