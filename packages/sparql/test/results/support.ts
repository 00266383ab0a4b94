/** Terms and results used across the result-format tests. */
import { blankNode, literal, namedNode, XSD, type Term } from '@ianode/rdf';
import type { Solution } from '../../src/api.js';
import type { ParsedResults } from '../../src/results/index.js';

export const iri = (v: string): Term => namedNode(v);
export const typed = (v: string, dt: string): Term => literal(v, namedNode(dt.startsWith('http') ? dt : XSD + dt));
export const solution = (entries: Record<string, Term>): Solution => new Map(Object.entries(entries));

/** Every kind of value and the characters each format must escape. */
export const awkward: ParsedResults = {
  type: 'bindings',
  variables: ['s', 'o', 'n'],
  solutions: [
    solution({ s: iri('http://example.org/s?a=1&b=%3C2%3E'), o: literal('plain') }),
    solution({ s: blankNode('b0'), o: literal('chat', 'en-gb'), n: typed('42', 'integer') }),
    solution({ s: blankNode('b1'), o: literal('quote " comma , tab \t newline \n cr \r backslash \\ lt < amp &') }),
    solution({ o: literal('') }),
    solution({}),
    solution({ s: iri('http://example.org/ünïcödé'), o: literal('日本語 😀', 'ja'), n: typed('1.5', 'decimal') }),
    solution({ n: typed('1.0E6', 'double'), o: typed('x', 'http://example.org/dt') }),
    solution({ n: typed('-0', 'integer'), o: typed('true', 'boolean') }),
    solution({ s: blankNode('b0'), o: typed('4,4', 'string') }),
  ],
};
