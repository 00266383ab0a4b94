/**
 * The sparqljs 3.7.4 fixes (src/algebra/sparqljs-patches.ts). If sparqljs changes and the wrapped
 * parser actions stop matching, these fail.
 */
import { describe, expect, it } from 'vitest';
import { openStore } from '@ianode/store';
import { executeQuery, parseQuery } from '../../src/index.js';

function literals(query: string): string[] {
  const out: string[] = [];
  JSON.stringify(parseQuery(query).algebra, (_k, v: unknown) => {
    const t = v as { termType?: string; value?: string };
    if (t && t.termType === 'Literal' && typeof t.value === 'string') out.push(t.value);
    return v;
  });
  return out;
}

describe('sparqljs patches', () => {
  it('keeps numeric literals as written', () => {
    expect(literals('SELECT * { ?s ?p +5 , 1.0E1 , -2.5E3 , +1.5 , +2e0 , 7 }')).toEqual(['+5', '1.0E1', '-2.5E3', '+1.5', '+2e0', '7']);
  });

  it('matches stored terms with the same lexical form', async () => {
    const store = await openStore({ defaultLabel: '*' });
    await store.load('<http://ex/x> <http://ex/p> "+5"^^<http://www.w3.org/2001/XMLSchema#integer> .\n', { format: 'application/n-triples' });
    const r = executeQuery(store, 'SELECT ?s { ?s <http://ex/p> +5 }');
    expect(r.type === 'bindings' && [...r.solutions].length).toBe(1);
    await store.close();
  });

  it('parses a blank-node property list standing alone in a template', async () => {
    const store = await openStore({ defaultLabel: '*' });
    await store.load('<http://ex/s> <http://ex/p> "o" .\n', { format: 'application/n-triples' });
    const r = executeQuery(store, 'PREFIX : <http://ex/> CONSTRUCT { [ :q ?o ] } WHERE { ?s :p ?o }');
    expect(r.type).toBe('quads');
    const quads = r.type === 'quads' ? [...r.quads] : [];
    expect(quads.map((q) => [q.subject.termType, q.predicate.value, q.object.value])).toEqual([['BlankNode', 'http://ex/q', 'o']]);
    await store.close();
  });
});
