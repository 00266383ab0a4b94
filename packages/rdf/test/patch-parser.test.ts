import { describe, expect, it } from 'vitest';
import { createPatchParser, parsePatch, PatchSyntaxError, RdfSyntaxError, type ParsedPatch } from '../src/index.js';

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

type Row = [string, string, string, string, string];
const rows = (patch: ParsedPatch): Row[] => patch.changes.map((c) => [c.op, c.s, c.p, c.o, c.g]);

function syntaxError(text: string): PatchSyntaxError {
  try {
    parsePatch(text);
  } catch (e) {
    expect(e).toBeInstanceOf(PatchSyntaxError);
    expect(e).toBeInstanceOf(RdfSyntaxError);
    return e as PatchSyntaxError;
  }
  throw new Error(`no error for ${JSON.stringify(text)}`);
}

describe('RDF Patch parser: the examples of the RDF Patch page', () => {
  // Transcribed from the example of https://afs.github.io/rdf-patch/ (and Jena's RDF Patch page).
  const body = [
    'TX .',
    'PA "rdf" "http://www.w3.org/1999/02/22-rdf-syntax-ns#" .',
    'PA "owl" "http://www.w3.org/2002/07/owl#" .',
    'PA "rdfs" "http://www.w3.org/2000/01/rdf-schema#" .',
    'A <http://example/SubClass> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> .',
    'A <http://example/SubClass> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://example/SUPER_CLASS> .',
    'A <http://example/SubClass> <http://www.w3.org/2000/01/rdf-schema#label> "SubClass" .',
    'TC .',
  ];
  const expected: Row[] = [
    ['add', '<http://example/SubClass', `<${RDF}type`, '<http://www.w3.org/2002/07/owl#Class', ''],
    ['add', '<http://example/SubClass', '<http://www.w3.org/2000/01/rdf-schema#subClassOf', '<http://example/SUPER_CLASS', ''],
    ['add', '<http://example/SubClass', '<http://www.w3.org/2000/01/rdf-schema#label', '"SubClass"', ''],
  ];

  it('reads the first example (prefixes, three adds, one transaction)', () => {
    const patch = parsePatch(body.join('\n') + '\n');
    expect(rows(patch)).toEqual(expected);
    expect(patch).toMatchObject({ rows: 3, transactions: 1, aborted: 0, header: [], id: undefined, prev: undefined });
    expect(patch.changes.map((c) => c.line)).toEqual([5, 6, 7]);
  });

  it('reads the patch-log example with id and prev headers', () => {
    const text = ['H id <uuid:0686c69d-8f89-4496-acb5-744f0157a8db> .', 'H prev <uuid:3ee0eca0-6d5f-4b4d-85db-f69ab1167eb1> .', ...body].join('\n');
    const patch = parsePatch(text);
    expect(patch.id).toBe('uuid:0686c69d-8f89-4496-acb5-744f0157a8db');
    expect(patch.prev).toBe('uuid:3ee0eca0-6d5f-4b4d-85db-f69ab1167eb1');
    expect(patch.header).toEqual([
      { key: 'id', value: '<uuid:0686c69d-8f89-4496-acb5-744f0157a8db' },
      { key: 'prev', value: '<uuid:3ee0eca0-6d5f-4b4d-85db-f69ab1167eb1' },
    ]);
    expect(rows(patch)).toEqual(expected);
  });

  it("reads Jena's syntax test file (jena-rdfpatch/testing/files/syntax-1.rdfp, transcribed)", () => {
    const text = [
      '# Text patch.',
      'H id <uuid:bbe2edae-325e-11ec-abcc-a70bbba0dfb1>.',
      'TX .',
      'PA "ex" <http://example> .',
      'PD "ex" .',
      'PA "" <http://example> .',
      'PD "" .',
      'A <http://example/s> <http://example/p> <http://example/o1> <http://example/g> .',
      'D <http://example/s> <http://example/p> <http://example/o1> <http://example/g> .',
      'TC .',
    ].join('\n');
    const patch = parsePatch(text);
    expect(patch.id).toBe('uuid:bbe2edae-325e-11ec-abcc-a70bbba0dfb1');
    expect(rows(patch)).toEqual([
      ['add', '<http://example/s', '<http://example/p', '<http://example/o1', '<http://example/g'],
      ['delete', '<http://example/s', '<http://example/p', '<http://example/o1', '<http://example/g'],
    ]);
    expect(patch.transactions).toBe(1);
  });
});

describe('RDF Patch parser: rows and terms', () => {
  it('reads triples (default graph) and quads', () => {
    const patch = parsePatch('A <http://e/s> <http://e/p> <http://e/o> .\nD <http://e/s> <http://e/p> <http://e/o> <http://e/g> .');
    expect(rows(patch)).toEqual([
      ['add', '<http://e/s', '<http://e/p', '<http://e/o', ''],
      ['delete', '<http://e/s', '<http://e/p', '<http://e/o', '<http://e/g'],
    ]);
  });

  it('reads literals: plain, language (lower-cased), datatype, xsd:string as plain, escapes, numbers and booleans', () => {
    const text = [
      'A <http://e/s> <http://e/p> "plain" .',
      'A <http://e/s> <http://e/p> "chat"@en-GB .',
      `A <http://e/s> <http://e/p> "1"^^<${XSD}integer> .`,
      `A <http://e/s> <http://e/p> "s"^^<${XSD}string> .`,
      'A <http://e/s> <http://e/p> "tab\\there \\"q\\" \\u00e9" .',
      "A <http://e/s> <http://e/p> 'single' .",
      'A <http://e/s> <http://e/p> 42 .',
      'A <http://e/s> <http://e/p> -4.5 .',
      'A <http://e/s> <http://e/p> 1.5e3 .',
      'A <http://e/s> <http://e/p> true .',
      'A <http://e/s> <http://e/p> """long""" .',
    ].join('\n');
    expect(parsePatch(text).changes.map((c) => c.o)).toEqual([
      '"plain"',
      '"chat"@en-gb',
      `"1"^^${XSD}integer`,
      '"s"',
      '"tab\there "q" é"',
      '"single"',
      `"42"^^${XSD}integer`,
      `"-4.5"^^${XSD}decimal`,
      `"1.5e3"^^${XSD}double`,
      `"true"^^${XSD}boolean`,
      '"long"',
    ]);
  });

  it('reads prefixes in every written form and expands prefixed names after them', () => {
    const text = [
      'PA ex: <http://e/> .',
      'PA "x" "http://x/" .',
      'PA rdf <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .',
      'PA : <http://default/> .',
      'A ex:s rdf:type x:C .',
      'A :s ex:p "v"^^x:dt ex:g .',
      'PD ex: .',
    ].join('\n');
    expect(rows(parsePatch(text))).toEqual([
      ['add', '<http://e/s', `<${RDF}type`, '<http://x/C', ''],
      ['add', '<http://default/s', '<http://e/p', '"v"^^http://x/dt', '<http://e/g'],
    ]);
    const deleted = syntaxError('PA ex: <http://e/> .\nPD "ex" .\nA ex:s <http://e/p> <http://e/o> .');
    expect([deleted.line, deleted.column]).toEqual([3, 3]);
    expect(deleted.detail).toContain('undefined prefix "ex:"');
  });

  it('reads blank nodes as _:label and <_:label>: the same label is the same node; labels are kept (no prefix) by default', () => {
    const patch = parsePatch('A _:b1 <http://e/p> <_:b2> .\nA <_:b1> <http://e/p> _:b2 _:g .');
    expect(rows(patch)).toEqual([
      ['add', '_:b1', '<http://e/p', '_:b2', ''],
      ['add', '_:b1', '<http://e/p', '_:b2', '_:g'],
    ]);
    const prefixed = parsePatch('A _:b1 <http://e/p> <_:b2> .', { blankNodePrefix: 'p7_' });
    expect(rows(prefixed)).toEqual([['add', '_:p7_b1', '<http://e/p', '_:p7_b2', '']]);
    expect(() => createPatchParser({ blankNodePrefix: 'bad prefix' })).toThrow(TypeError);
  });

  it('the fast path (plain N-Quads rows) and the Lexer path give the same keys', () => {
    // Each pair: the same row, first in plain N-Quads (fast path), then in a spelling only the
    // general (N3.js Lexer) path reads.
    const pairs: [string, string][] = [
      ['A <http://e/s> <http://e/p> "v"@en-GB .', "A <http://e/s> <http://e/p> 'v'@en-GB ."],
      [`A <http://e/s> <http://e/p> "v"^^<${XSD}string> .`, `A <http://e/s> <http://e/p> 'v'^^<${XSD}string> .`],
      ['A <http://e/s> <http://e/p> "v"^^<http://e/dt> <http://e/g> .', "A <http://e/s> <http://e/p> 'v'^^<http://e/dt> <http://e/g> ."],
      ['D _:b1 <http://e/p> _:b2 _:g .', 'D <_:b1> <http://e/p> <_:b2> <_:g> .'],
      ['A <http://e/s> <http://e/p> "" .', 'A <http://e/\\u0073> <http://e/p> "" .'],
      ['A\t<http://e/s>\t<http://e/p>\t"x".# c', 'A <http://e/s> <http://e/p> "\\u0078" . # c'],
    ];
    for (const [fast, general] of pairs) {
      expect(parsePatch(fast).changes, fast).toEqual(parsePatch(general).changes);
      expect(parsePatch(fast, { blankNodePrefix: 'q_' }).changes, fast).toEqual(parsePatch(general, { blankNodePrefix: 'q_' }).changes);
    }
  });

  it('skips comments and blank lines, accepts CRLF, CR and a byte order mark', () => {
    const text = '\ufeff# a comment\r\n\r\n  A <http://e/s> <http://e/p> "x" . # trailing\rTX . \n  \t\nTC .';
    const patch = parsePatch(text);
    expect(rows(patch)).toEqual([['add', '<http://e/s', '<http://e/p', '"x"', '']]);
    expect(patch.transactions).toBe(2);
  });

  it('is push-style: any split of the text gives the same patch', () => {
    const text = 'H id <urn:x:1> .\r\nTX .\r\nA <http://e/s> <http://e/p> "é\\n" .\r\nTA .\r\nTX .\nD _:a <http://e/p> 7 <http://e/g> .\nTC .\n';
    const whole = parsePatch(text);
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = createPatchParser();
      parser.feed(text.slice(0, cut));
      parser.feed(text.slice(cut));
      expect(parser.end()).toEqual(whole);
    }
    const one = createPatchParser();
    for (const ch of text) one.feed(ch);
    expect(one.end()).toEqual(whole);
  });
});

describe('RDF Patch parser: transactions', () => {
  it('TA drops the rows since its TX; blocks are kept in order and counted', () => {
    const text = [
      'TX .',
      'A <http://e/s> <http://e/p> "1" .',
      'TC .',
      'TX .',
      'A <http://e/s> <http://e/p> "2" .',
      'D <http://e/s> <http://e/p> "1" .',
      'TA .',
      'TX .',
      'D <http://e/s> <http://e/p> "1" .',
      'A <http://e/s> <http://e/p> "3" .',
      'TC .',
    ].join('\n');
    const patch = parsePatch(text);
    expect(rows(patch)).toEqual([
      ['add', '<http://e/s', '<http://e/p', '"1"', ''],
      ['delete', '<http://e/s', '<http://e/p', '"1"', ''],
      ['add', '<http://e/s', '<http://e/p', '"3"', ''],
    ]);
    expect(patch).toMatchObject({ rows: 3, transactions: 2, aborted: 1 });
  });

  it('accepts a body without TX/TC as one transaction, and an empty body as none', () => {
    expect(parsePatch('A <http://e/s> <http://e/p> "1" .\nD <http://e/s> <http://e/p> "2" .')).toMatchObject({ rows: 2, transactions: 1, aborted: 0 });
    expect(parsePatch('')).toMatchObject({ rows: 0, transactions: 0, aborted: 0 });
    expect(parsePatch('H id <urn:x:1> .\n# nothing else\n')).toMatchObject({ rows: 0, transactions: 0, id: 'urn:x:1' });
    expect(parsePatch('TB .\nTC .')).toMatchObject({ transactions: 1 });
  });

  it('refuses nested TX, TC/TA without TX and a patch ending inside a transaction', () => {
    let e = syntaxError('TX .\nTX .');
    expect([e.line, e.column]).toEqual([2, 1]);
    expect(e.detail).toContain('open since line 1');
    e = syntaxError('A <http://e/s> <http://e/p> "1" .\n  TC .');
    expect([e.line, e.column]).toEqual([2, 3]);
    expect(e.detail).toContain('"TC" without a transaction');
    e = syntaxError('TA .');
    expect(e.detail).toContain('"TA" without a transaction');
    e = syntaxError('TX .\nA <http://e/s> <http://e/p> "1" .\n');
    expect([e.line, e.column]).toEqual([3, 1]);
    expect(e.detail).toContain('ends inside the transaction begun on line 1');
    e = syntaxError('TX .\nA <http://e/s> <http://e/p> "1" .');
    expect([e.line, e.column]).toEqual([2, 34]);
  });
});

describe('RDF Patch parser: errors name line, column and what was expected', () => {
  const cases: [string, number, number, string][] = [
    ['X <http://e/s> .', 1, 1, 'expected a row code'],
    ['A <http://e/s> <http://e/p> <http://e/o>', 1, 41, 'expected "." after the terms'],
    ['A <http://e/s> <http://e/p> .', 1, 29, '3 or 4 terms'],
    ['A <http://e/s> <http://e/p> <http://e/o> <http://e/g> <http://e/x> .', 1, 55, 'expected "." after the 4th term'],
    ['A "s" <http://e/p> <http://e/o> .', 1, 3, 'a literal cannot be a subject'],
    ['A <http://e/s> _:p <http://e/o> .', 1, 16, 'a blank node cannot be a predicate'],
    ['A <http://e/s> "p" <http://e/o> .', 1, 16, 'a literal cannot be a predicate'],
    ['A <http://e/s> <http://e/p> <http://e/o> "g" .', 1, 42, 'a literal cannot be a graph name'],
    ['A <s> <http://e/p> <http://e/o> .', 1, 3, 'relative IRI <s>'],
    ['A ex:s <http://e/p> <http://e/o> .', 1, 3, 'undefined prefix "ex:"'],
    ['\n\nA <http://e/s> <http://e/p> "open .', 3, 29, 'unterminated or malformed literal'],
    ['A <http://e/s> <http://e/p> <http://e/o . ', 1, 29, 'malformed IRI'],
    ['A <http://e/s> <http://e/p> [] .', 1, 29, 'expected a term'],
    ['A <http://e/s> <http://e/p> <http://e/o> . extra', 1, 44, 'expected the end of the row'],
    ['TX', 1, 3, 'expected "." after TX'],
    ['TC . A', 1, 6, 'expected the end of the row'],
    ['PA ex: .', 1, 8, "expected the prefix's IRI"],
    ['PA ex: <rel> .', 1, 8, 'not absolute'],
    ['PA <http://e/> .', 1, 4, 'expected a prefix name'],
    ['PD ex: <http://e/> .', 1, 8, 'expected "." after PD prefix'],
    ['H <http://e/k> <http://e/v> .', 1, 3, 'expected a header key'],
    ['H id .', 1, 6, 'expected a header value'],
    ['H id <urn:x:1> <urn:x:2> .', 1, 16, 'expected "." after the header value'],
    ['A <http://e/s> <http://e/p> "x"^^<dt> .', 1, 34, 'relative IRI <dt>'],
  ];
  for (const [text, line, column, detail] of cases) {
    it(`${JSON.stringify(text)} -> line ${line}, column ${column}`, () => {
      const e = syntaxError(text);
      expect(e.detail).toContain(detail);
      expect([e.line, e.column]).toEqual([line, column]);
      expect(e.message).toBe(`line ${line}, column ${column}: ${e.detail}`);
    });
  }
});
