import { describe, expect, it } from 'vitest';
import { blankNode, literal, namedNode } from '@ianode/rdf';
import type { Term } from '@ianode/rdf';
import { ExpressionError } from '../../src/errors.js';
import { effectiveBooleanValue } from '../../src/expressions/index.js';
import { EX, show, typed } from './helpers.js';

function ebv(term: Term): boolean | 'error' {
  try {
    return effectiveBooleanValue(term);
  } catch (error) {
    if (error instanceof ExpressionError) return 'error';
    throw error;
  }
}

describe('effective boolean value (§17.2.2)', () => {
  it.each<[Term, boolean | 'error']>([
    [typed('true', 'boolean'), true],
    [typed('false', 'boolean'), false],
    [typed('1', 'boolean'), true],
    [typed('0', 'boolean'), false],
    [typed('yes', 'boolean'), false],
    [literal(''), false],
    [literal('a'), true],
    [literal('false'), true],
    [typed('', 'string'), false],
    [typed('x', 'string'), true],
    [typed('0', 'integer'), false],
    [typed('7', 'integer'), true],
    [typed('-0', 'integer'), false],
    [typed('0.0', 'decimal'), false],
    [typed('-0.5', 'decimal'), true],
    [typed('0E0', 'double'), false],
    [typed('-0.0E0', 'double'), false],
    [typed('NaN', 'double'), false],
    [typed('INF', 'double'), true],
    [typed('0', 'float'), false],
    [typed('0.001', 'float'), true],
    [typed('1', 'int'), true],
    [typed('abc', 'integer'), false],
    [typed('300', 'byte'), false],
    [literal('a', 'en'), 'error'],
    [literal('', 'en'), 'error'],
    [namedNode(EX + 'x'), 'error'],
    [blankNode('b'), 'error'],
    [typed('2010-01-01T00:00:00Z', 'dateTime'), 'error'],
    [literal('x', namedNode(EX + 'type')), 'error'],
  ])('EBV(%s) → %s', (term, expected) => {
    expect(ebv(term), show(term)).toBe(expected);
  });
});
