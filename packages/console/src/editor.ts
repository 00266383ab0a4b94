/**
 * The SPARQL editor: CodeMirror 6 with codemirror-lang-sparql (highlighting), CodeMirror's basic
 * set-up (line numbers, brackets, search, undo, keyboard), and a completion source of SPARQL
 * keywords, well-known prefixes (a PREFIX line completed whole) and the prefixes the query declares.
 */
import { autocompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { sparql } from 'codemirror-lang-sparql';

export const KNOWN_PREFIXES: Record<string, string> = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  owl: 'http://www.w3.org/2002/07/owl#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  foaf: 'http://xmlns.com/foaf/0.1/',
  dcterms: 'http://purl.org/dc/terms/',
  schema: 'https://schema.org/',
  ies: 'http://ies.data.gov.uk/ontology/ies4#',
  ex: 'http://example/',
};

const KEYWORDS = [
  'SELECT', 'DISTINCT', 'REDUCED', 'WHERE', 'CONSTRUCT', 'DESCRIBE', 'ASK', 'FROM', 'NAMED', 'GRAPH', 'OPTIONAL', 'UNION', 'MINUS',
  'FILTER', 'BIND', 'VALUES', 'SERVICE', 'ORDER BY', 'GROUP BY', 'HAVING', 'LIMIT', 'OFFSET', 'PREFIX', 'BASE', 'COUNT', 'SUM',
  'MIN', 'MAX', 'AVG', 'SAMPLE', 'GROUP_CONCAT', 'EXISTS', 'NOT EXISTS', 'REGEX', 'STR', 'LANG', 'LANGMATCHES', 'DATATYPE',
  'BOUND', 'IRI', 'URI', 'BNODE', 'CONTAINS', 'STRSTARTS', 'STRENDS', 'LCASE', 'UCASE', 'COALESCE', 'IF', 'ASC', 'DESC',
];

/** The prefixes `text` declares (`PREFIX p: <iri>`). */
export function declaredPrefixes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/PREFIX\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>/gi)) out[m[1] ?? ''] = m[2]!;
  return out;
}

export function sparqlCompletions(context: CompletionContext): CompletionResult | null {
  const line = context.state.doc.lineAt(context.pos);
  const before = line.text.slice(0, context.pos - line.from);
  // After "PREFIX ": a known prefix, completed to the whole declaration.
  const prefixDecl = /^\s*PREFIX\s+([\w-]*)$/i.exec(before);
  if (prefixDecl) {
    return {
      from: context.pos - prefixDecl[1]!.length,
      options: Object.entries(KNOWN_PREFIXES).map(([p, iri]) => ({ label: `${p}:`, apply: `${p}: <${iri}>`, detail: iri, type: 'namespace' })),
    };
  }
  const word = context.matchBefore(/[A-Za-z_][\w-]*:?/);
  if (word === null || (word.from === word.to && !context.explicit)) return null;
  // A variable (?name, $name) is the user's own word: nothing to complete.
  const before1 = word.from > 0 ? context.state.sliceDoc(word.from - 1, word.from) : '';
  if (before1 === '?' || before1 === '$') return null;
  const declared = declaredPrefixes(context.state.doc.toString());
  return {
    from: word.from,
    options: [
      ...KEYWORDS.map((k) => ({ label: k, type: 'keyword' })),
      ...Object.entries(declared).map(([p, iri]) => ({ label: `${p}:`, detail: iri, type: 'namespace' })),
    ],
    validFor: /^[\w-]*:?$/,
  };
}

export function createSparqlEditor(parent: HTMLElement, text: string, onRun: () => void): EditorView {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        keymap.of([{ key: 'Mod-Enter', run: () => (onRun(), true) }]),
        basicSetup,
        sparql(),
        autocompletion({ override: [sparqlCompletions] }),
        EditorView.contentAttributes.of({ 'aria-label': 'SPARQL query' }),
      ],
    }),
  });
}
