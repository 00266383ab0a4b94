import { describe, expect, it } from 'vitest';
import { createQuadKeyParser, parseQuadKeyStream, RdfSyntaxError, type RdfFormat } from '../src/index.js';
import { parseRows, syntaxErrorOf, type Row } from './support/quad-keys.js';

const NT: RdfFormat = 'application/n-triples';
const NQ: RdfFormat = 'application/n-quads';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

const parse = (text: string, format: RdfFormat = NT): Row[] => parseRows(text, format).rows;
const syntaxError = (text: string, format: RdfFormat = NT): RdfSyntaxError => syntaxErrorOf(text, format);

describe('N-Triples line parser', () => {
  it('emits dictionary keys for every term kind', () => {
    const rows = parse(
      [
        '<http://ex/s> <http://ex/p> <http://ex/o> .',
        '_:a <http://ex/p> "plain" .',
        '<http://ex/s> <http://ex/p> "chat"@en-GB .',
        `<http://ex/s> <http://ex/p> "1"^^<${XSD}integer> .`,
        `<http://ex/s> <http://ex/p> "s"^^<${XSD}string> .`,
        '<http://ex/s> <http://ex/p> _:b.',
      ].join('\n'),
    );
    expect(rows).toEqual([
      ['<http://ex/s', '<http://ex/p', '<http://ex/o', ''],
      ['_:x_a', '<http://ex/p', '"plain"', ''],
      ['<http://ex/s', '<http://ex/p', '"chat"@en-gb', ''],
      ['<http://ex/s', '<http://ex/p', `"1"^^${XSD}integer`, ''],
      ['<http://ex/s', '<http://ex/p', '"s"', ''],
      ['<http://ex/s', '<http://ex/p', '_:x_b', ''],
    ]);
  });

  it('decodes escapes in IRIs and literals', () => {
    const rows = parse(
      '<http://ex/\\u0053\\U00000054> <http://ex/p> "a\\tb\\nc\\"d\\\\e\\u00E9\\U0001F600\\r\\b\\f\\\'" .',
    );
    expect(rows[0]).toEqual(['<http://ex/ST', '<http://ex/p', '"a\tb\nc"d\\eé😀\r\b\f\'"', '']);
  });

  it('accepts comments, blank lines, tabs, CRLF and CR line ends, no final line end and a BOM', () => {
    const rows = parse('\ufeff# head\r\n\t<http://ex/a> <http://ex/p> <http://ex/b> . # c\r<http://ex/a>\t<http://ex/p>\t"x"\t.\r\n\n   \n<http://ex/a> <http://ex/p> <http://ex/c> .');
    expect(rows.map((r) => r[2])).toEqual(['<http://ex/b', '"x"', '<http://ex/c']);
  });

  it('reads N-Quads graph names (IRIs and blank nodes)', () => {
    const rows = parse('<http://ex/s> <http://ex/p> "o" <http://ex/g> .\n<http://ex/s> <http://ex/p> "o" _:g .\n<http://ex/s> <http://ex/p> "o" .\n', NQ);
    expect(rows.map((r) => r[3])).toEqual(['<http://ex/g', '_:x_g', '']);
  });

  it.each([
    ['<http://ex/ s> <http://ex/p> <http://ex/o> .', 1, 12, 'not allowed in an IRI'],
    ['<http://ex/\\u00ZZ> <http://ex/p> <http://ex/o> .', 1, 12, 'hex digits'],
    ['<http://ex/\\n> <http://ex/p> <http://ex/o> .', 1, 12, 'invalid escape'],
    ['<http://ex/\\u0020> <http://ex/p> <http://ex/o> .', 1, 12, 'not allowed in an IRI'],
    ['<s> <http://ex/p> <http://ex/o> .', 1, 2, 'relative IRI'],
    ['<http://ex/s> <http://ex/p> "x"^^<dt> .', 1, 35, 'relative IRI'],
    ['"s" <http://ex/p> <http://ex/o> .', 1, 1, 'literal cannot be a subject'],
    ['<http://ex/s> _:p <http://ex/o> .', 1, 15, 'blank node cannot be a predicate'],
    ['<http://ex/s> <http://ex/p> "x"@1 .', 1, 33, 'language tag'],
    ['<http://ex/s> <http://ex/p> "x"@en- .', 1, 36, 'language tag'],
    ['<http://ex/s> <http://ex/p> "a\\zb" .', 1, 31, 'invalid escape'],
    ['<http://ex/s> <http://ex/p> "abc .', 1, 29, 'unterminated literal'],
    ['<http://ex/s> <http://ex/p> "\\uD800" .', 1, 30, 'not a Unicode scalar value'],
    ['<http://ex/s> <http://ex/p> "\\U00110000" .', 1, 30, 'not a Unicode scalar value'],
    ['<http://ex/s> <http://ex/p> 1 .', 1, 29, 'unexpected "1"'],
    ['<http://ex/s> <http://ex/p> <http://ex/o>, <http://ex/o2> .', 1, 42, 'unexpected ","'],
    ['<http://ex/s> <http://ex/p> <http://ex/o> <http://ex/g> .', 1, 43, 'unexpected "<"'],
    ['<http://ex/s> <http://ex/p> <http://ex/o>', 1, 42, 'end of line'],
    ['<http://ex/s> <http://ex/p> <http://ex/o> . <http://ex/s> <http://ex/p> <http://ex/o> .', 1, 45, 'end of the line'],
    ['_::a <http://ex/p> <http://ex/o> .', 1, 3, 'blank node label'],
    ['@prefix : <http://ex/> .', 1, 1, 'unexpected "@"'],
    ['\n\n  <http://ex/s> <http://ex/p> <http://ex/o .\n', 3, 43, 'not allowed in an IRI'],
  ])('rejects %j at line %i column %i', (text, line, column, message) => {
    const e = syntaxError(text);
    expect(e.code).toBe('RDF_SYNTAX');
    expect([e.line, e.column]).toEqual([line, column]);
    expect(e.message).toContain(message);
    expect(e.message).toMatch(/^line \d+, column \d+: /);
  });

  it('rejects literal graph names and quints in N-Quads', () => {
    expect(syntaxError('<http://ex/s> <http://ex/p> <http://ex/o> "g" .', NQ).message).toContain('graph name');
    expect(syntaxError('<http://ex/s> <http://ex/p> <http://ex/o> <http://ex/g> <http://ex/h> .', NQ).column).toBe(57);
  });

  it('counts lines across CRLF split between chunks', () => {
    const parser = createQuadKeyParser({ format: NT }, () => {});
    parser.feed('<http://ex/s> <http://ex/p> <http://ex/o> .\r');
    parser.feed('\n<http://ex/s> <http://ex/p> <http://ex/o> .\r');
    parser.feed('\n<bad');
    expect(() => parser.end()).toThrow(/^line 3, column 2: relative IRI|line 3, column 5/);
  });

  it('gives identical output for every split of a document into two or three chunks', () => {
    const doc =
      '# c\r\n<http://ex/\\u0041> <http://ex/p> "a\\"b"@en .\n_:b1 <http://ex/p> "1"^^<http://ex/dt> <http://ex/g> .\r' +
      '<http://ex/s> <http://ex/p> "é😀" _:g .\n\n<http://ex/s> <http://ex/p> _:b1';
    const expected = parse(doc + ' .', NQ);
    for (let i = 0; i <= doc.length; i++) {
      for (const j of [i, Math.min(doc.length, i + 7)]) {
        const rows: Row[] = [];
        const parser = createQuadKeyParser({ format: NQ, blankNodePrefix: 'x_' }, (s, p, o, g) => rows.push([s, p, o, g]));
        parser.feed(doc.slice(0, i));
        parser.feed(doc.slice(i, j));
        parser.feed(doc.slice(j) + ' .');
        parser.end();
        expect(rows).toEqual(expected);
      }
    }
  });

  it('reports the same error position for every split', () => {
    const doc = '<http://ex/s> <http://ex/p> <http://ex/o> .\r\n<http://ex/s> <http://ex/p> "x"@1 .\n';
    for (let i = 0; i <= doc.length; i++) {
      const parser = createQuadKeyParser({ format: NT }, () => {});
      const run = (): void => {
        parser.feed(doc.slice(0, i));
        parser.feed(doc.slice(i));
        parser.end();
      };
      expect(run).toThrow('line 2, column 33');
    }
  });

  it('refuses use after an error or after end', () => {
    const parser = createQuadKeyParser({ format: NT }, () => {});
    expect(() => parser.feed('<a> <b> <c> .\n')).toThrow(RdfSyntaxError);
    expect(() => parser.feed('<http://ex/s> <http://ex/p> <http://ex/o> .\n')).toThrow(RdfSyntaxError);
    const done = createQuadKeyParser({ format: NT }, () => {});
    done.end();
    expect(() => done.feed('')).toThrow(TypeError);
  });
});

describe('parseQuadKeyStream', () => {
  async function* bytes(text: string, size: number): AsyncIterable<Uint8Array> {
    const all = new TextEncoder().encode(text);
    for (let i = 0; i < all.length; i += size) yield all.subarray(i, i + size);
  }

  it('decodes UTF-8 split anywhere, even inside a character', async () => {
    const doc = '<http://ex/s> <http://ex/p> "é😀中" .\n<http://ex/s> <http://ex/p> "x" .\n';
    const expected = parse(doc);
    for (const size of [1, 2, 3, 5, 64]) {
      const rows: Row[] = [];
      await parseQuadKeyStream(bytes(doc, size), { format: NT, blankNodePrefix: 'x_' }, (s, p, o, g) => rows.push([s, p, o, g]));
      expect(rows).toEqual(expected);
    }
  });

  it('accepts string chunks and Turtle', async () => {
    async function* chunks(): AsyncIterable<string> {
      yield '@prefix ex: <http://ex/> .\nex:s ex:p ';
      yield '"o" .';
    }
    const rows: Row[] = [];
    const { prefixes } = await parseQuadKeyStream(chunks(), { format: 'text/turtle' }, (s, p, o, g) => rows.push([s, p, o, g]));
    expect(prefixes).toEqual({ ex: 'http://ex/' });
    expect(rows).toEqual([['<http://ex/s', '<http://ex/p', '"o"', '']]);
  });

  it('reports malformed UTF-8 at its line and column', async () => {
    const good = new TextEncoder().encode('<http://ex/s> <http://ex/p> "ok" .\n<http://ex/s> <http://ex/p> "');
    async function* input(): AsyncIterable<Uint8Array> {
      yield good.subarray(0, 10);
      yield new Uint8Array([...good.subarray(10), 0x61, 0xff, 0x62]);
    }
    await expect(parseQuadKeyStream(input(), { format: NT }, () => {})).rejects.toThrow('line 2, column 31: invalid UTF-8');
  });

  it('rejects input that stops inside a character', async () => {
    async function* input(): AsyncIterable<Uint8Array> {
      yield new Uint8Array([0x23, 0xe4, 0xb8]);
    }
    await expect(parseQuadKeyStream(input(), { format: NT }, () => {})).rejects.toThrow(/line 1, column 2: invalid UTF-8/);
  });
});
