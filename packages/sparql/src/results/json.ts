/**
 * SPARQL 1.1 Query Results JSON Format (https://www.w3.org/TR/sparql11-results-json/):
 * a buffered writer and a reader.
 */
import { blankNode, literal, namedNode, RDF_LANG_STRING, XSD_STRING, type Term } from '@ianode/rdf';
import type { Solution } from '../api.js';
import { ResultsSyntaxError } from './errors.js';
import { SPARQL_RESULTS_JSON } from './media-types.js';
import { CHUNK_SIZE, memoTermText } from './text-buffer.js';
import type { BindingsResult, BooleanResult, ParsedResults } from './types.js';

/** The JSON object of an RDF term (§3.2.2), as text: the bytes `JSON.stringify` gives for
 * `{ type, value, "xml:lang" | datatype }` in that key order, written without building the object. */
function termJson(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return '{"type":"uri","value":' + JSON.stringify(term.value) + '}';
    case 'BlankNode':
      return '{"type":"bnode","value":' + JSON.stringify(term.value) + '}';
    case 'Literal': {
      const value = '{"type":"literal","value":' + JSON.stringify(term.value);
      if (term.language) return value + ',"xml:lang":' + JSON.stringify(term.language) + '}';
      const dt = term.datatype.value;
      if (dt === XSD_STRING || dt === RDF_LANG_STRING) return value + '}';
      return value + ',"datatype":' + JSON.stringify(dt) + '}';
    }
    default:
      throw new TypeError(`a ${term.termType} cannot be a solution value`);
  }
}

/** The document in chunks of about CHUNK_SIZE characters: the head, one line per solution, the
 * end. Each distinct term is written once per document (memoTermText) and reused. */
export function* jsonResultChunks(result: BindingsResult | BooleanResult): Generator<string> {
  if (result.type === 'boolean') {
    yield `{"head":{},"boolean":${result.value ? 'true' : 'false'}}\n`;
    return;
  }
  const variables = result.variables;
  const names = variables.map((v) => JSON.stringify(v) + ':');
  const text = memoTermText(termJson);
  let out = `{"head":{"vars":${JSON.stringify(variables)}},"results":{"bindings":[`;
  let separator = '\n{';
  for (const solution of result.solutions) {
    out += separator;
    separator = ',\n{';
    let comma = '';
    for (let i = 0; i < variables.length; i++) {
      const term = solution.get(variables[i]!);
      if (term === undefined) continue;
      out += comma + names[i]! + text(term);
      comma = ',';
    }
    out += '}';
    if (out.length >= CHUNK_SIZE) {
      yield out;
      out = '';
    }
  }
  yield out + '\n]}}\n';
}

const fail = (detail: string, cause?: unknown): never => {
  throw new ResultsSyntaxError(SPARQL_RESULTS_JSON, detail, undefined, cause === undefined ? undefined : { cause });
};

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function readTerm(x: unknown, where: string): Term {
  if (!isObject(x) || typeof x.value !== 'string') return fail(`${where}: expected an object with a string "value"`);
  switch (x.type) {
    case 'uri':
      return namedNode(x.value);
    case 'bnode':
      return blankNode(x.value);
    case 'literal':
    case 'typed-literal': {
      // "typed-literal" is the SPARQL 1.0 (W3C note) spelling, still found in the wild.
      const lang = x['xml:lang'];
      const datatype = x.datatype;
      if (lang !== undefined && typeof lang !== 'string') return fail(`${where}: "xml:lang" must be a string`);
      if (datatype !== undefined && typeof datatype !== 'string') return fail(`${where}: "datatype" must be a string`);
      if (lang) return literal(x.value, lang);
      if (datatype && datatype !== RDF_LANG_STRING) return literal(x.value, namedNode(datatype));
      return literal(x.value);
    }
    default:
      return fail(`${where}: unknown term type ${JSON.stringify(x.type)}`);
  }
}

/** Reads a whole JSON results document. Throws ResultsSyntaxError when it is not one. */
export function parseJsonResults(text: string): ParsedResults {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    return fail(`not JSON: ${(error as Error).message}`, error);
  }
  if (!isObject(doc)) return fail('the document must be a JSON object');
  if (typeof doc.boolean === 'boolean') return { type: 'boolean', value: doc.boolean };
  const head = doc.head;
  if (!isObject(head)) return fail('missing "head" object');
  const vars = head.vars ?? [];
  if (!Array.isArray(vars) || !vars.every((v): v is string => typeof v === 'string')) return fail('"head.vars" must be an array of strings');
  const results = doc.results;
  if (!isObject(results) || !Array.isArray(results.bindings)) return fail('missing "results.bindings" array');
  const solutions = results.bindings.map((b: unknown, i: number): Solution => {
    if (!isObject(b)) return fail(`results.bindings[${i}] must be an object`);
    const solution: Solution = new Map();
    for (const [name, value] of Object.entries(b)) solution.set(name, readTerm(value, `results.bindings[${i}].${name}`));
    return solution;
  });
  return { type: 'bindings', variables: [...vars], solutions };
}
