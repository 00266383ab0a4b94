import { describe, expect, it } from 'vitest';
import { createQuadKeyParser, freshBlankNodePrefix, parseQuadKeys, parseQuads, RdfSyntaxError, type RdfFormat } from '../src/index.js';
import { parseRows, syntaxErrorOf, type Row } from './support/quad-keys.js';

const TTL: RdfFormat = 'text/turtle';
const TRIG: RdfFormat = 'application/trig';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

const parse = (text: string, format: RdfFormat = TTL, baseIRI?: string) => parseRows(text, format, baseIRI);
const syntaxError = (text: string, format: RdfFormat = TTL): RdfSyntaxError => syntaxErrorOf(text, format);

describe('Turtle', () => {
  it('returns the declared prefixes and emits keys', () => {
    const { rows, prefixes } = parse('@prefix ex: <http://ex/> .\nPREFIX : <http://d/>\nex:s a :C ; ex:n 42, 1.5, 1e3, true ; ex:l "hi"@EN, "x"^^ex:dt .');
    expect(prefixes).toEqual({ ex: 'http://ex/', '': 'http://d/' });
    expect(rows).toEqual([
      ['<http://ex/s', `<${RDF}type`, '<http://d/C', ''],
      ['<http://ex/s', '<http://ex/n', `"42"^^${XSD}integer`, ''],
      ['<http://ex/s', '<http://ex/n', `"1.5"^^${XSD}decimal`, ''],
      ['<http://ex/s', '<http://ex/n', `"1e3"^^${XSD}double`, ''],
      ['<http://ex/s', '<http://ex/n', `"true"^^${XSD}boolean`, ''],
      ['<http://ex/s', '<http://ex/l', '"hi"@en', ''],
      ['<http://ex/s', '<http://ex/l', '"x"^^http://ex/dt', ''],
    ]);
  });

  it('resolves relative IRIs against baseIRI and @base', () => {
    const { rows } = parse('<a> <p> <../b> .\n@base <http://other/dir/> .\n<c> <p> <#f> .', TTL, 'http://ex/x/y');
    expect(rows).toEqual([
      ['<http://ex/x/a', '<http://ex/x/p', '<http://ex/b', ''],
      ['<http://other/dir/c', '<http://other/dir/p', '<http://other/dir/#f', ''],
    ]);
  });

  it('rejects TriG graphs', () => {
    expect(syntaxError('<http://ex/g> { <http://ex/s> <http://ex/p> <http://ex/o> . }').line).toBe(1);
  });

  it.each([
    ['@prefix ex: <http://ex/> .\nex:a ex:b ex:c ;\n  ex:d  ] .', 3, 9, 'expected entity but got ]'],
    ['@prefix ex: <http://ex/> .\n\nex:a ex:b ~x .', 3, 11, 'expected entity but got ~'],
    ['@prefix ex: <http://ex/> .\nex:a ex:b "unterminated\n" .', 2, 11, 'unexpected'],
    ['ex:a <http://ex/p> <http://ex/o> .', 1, 1, 'undefined prefix'],
    ['<http://ex/a> <http://ex/p> <http://ex/o>', 1, 42, 'expected'],
    ['<http://ex/a> <http://ex/p> <http://ex/o> . # c\n  # c2\n\t  @@ .', 3, 4, 'unexpected "@@"'],
  ])('reports %j at line %i column %i', (text, line, column, message) => {
    const e = syntaxError(text);
    expect(e.code).toBe('RDF_SYNTAX');
    expect(e.message).toContain(message);
    expect([e.line, e.column]).toEqual([line, column]);
  });

  it('gives the same quads and error positions for every split into chunks', () => {
    const doc = '@prefix ex: <http://ex/> .\r\nex:a ex:b """multi\nline""", [ ex:c ( 1 2 ) ] ;\n  ex:d _:n .\n# done\n';
    const whole = parse(doc).rows;
    const bad = doc + 'ex:e ex:f\t@@ .\n'; // a lexer error: its column is found from the text
    for (let i = 0; i <= bad.length; i++) {
      const rows: Row[] = [];
      const parser = createQuadKeyParser({ format: TTL, blankNodePrefix: 'x_' }, (s, p, o, g) => rows.push([s, p, o, g]));
      let error: unknown;
      try {
        parser.feed(bad.slice(0, i));
        parser.feed(bad.slice(i));
        parser.end();
      } catch (e) {
        error = e;
      }
      expect(rows).toEqual(whole);
      expect(error).toBeInstanceOf(RdfSyntaxError);
      expect((error as RdfSyntaxError).message).toMatch(/^line 6, column 11: unexpected "@@"/);
    }
  });

  it('parses an empty document', () => {
    expect(parse('')).toEqual({ rows: [], prefixes: {} });
    expect(parse('# only a comment')).toEqual({ rows: [], prefixes: {} });
  });
});

describe('TriG', () => {
  it('puts triples into their graphs', () => {
    const { rows } = parse('@prefix ex: <http://ex/> .\nex:s ex:p 1 .\nex:g { ex:s ex:p 2 }\nGRAPH _:bg { ex:s ex:p 3 }\n{ ex:s ex:p 4 }', TRIG);
    expect(rows.map((r) => [r[2], r[3]])).toEqual([
      [`"1"^^${XSD}integer`, ''],
      [`"2"^^${XSD}integer`, '<http://ex/g'],
      [`"3"^^${XSD}integer`, '_:x_bg'],
      [`"4"^^${XSD}integer`, ''],
    ]);
  });
});

describe('blank nodes', () => {
  it('prefixes labels, keeps one node per label, and never confuses anonymous nodes with labels', () => {
    const { rows } = parse('_:a <http://ex/p> _:a , [] .\n_:a <http://ex/q> [ <http://ex/r> _:x_a ] .');
    const keys = rows.flatMap((r) => [r[0], r[2]]).filter((k) => k.startsWith('_:'));
    expect(keys.every((k) => k.startsWith('_:x_'))).toBe(true);
    expect(rows[0]![0]).toBe('_:x_a');
    expect(rows[0]![2]).toBe('_:x_a');
    expect(new Set(keys).size).toBe(4); // a, the first [], the second [], and the label "x_a"
  });

  it('uses a fresh prefix per parser by default', () => {
    const subjects = [0, 1].map(() => {
      const out: string[] = [];
      parseQuadKeys('_:a <http://ex/p> <http://ex/o> .', { format: 'application/n-triples' }, (s) => out.push(s));
      return out[0]!;
    });
    expect(subjects[0]).toMatch(/^_:b[0-9a-f]{8}_a$/);
    expect(subjects[0]).not.toBe(subjects[1]);
    expect(freshBlankNodePrefix()).toMatch(/^b[0-9a-f]{8}_$/);
  });

  it('refuses prefixes that would make invalid labels', () => {
    for (const blankNodePrefix of ['', '-x', 'a b', 'x.']) {
      expect(() => parseQuadKeys('', { format: TTL, blankNodePrefix }, () => {})).toThrow(TypeError);
    }
  });
});

describe('parseQuads', () => {
  it('returns RDF/JS quads and prefixes', () => {
    const { quads, prefixes } = parseQuads('@prefix ex: <http://ex/> . ex:g { ex:s ex:p "v"@en }', { format: TRIG });
    expect(prefixes).toEqual({ ex: 'http://ex/' });
    expect(quads).toHaveLength(1);
    const q = quads[0]!;
    expect(q.subject.value).toBe('http://ex/s');
    expect(q.object.termType).toBe('Literal');
    expect(q.graph.value).toBe('http://ex/g');
  });
});
