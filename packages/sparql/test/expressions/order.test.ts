import { describe, expect, it } from 'vitest';
import { blankNode, literal, namedNode } from '@ianode/rdf';
import type { Term } from '@ianode/rdf';
import { compareForMinMax, compareForOrderBy } from '../../src/expressions/index.js';
import { EX, show, typed } from './helpers.js';

const iri = (local: string): Term => namedNode(EX + local);
const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);
const opposite = (n: number): number => (n === 0 ? 0 : -n);

describe('ORDER BY ordering (§15.1)', () => {
  it.each<[string, Term | undefined, Term | undefined, number]>([
    ['unbound = unbound', undefined, undefined, 0],
    ['unbound < blank node', undefined, blankNode('b'), -1],
    ['blank node < IRI', blankNode('z'), iri('a'), -1],
    ['IRI < literal', iri('z'), literal('a'), -1],
    ['literal > unbound', literal('a'), undefined, 1],
    ['blank nodes by label', blankNode('a'), blankNode('b'), -1],
    ['IRIs by code point', iri('a'), iri('b'), -1],
    ['IRI equal', iri('a'), iri('a'), 0],
    ['numbers by value, not text', typed('2', 'integer'), typed('10', 'integer'), -1],
    ['integer vs decimal', typed('1', 'integer'), typed('1.5', 'decimal'), -1],
    ['decimal vs double', typed('2.5', 'decimal'), typed('1.0E1', 'double'), -1],
    ['negative numbers', typed('-3', 'integer'), typed('-2.5', 'decimal'), -1],
    ['NaN first among numbers', typed('NaN', 'double'), typed('-INF', 'double'), -1],
    ['-INF < -1', typed('-INF', 'double'), typed('-1', 'integer'), -1],
    ['equal value, different terms: total', typed('1', 'integer'), typed('1.0', 'decimal'), 1],
    ['same term', typed('1', 'integer'), typed('1', 'integer'), 0],
    ['strings by code point', literal('B'), literal('a'), -1],
    ['strings: prefix first', literal('a'), literal('ab'), -1],
    ['strings: U+FFFF < U+1F600', literal('\uFFFF'), literal('\u{1F600}'), -1],
    ['xsd:string = simple literal', typed('a', 'string'), literal('a'), 0],
    ['lang strings: text first', literal('a', 'en'), literal('b', 'de'), -1],
    ['lang strings: then tag', literal('a', 'de'), literal('a', 'en'), -1],
    ['booleans', typed('false', 'boolean'), typed('true', 'boolean'), -1],
    ['dateTimes by instant', typed('2010-12-21T15:38:02-08:00', 'dateTime'), typed('2010-12-21T20:00:00Z', 'dateTime'), 1],
    ['dateTime without tz read as UTC', typed('2010-01-01T00:00:00', 'dateTime'), typed('2010-01-01T01:00:00Z', 'dateTime'), -1],
    ['dates', typed('2006-08-22', 'date'), typed('2006-08-23', 'date'), -1],
    ['numeric < boolean', typed('100', 'integer'), typed('false', 'boolean'), -1],
    ['boolean < string', typed('true', 'boolean'), literal('a'), -1],
    ['string < lang string', literal('z'), literal('a', 'en'), -1],
    ['lang string < dateTime', literal('a', 'en'), typed('2010-01-01T00:00:00Z', 'dateTime'), -1],
    ['dateTime < unknown datatype', typed('2010-01-01T00:00:00Z', 'dateTime'), literal('a', namedNode(EX + 't')), -1],
    ['ill-typed numeric sorts with the unknown', typed('abc', 'integer'), typed('1', 'integer'), 1],
    ['unknown datatypes by datatype IRI', literal('z', namedNode(EX + 'a')), literal('a', namedNode(EX + 'b')), -1],
  ])('%s', (_name, a, b, expected) => {
    expect(sign(compareForOrderBy(a, b))).toBe(expected);
    expect(sign(compareForOrderBy(b, a))).toBe(opposite(expected));
  });

  const mixed: (Term | undefined)[] = [
    literal('b'),
    typed('10', 'integer'),
    undefined,
    iri('b'),
    typed('2.5', 'decimal'),
    literal('a', 'en'),
    blankNode('x'),
    typed('true', 'boolean'),
    typed('1.0E0', 'double'),
    literal('x', namedNode(EX + 't')),
    iri('a'),
    typed('2010-01-01T00:00:00Z', 'dateTime'),
    literal('a'),
    typed('1', 'integer'),
    typed('NaN', 'double'),
  ];
  const label = (t: Term | undefined): string => (t === undefined ? 'unbound' : show(t));

  it('sorts a mixed list into the documented order', () => {
    // Array.prototype.sort moves undefined to the end without asking the comparator: box them.
    const sorted = mixed
      .map((term) => ({ term }))
      .sort((a, b) => compareForOrderBy(a.term, b.term))
      .map(({ term }) => label(term));
    expect(sorted).toEqual([
      'unbound',
      '_:x',
      `<${EX}a>`,
      `<${EX}b>`,
      '"NaN"^^xsd:double',
      '"1.0E0"^^xsd:double',
      '"1"^^xsd:integer',
      '"2.5"^^xsd:decimal',
      '"10"^^xsd:integer',
      '"true"^^xsd:boolean',
      '"a"',
      '"b"',
      '"a"@en',
      '"2010-01-01T00:00:00Z"^^xsd:dateTime',
      `"x"^^<${EX}t>`,
    ]);
  });

  it('is a total order: antisymmetric and transitive over the mixed list', () => {
    for (const a of mixed) {
      for (const b of mixed) {
        expect(sign(compareForOrderBy(a, b))).toBe(opposite(sign(compareForOrderBy(b, a))));
        for (const c of mixed) {
          if (compareForOrderBy(a, b) <= 0 && compareForOrderBy(b, c) <= 0) expect(compareForOrderBy(a, c)).toBeLessThanOrEqual(0);
        }
      }
    }
  });

  it('MIN / MAX use the same order', () => {
    expect(compareForMinMax(typed('1', 'integer'), typed('2', 'integer'))).toBeLessThan(0);
    expect(compareForMinMax(blankNode('b'), typed('2', 'integer'))).toBeLessThan(0);
  });
});
