import { describe, expect, it } from 'vitest';
import { parsePatternTerms, parseTurtleTerm, RdfSyntaxError } from '../src/index.js';

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const prefixes = { '': 'http://ex/', xsd: XSD, foaf: 'http://xmlns.com/foaf/0.1/' };

describe('parsePatternTerms', () => {
  it('parses the security label pattern form', () => {
    expect(parsePatternTerms(':person4321 :phone "0400 111 333"', prefixes)).toEqual(['<http://ex/person4321', '<http://ex/phone', '"0400 111 333"']);
  });

  it('parses IRIs, prefixed names, a, numbers, booleans, tagged and typed literals and a graph', () => {
    expect(parsePatternTerms(':g <http://a/s>  a\tfoaf:Person', prefixes)).toEqual(['<http://ex/g', '<http://a/s', '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type', '<http://xmlns.com/foaf/0.1/Person']);
    // Graph first (SPEC §3): the object of a named-graph pattern may be a literal.
    expect(parsePatternTerms(':g :s :p "x"@en', prefixes)).toEqual(['<http://ex/g', '<http://ex/s', '<http://ex/p', '"x"@en']);
    const objects = ['4321', '-1.5', '1e3', 'true', 'false', '"x"@EN-gb', '"1"^^xsd:int', '"1"^^<http://ex/dt>', "'single'", '"""long "quoted" text"""', '"x"^^xsd:string', '"a\\tb\\u00e9"'];
    expect(objects.map((o) => parsePatternTerms(`:s :p ${o}`, prefixes)[2])).toEqual([
      `"4321"^^${XSD}integer`,
      `"-1.5"^^${XSD}decimal`,
      `"1e3"^^${XSD}double`,
      `"true"^^${XSD}boolean`,
      `"false"^^${XSD}boolean`,
      '"x"@en-gb',
      `"1"^^${XSD}int`,
      '"1"^^http://ex/dt',
      '"single"',
      '"long "quoted" text"',
      '"x"',
      '"a\tbé"',
    ]);
  });

  it('skips # comments to the end of the line, as RDF-ABAC (Jena RIOT) does', () => {
    expect(parsePatternTerms('# the triple\n:s # subject\n:p "x # not a comment"# object\r\n#', prefixes)).toEqual(['<http://ex/s', '<http://ex/p', '"x # not a comment"']);
    expect(() => parsePatternTerms(':s :p # :o', prefixes)).toThrow(/expected 3 or 4 terms/);
  });

  it('handles local name escapes and relative IRIs with a base', () => {
    expect(parsePatternTerms(':a\\-b :p.q <rel>', prefixes, 'http://base/dir/')).toEqual(['<http://ex/a-b', '<http://ex/p.q', '<http://base/dir/rel']);
  });

  it.each([
    [':a :b _:c', 7, 'blank nodes'],
    [':a :b []', 7, 'blank nodes'],
    [':a :b ?x', 7, 'variables'],
    [':a :b *', 7, 'wildcards'],
    [':a :b', 6, '3 or 4 terms'],
    [':a :b :c :d :e', 13, '3 or 4 terms'],
    ['ex:a :b :c', 1, 'undefined prefix "ex:"'],
    [':a :b "open', 7, 'unterminated'],
    [':a "b" :c', 4, 'predicate must be an IRI'],
    ['"s" :b :c', 1, 'subject must be an IRI'],
    ['"g" :a :b :c', 1, 'graph must be an IRI'],
    [':g "s" :b :c', 4, 'subject must be an IRI'],
    [':g :a "b" :c', 7, 'predicate must be an IRI'],
    [':g a :b :c', 4, 'only allowed as the predicate'],
    ['a :b :c', 1, 'only allowed as the predicate'],
    [':a :b "x"@', 10, 'language tag'],
    [':a :b <rel>', 7, 'needs a base IRI'],
    [':a :b :c;', 9, 'white space'],
  ])('rejects %j at column %i', (text, column, message) => {
    let error: unknown;
    try {
      parsePatternTerms(text, prefixes);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RdfSyntaxError);
    const e = error as RdfSyntaxError;
    expect(e.message).toContain(message);
    expect([e.line, e.column]).toEqual([1, column]);
  });
});

describe('parseTurtleTerm', () => {
  it('parses exactly one term', () => {
    expect(parseTurtleTerm(' foaf:name ', prefixes)).toBe('<http://xmlns.com/foaf/0.1/name');
    expect(parseTurtleTerm('"1"^^xsd:int', prefixes)).toBe(`"1"^^${XSD}int`);
    expect(() => parseTurtleTerm(':a :b', prefixes)).toThrow(RdfSyntaxError);
    expect(() => parseTurtleTerm('', prefixes)).toThrow(RdfSyntaxError);
  });
});
