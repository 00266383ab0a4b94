import { describe, expect, it } from 'vitest';
import { openStore } from '@ianode/store';
import { parseQuery } from '../../src/algebra/parse.js';
import { executeQuery } from '../../src/engine/execute.js';
import { SparqlError } from '../../src/errors.js';

function errorOf(f: () => unknown): SparqlError {
  try {
    f();
  } catch (e) {
    if (e instanceof SparqlError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('parseQuery', () => {
  it('reports syntax errors with line and column', () => {
    const e = errorOf(() => parseQuery('SELECT * WHERE {\n  ?s ?p ?o .\n  FILTER( }'));
    expect(e.code).toBe('SPARQL_SYNTAX');
    expect(e.position).toEqual({ line: 3, column: 11 });
    expect(e.message).toMatch(/^line 3, column 11: expecting/);
  });

  it('reports semantic errors of the parser as syntax errors', () => {
    expect(errorOf(() => parseQuery('PREFIX : <http://e/> SELECT * { ?s :p ?o BIND(1 AS ?o) }')).code).toBe('SPARQL_SYNTAX');
    expect(errorOf(() => parseQuery('SELECT ?x { ?s ?p ?o } GROUP BY ?s')).code).toBe('SPARQL_SYNTAX');
  });

  it('rejects a blank node label shared by two basic graph patterns', () => {
    expect(errorOf(() => parseQuery('SELECT * { _:a ?p ?v OPTIONAL { _:a ?q 1 } }')).message).toMatch(/_:a/);
    expect(errorOf(() => parseQuery('SELECT * { _:a ?p ?v FILTER EXISTS { _:a ?q 1 } }')).code).toBe('SPARQL_SYNTAX');
    expect(parseQuery('SELECT * { _:a ?p ?v FILTER(true) _:a ?q 1 }').form).toBe('SELECT');
  });

  it('reads codepoint escapes everywhere, but not escaped backslashes', async () => {
    const store = await openStore({ defaultLabel: '*' });
    try {
      // "x" and the seven characters a \ u 0 0 4 1 (Turtle unescapes \\ to one backslash).
      await store.load('<http://e/x> <http://e/p> "x" .\n<http://e/y> <http://e/p> "a\\\\u0041" .\n<http://e/z> <http://e/p> "aA" .', { format: 'text/turtle' });
      const subjects = (query: string): string[] => {
        const r = executeQuery(store, query);
        if (r.type !== 'bindings') throw new Error('expected bindings');
        return [...r.solutions].map((row) => row.get('s')!.value);
      };
      // \u0078 is "x" in an IRI and in a string.
      expect(subjects('SELECT ?s { ?s ?p "\\u0078" FILTER(?s = <http://e/\\u0078>) }')).toEqual(['http://e/x']);
      // \\u0041 is a backslash then "u0041", not "A".
      expect(subjects('SELECT ?s { ?s ?p "a\\\\u0041" }')).toEqual(['http://e/y']);
    } finally {
      await store.close();
    }
  });

  it('rejects updates and resolves BASE', () => {
    expect(errorOf(() => parseQuery('INSERT DATA { <http://a> <http://b> <http://c> }')).code).toBe('SPARQL_SYNTAX');
    expect(parseQuery('BASE <http://x/y/> SELECT * { <z> ?p ?o }').baseIRI).toBe('http://x/y/');
    expect(parseQuery('SELECT * { ?s ?p ?o }', { baseIRI: 'http://b/' }).baseIRI).toBe('http://b/');
  });

  it('refuses SERVICE as unsupported', async () => {
    const store = await openStore({ defaultLabel: '*' });
    expect(errorOf(() => executeQuery(store, 'SELECT * { SERVICE <http://x/sparql> { ?s ?p ?o } }')).code).toBe('SPARQL_UNSUPPORTED');
    await store.close();
  });
});
