import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuadStore } from '@ianode/store';
import { select, storeWith } from './support.js';

let store: QuadStore;
beforeAll(async () => {
  store = await storeWith(`
    :a :p 0 .
    GRAPH :g1 { :a :p 1 . :b :p 1 . }
    GRAPH :g2 { :a :p 2 . :g1 :owner :alice . }
    GRAPH :g3 { :a :p 1 . }
  `);
});
afterAll(() => store.close());

describe('GRAPH', () => {
  it('ranges a graph variable over the named graphs only', () => {
    expect(select(store, 'SELECT ?g ?o { GRAPH ?g { :a :p ?o } }')).toEqual(['?g=:g1 ?o=1', '?g=:g2 ?o=2', '?g=:g3 ?o=1']);
  });

  it('reads one named graph by IRI, and nothing from a graph that does not exist', () => {
    expect(select(store, 'SELECT ?s { GRAPH :g1 { ?s :p 1 } }')).toEqual(['?s=:a', '?s=:b']);
    expect(select(store, 'SELECT * { GRAPH :nope { } }')).toEqual([]);
    expect(select(store, 'SELECT * { GRAPH :g1 { } }')).toEqual(['']);
  });

  it('binds the graph variable once per graph for an empty pattern', () => {
    expect(select(store, 'SELECT ?g { GRAPH ?g { } }')).toEqual(['?g=:g1', '?g=:g2', '?g=:g3']);
  });

  it('joins a graph variable bound outside', () => {
    expect(select(store, 'SELECT ?g ?s { GRAPH :g2 { ?g :owner :alice } GRAPH ?g { ?s :p 1 } }')).toEqual(['?g=:g1 ?s=:a', '?g=:g1 ?s=:b']);
  });

  it('keeps a graph variable used inside the pattern apart from the graph name', () => {
    // The OPTIONAL's ?g is not the graph name while the pattern is evaluated (W3C graph-optional).
    expect(select(store, 'SELECT ?g ?s { GRAPH ?g { ?s :owner ?o OPTIONAL { ?s :p ?g } } }')).toEqual(['?g=:g2 ?s=:g1']);
  });

  it('evaluates sub-selects and aggregates per graph', () => {
    expect(select(store, 'SELECT ?g ?n { GRAPH ?g { SELECT (COUNT(*) AS ?n) { ?s ?p ?o } } }')).toEqual(['?g=:g1 ?n=2', '?g=:g2 ?n=2', '?g=:g3 ?n=1']);
  });
});

describe('the RDF dataset (FROM, FROM NAMED, protocol graphs)', () => {
  it('uses the dataset default graph without FROM', () => {
    expect(select(store, 'SELECT ?o { :a :p ?o }')).toEqual(['?o=0']);
  });

  it('merges the FROM graphs into the default graph (distinct triples)', () => {
    expect(select(store, 'SELECT ?o FROM :g1 FROM :g3 { :a :p ?o }')).toEqual(['?o=1']);
    expect(select(store, 'SELECT ?o FROM :g1 FROM :g2 { :a :p ?o }')).toEqual(['?o=1', '?o=2']);
  });

  it('limits named graphs to FROM NAMED, and empties the default graph when only FROM NAMED is given', () => {
    expect(select(store, 'SELECT ?g FROM NAMED :g2 { GRAPH ?g { :a :p ?o } }')).toEqual(['?g=:g2']);
    expect(select(store, 'SELECT ?o FROM NAMED :g2 { :a :p ?o }')).toEqual([]);
    expect(select(store, 'SELECT ?o FROM :g1 { GRAPH ?g { :a :p ?o } }')).toEqual([]);
  });

  it('lets the protocol graphs override FROM / FROM NAMED', () => {
    const options = { defaultGraphs: ['http://example/g2'], namedGraphs: ['http://example/g3'] };
    expect(select(store, 'SELECT ?o FROM :g1 { :a :p ?o }', options)).toEqual(['?o=2']);
    expect(select(store, 'SELECT ?g { GRAPH ?g { :a :p ?o } }', options)).toEqual(['?g=:g3']);
  });

  it('evaluates paths in the merged default graph', () => {
    expect(select(store, 'SELECT ?x { :g1 :owner/^:owner ?x }', { defaultGraphs: ['http://example/g1', 'http://example/g2'] })).toEqual(['?x=:g1']);
  });
});
