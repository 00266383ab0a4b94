import { describe, expect, it } from 'vitest';
import { JSON_LD, N_TRIPLES, negotiateResultType, SPARQL_RESULTS_CSV, SPARQL_RESULTS_JSON, SPARQL_RESULTS_TSV, SPARQL_RESULTS_XML, TURTLE } from '../../src/results/index.js';

describe('negotiateResultType', () => {
  it('defaults: JSON for solutions and booleans, Turtle for graphs', () => {
    for (const accept of [undefined, '', '*/*', 'application/*']) {
      expect(negotiateResultType(accept, 'bindings')).toBe(SPARQL_RESULTS_JSON);
      expect(negotiateResultType(accept, 'boolean')).toBe(SPARQL_RESULTS_JSON);
    }
    expect(negotiateResultType(undefined, 'quads')).toBe(TURTLE);
    expect(negotiateResultType('*/*', 'quads')).toBe(TURTLE);
    expect(negotiateResultType('text/*', 'quads')).toBe(TURTLE);
  });

  it('follows q-values, the most specific range deciding', () => {
    expect(negotiateResultType('application/sparql-results+json;q=0.5, text/csv', 'bindings')).toBe(SPARQL_RESULTS_CSV);
    expect(negotiateResultType('text/*;q=0.9, text/csv;q=0.1, application/sparql-results+xml;q=0.5', 'bindings')).toBe(SPARQL_RESULTS_TSV);
    expect(negotiateResultType('*/*;q=0.1, application/sparql-results+json;q=0', 'bindings')).toBe(SPARQL_RESULTS_XML);
    expect(negotiateResultType('application/n-triples, text/turtle;q=0.9', 'quads')).toBe(N_TRIPLES);
    expect(negotiateResultType('application/sparql-results+xml; charset=utf-8', 'boolean')).toBe(SPARQL_RESULTS_XML);
  });

  it('answers aliases with the canonical type', () => {
    expect(negotiateResultType('application/json', 'bindings')).toBe(SPARQL_RESULTS_JSON);
    expect(negotiateResultType('application/json', 'quads')).toBe(JSON_LD);
    expect(negotiateResultType('text/xml', 'boolean')).toBe(SPARQL_RESULTS_XML);
    // A browser: application/xml at 0.9 beats everything else at 0.8.
    expect(negotiateResultType('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'bindings')).toBe(SPARQL_RESULTS_XML);
    expect(negotiateResultType('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'quads')).toBe(TURTLE);
  });

  it('is undefined when nothing acceptable can be written (406)', () => {
    expect(negotiateResultType('image/png', 'bindings')).toBeUndefined();
    expect(negotiateResultType('text/turtle', 'bindings')).toBeUndefined();
    expect(negotiateResultType('application/sparql-results+json', 'quads')).toBeUndefined();
    expect(negotiateResultType('*/*;q=0', 'quads')).toBeUndefined();
    expect(negotiateResultType('garbage', 'bindings')).toBeUndefined();
  });

  it('ignores malformed ranges and q-values', () => {
    expect(negotiateResultType('text/csv;q=2, application/sparql-results+xml', 'bindings')).toBe(SPARQL_RESULTS_XML);
    expect(negotiateResultType('*/csv, text/tab-separated-values', 'bindings')).toBe(SPARQL_RESULTS_TSV);
  });

  it('rejects an unknown result type', () => {
    expect(() => negotiateResultType('*/*', 'table' as 'bindings')).toThrow(TypeError);
  });
});
