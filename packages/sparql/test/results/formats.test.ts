import { describe, expect, it } from 'vitest';
import { blankNode, literal, type Term } from '@ianode/rdf';
import {
  compareResults, parseCsvResults, parseJsonResults, parseResults, parseTsvResults, parseXmlResults, ResultsSyntaxError,
  serialiseResultToString, SPARQL_RESULTS_CSV, SPARQL_RESULTS_JSON, SPARQL_RESULTS_TSV, SPARQL_RESULTS_XML, type ParsedResults,
} from '../../src/results/index.js';
import { SparqlError } from '../../src/errors.js';
import { awkward, iri, solution, typed } from './support.js';

const exact = [SPARQL_RESULTS_JSON, SPARQL_RESULTS_XML, SPARQL_RESULTS_TSV];

describe('round trips', () => {
  for (const mediaType of exact) {
    it(`${mediaType}: serialise then parse gives the same solutions, term for term`, () => {
      const text = serialiseResultToString(awkward, mediaType);
      const back = parseResults(text, mediaType);
      expect(back.type).toBe('bindings');
      if (back.type !== 'bindings' || awkward.type !== 'bindings') return;
      expect(back.variables).toEqual(awkward.variables);
      // Same order, same terms, same blank node labels: nothing is renamed.
      expect(back.solutions).toEqual(awkward.solutions);
      expect(compareResults(back, awkward, { orderBy: ['s', 'o', 'n'] })).toBeUndefined();
    });

    for (const value of [true, false]) {
      it(`${mediaType}: boolean ${value}`, () => {
        const text = serialiseResultToString({ type: 'boolean', value }, mediaType);
        expect(parseResults(text, mediaType)).toEqual({ type: 'boolean', value });
      });
    }

    it(`${mediaType}: no solutions, and no variables`, () => {
      const none: ParsedResults = { type: 'bindings', variables: ['x'], solutions: [] };
      expect(parseResults(serialiseResultToString(none, mediaType), mediaType)).toEqual(none);
      const empty: ParsedResults = { type: 'bindings', variables: [], solutions: [new Map(), new Map()] };
      expect(parseResults(serialiseResultToString(empty, mediaType), mediaType)).toEqual(empty);
    });
  }

  it('CSV keeps the text of each value, as the format specifies', () => {
    const text = serialiseResultToString(awkward, SPARQL_RESULTS_CSV);
    const back = parseCsvResults(text);
    if (back.type !== 'bindings') throw new Error('expected bindings');
    expect(back.variables).toEqual(['s', 'o', 'n']);
    expect(back.solutions.map((s) => Object.fromEntries([...s].map(([k, t]) => [k, `${t.termType}:${t.value}`])))).toEqual([
      { s: 'NamedNode:http://example.org/s?a=1&b=%3C2%3E', o: 'Literal:plain' },
      { s: 'BlankNode:b0', o: 'Literal:chat', n: 'Literal:42' },
      { s: 'BlankNode:b1', o: 'Literal:quote " comma , tab \t newline \n cr \r backslash \\ lt < amp &' },
      { o: 'Literal:' },
      {},
      { s: 'NamedNode:http://example.org/ünïcödé', o: 'Literal:日本語 😀', n: 'Literal:1.5' },
      { n: 'Literal:1.0E6', o: 'Literal:x' },
      { n: 'Literal:-0', o: 'Literal:true' },
      { s: 'BlankNode:b0', o: 'Literal:4,4' },
    ]);
    // Serialising the parsed CSV again gives the same text: CSV round-trips itself.
    expect(serialiseResultToString(back, SPARQL_RESULTS_CSV)).toBe(text);
    expect(parseCsvResults(serialiseResultToString({ type: 'boolean', value: true }, SPARQL_RESULTS_CSV))).toEqual({ type: 'boolean', value: true });
  });
});

describe('escaping', () => {
  const one = (term: Term): ParsedResults => ({ type: 'bindings', variables: ['v'], solutions: [solution({ v: term })] });

  it('CSV quotes fields with quotes, commas and line breaks, and ends lines in CRLF', () => {
    const text = serialiseResultToString(one(literal('a "b", c\nd')), SPARQL_RESULTS_CSV);
    expect(text).toBe('v\r\n"a ""b"", c\nd"\r\n');
    expect(serialiseResultToString(one(literal('')), SPARQL_RESULTS_CSV)).toBe('v\r\n""\r\n');
    expect(serialiseResultToString({ type: 'bindings', variables: ['v'], solutions: [new Map()] }, SPARQL_RESULTS_CSV)).toBe('v\r\n\r\n');
  });

  it('CSV reads LF or CRLF line ends and a quoted field spanning lines', () => {
    const back = parseCsvResults('a,b\nx,"1\r\n2"\r\n_:z,\n');
    expect(back).toEqual({ type: 'bindings', variables: ['a', 'b'], solutions: [solution({ a: literal('x'), b: literal('1\r\n2') }), solution({ a: blankNode('z') })] });
  });

  it('TSV writes terms in Turtle form with ECHAR escapes and bare numbers', () => {
    const text = serialiseResultToString({
      type: 'bindings',
      variables: ['a', 'b', 'c', 'd', 'e'],
      solutions: [solution({ a: literal('tab\there\nline "q"'), b: typed('4', 'integer'), c: typed('1.0E6', 'double'), d: typed('01x', 'integer'), e: literal('x', 'en') })],
    }, SPARQL_RESULTS_TSV);
    expect(text).toBe('?a\t?b\t?c\t?d\t?e\n"tab\\there\\nline \\"q\\""\t4\t1.0E6\t"01x"^^<http://www.w3.org/2001/XMLSchema#integer>\t"x"@en\n');
  });

  it('TSV reads the forms of the W3C suite (bare numbers, single quotes, absent values)', () => {
    const back = parseTsvResults('?s\t?o\t?n\n<http://e/s1>\t"foo"\t\n_:b0\t\'bar\'@en\t-3\n<http://e/s2>\t"x"^^<http://e/dt>\t1.0e6\n');
    expect(back).toEqual({
      type: 'bindings',
      variables: ['s', 'o', 'n'],
      solutions: [
        solution({ s: iri('http://e/s1'), o: literal('foo') }),
        solution({ s: blankNode('b0'), o: literal('bar', 'en'), n: typed('-3', 'integer') }),
        solution({ s: iri('http://e/s2'), o: typed('x', 'http://e/dt'), n: typed('1.0e6', 'double') }),
      ],
    });
  });

  it('XML escapes markup, keeps CR, and replaces characters XML 1.0 cannot carry', () => {
    const text = serialiseResultToString(one(literal('<a> & ]]> \r\n \u0001 end')), SPARQL_RESULTS_XML);
    expect(text).toContain('<literal>&lt;a&gt; &amp; ]]&gt; &#xD;\n \ufffd end</literal>');
    const back = parseXmlResults(text);
    expect(back.type === 'bindings' && back.solutions[0]!.get('v')!.value).toBe('<a> & ]]> \r\n \ufffd end');
  });

  it('XML variable names and datatypes are escaped in attributes', () => {
    const text = serialiseResultToString({ type: 'bindings', variables: ['v'], solutions: [solution({ v: typed('x', 'http://e/dt?a=1&b=2') })] }, SPARQL_RESULTS_XML);
    expect(text).toContain('datatype="http://e/dt?a=1&amp;b=2"');
    expect(parseXmlResults(text)).toEqual(one(typed('x', 'http://e/dt?a=1&b=2')));
  });

  it('JSON escapes through JSON.stringify and omits the datatype of simple literals', () => {
    const text = serialiseResultToString(one(literal('"\u0000\u2028')), SPARQL_RESULTS_JSON);
    expect(text).toContain('{"v":{"type":"literal","value":"\\"\\u0000\u2028"}}');
    expect(parseJsonResults(text)).toEqual(one(literal('"\u0000\u2028')));
  });
});

describe('reading documents written by others', () => {
  it('XML: single quotes, white space, <link>, xml:lang, a boolean', () => {
    const text = `<?xml version="1.0"?>
<sparql xmlns='http://www.w3.org/2005/sparql-results#'>
  <head> <variable name='x'/> <variable name='y'/> <link href='meta.rdf'/> </head>
  <results>
    <result>
      <binding name='x'> <uri>http://e/x</uri> </binding>
      <binding name='y'><literal xml:lang='fr'>  le chat </literal></binding>
    </result>
    <result><binding name='x'><bnode>r1</bnode></binding></result>
  </results>
</sparql>`;
    expect(parseXmlResults(text)).toEqual({
      type: 'bindings',
      variables: ['x', 'y'],
      solutions: [solution({ x: iri('http://e/x'), y: literal('  le chat ', 'fr') }), solution({ x: blankNode('r1') })],
    });
    expect(parseXmlResults(`<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head></head><boolean> false </boolean></sparql>`)).toEqual({ type: 'boolean', value: false });
  });

  it('JSON: the SPARQL 1.0 "typed-literal" and a boolean without results', () => {
    const text = JSON.stringify({ head: { vars: ['a'] }, results: { bindings: [{ a: { type: 'typed-literal', datatype: 'http://www.w3.org/2001/XMLSchema#integer', value: '1' } }] } });
    expect(parseJsonResults(text)).toEqual({ type: 'bindings', variables: ['a'], solutions: [solution({ a: typed('1', 'integer') })] });
    expect(parseJsonResults('{"head":{},"boolean":true}')).toEqual({ type: 'boolean', value: true });
  });

  it('malformed documents throw ResultsSyntaxError (a SparqlError) with a position where known', () => {
    const cases: [string, string][] = [
      [SPARQL_RESULTS_JSON, '{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"iri","value":"x"}}]}}'],
      [SPARQL_RESULTS_JSON, '{"head":'],
      [SPARQL_RESULTS_XML, '<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head/><results><result><binding name="a"></binding></result></results></sparql>'],
      [SPARQL_RESULTS_XML, '<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n<head/>\n<results><result></results>'],
      [SPARQL_RESULTS_XML, '<other/>'],
      [SPARQL_RESULTS_TSV, '?a\n"unterminated\n'],
      [SPARQL_RESULTS_TSV, 'a\n<x>\n'],
      [SPARQL_RESULTS_CSV, 'a,b\n1\n'],
      [SPARQL_RESULTS_CSV, 'a\n"open\n'],
    ];
    for (const [mediaType, text] of cases) {
      let error: unknown;
      try {
        parseResults(text, mediaType);
      } catch (e) {
        error = e;
      }
      expect(error, `${mediaType}: ${text}`).toBeInstanceOf(ResultsSyntaxError);
      expect(error).toBeInstanceOf(SparqlError);
      expect((error as SparqlError).code).toBe('SPARQL_SYNTAX');
    }
    const positionOf = (text: string, mediaType: string): unknown => {
      try {
        parseResults(text, mediaType);
      } catch (e) {
        return (e as SparqlError).position;
      }
      return undefined;
    };
    expect(positionOf('?a\t?b\n<http://ok>\t1\n<http://x>\t"bad', SPARQL_RESULTS_TSV)).toEqual({ line: 3, column: 12 });
    expect(positionOf('<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n<head/>\n<bogus/></sparql>', SPARQL_RESULTS_XML)).toMatchObject({ line: 3 });
    expect(positionOf('a,b\n1,2\n"x\ny",1\n3\n', SPARQL_RESULTS_CSV)).toEqual({ line: 5, column: 1 });
  });

  it('an unknown media type is a TypeError', () => {
    expect(() => parseResults('', 'text/turtle')).toThrow(TypeError);
  });
});
