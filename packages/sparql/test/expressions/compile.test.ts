import { describe, expect, it, vi } from 'vitest';
import { literal } from '@ianode/rdf';
import { ExpressionError, SparqlError } from '../../src/errors.js';
import { compileExpression } from '../../src/expressions/index.js';
import type { ExpressionContext } from '../../src/expressions/index.js';
import { BINDINGS, int, makeContext, parseExpression, run, show } from './helpers.js';

const NAMES = Object.keys(BINDINGS);
const slotOf = (name: string): number => NAMES.indexOf(name);

describe('compileExpression', () => {
  it('reads variables through their slots, looked up once at compile time', () => {
    const lookup = vi.fn(slotOf);
    const compiled = compileExpression(parseExpression('?int + ?int * 2'), lookup);
    expect(lookup).toHaveBeenCalledTimes(2);
    const ctx = makeContext();
    for (let n = 0; n < 3; n++) expect(show(compiled(ctx))).toBe(int(21));
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('treats a variable never bound here (slot -1) as unbound', () => {
    expect(run('?nowhere + 1')).toBe('error');
    expect(run('bound(?nowhere)')).toBe('"false"^^xsd:boolean');
    expect(run('COALESCE(?nowhere, 2)')).toBe(int(2));
  });

  it('folds pure calls over constants once', () => {
    const compiled = compileExpression(parseExpression('CONCAT("a", STR(1 + 2))'), slotOf);
    const ctx = makeContext();
    const first = compiled(ctx);
    expect(show(first)).toBe('"a3"');
    expect(compiled(ctx)).toBe(first);
  });

  it('does not fold RAND, NOW, BNODE, UUID or IRI', () => {
    const rand = compileExpression(parseExpression('RAND()'), slotOf);
    const ctx = makeContext();
    expect(rand(ctx).value).not.toBe(rand(ctx).value);
    const bnode = compileExpression(parseExpression('BNODE()'), slotOf);
    expect(bnode(ctx).value).not.toBe(bnode(ctx).value);
    const iri = compileExpression(parseExpression('IRI("rel")'), slotOf);
    expect(iri({ ...ctx, baseIRI: 'http://other.example/' }).value).toBe('http://other.example/rel');
    expect(() => iri({ ...ctx, baseIRI: undefined })).toThrow(ExpressionError);
    const now = compileExpression(parseExpression('NOW()'), slotOf);
    expect(now({ ...ctx, now: new Date('2000-01-01T00:00:00Z') }).value).toBe('2000-01-01T00:00:00.000Z');
  });

  it('keeps a constant error an error at run time', () => {
    expect(run('1/0')).toBe('error');
    expect(run('REGEX("a", "(")')).toBe('error');
    expect(run('<http://example.org/unknown>("x")')).toBe('error');
  });

  it('uses the solution for non-constant regex patterns', () => {
    const ctx = makeContext({ ...BINDINGS, str: literal('^a') });
    expect(run('REGEX("abc", ?str)', ctx)).toBe('"true"^^xsd:boolean');
    expect(run('REGEX("xbc", ?str)', ctx)).toBe('"false"^^xsd:boolean');
  });

  it('passes EXISTS patterns to the context', () => {
    const seen: string[] = [];
    const ctx: ExpressionContext = { ...makeContext(), exists: (pattern) => (seen.push(pattern.type), true) };
    expect(run('NOT EXISTS { ?s ?p ?o }', ctx)).toBe('"false"^^xsd:boolean');
    expect(seen).toEqual(['bgp']);
  });

  it('never swallows errors other than ExpressionError (e.g. a timeout inside EXISTS)', () => {
    const timeout = new SparqlError('QUERY_TIMEOUT', 'deadline passed');
    const ctx: ExpressionContext = {
      ...makeContext(),
      exists: () => {
        throw timeout;
      },
    };
    for (const text of ['EXISTS { ?s ?p ?o } || true', 'COALESCE(EXISTS { ?s ?p ?o }, 1)', '1 IN (EXISTS { ?s ?p ?o }, 1)', 'true && EXISTS { ?s ?p ?o }']) {
      const compiled = compileExpression(parseExpression(text), slotOf);
      expect(() => compiled(ctx), text).toThrow(timeout);
    }
  });

  it('rejects aggregates and wildcards with a TypeError', () => {
    const aggregate = { type: 'expression', expressionType: 'aggregate', aggregator: 'count', distinct: false, expression: parseExpression('1') };
    expect(() => compileExpression(aggregate as never, slotOf)).toThrow(TypeError);
    expect(() => compileExpression({ type: 'expression', expressionType: 'wildcard', wildcard: {} } as never, slotOf)).toThrow(TypeError);
  });
});
