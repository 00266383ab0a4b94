import { describe, expect, it } from 'vitest';
import { LabelSyntaxError, parseLabel, printLabel, type LabelExpr } from '../src/index.js';

// [label, canonical print]
const valid: [string, string][] = [
  ['*', '*'],
  ['!', '!'],
  ['  *  ', '*'],
  ['\t!\n', '!'],
  ['employee', 'employee'],
  ['  employee  ', 'employee'],
  ['a&b', 'a & b'],
  ['a && b', 'a & b'],
  ['a|b', 'a | b'],
  ['a || b', 'a | b'],
  ['a | b & c', 'a | b & c'],
  ['a & b | c', 'a & b | c'],
  ['(a | b) & c', '(a | b) & c'],
  ['a & (b | c)', 'a & (b | c)'],
  ['(a)', 'a'],
  ['((a))', 'a'],
  ['a & (b & c)', 'a & b & c'],
  ['(a | b) | c', 'a | b | c'],
  ['a | (b & c)', 'a | b & c'],
  ['a=b', 'a=b'],
  ['a = b', 'a=b'],
  ['a!=b', 'a!=b'],
  ['a != b', 'a!=b'],
  ['clearance=TS', 'clearance=TS'],
  ['level=3', 'level=3'],
  ['3d', '3d'],
  ['_private', '_private'],
  ['a.b', 'a.b'],
  ['a-b', 'a-b'],
  ['a+b', 'a+b'],
  ['ns:role', 'ns:role'],
  ['urn:x-y.z+w:v', 'urn:x-y.z+w:v'],
  ['a=true', 'a=true'],
  ['a=false', 'a=false'],
  ['a="true"', 'a=true'],
  ['"true"', '"true"'],
  ["'false'", '"false"'],
  ['"employee"', 'employee'],
  ["'employee'", 'employee'],
  ['"has space"', '"has space"'],
  ["'has space'=\"x y\"", '"has space"="x y"'],
  ['a="say \\"hi\\""', 'a="say \\"hi\\""'],
  ["a='it\\'s'", 'a="it\'s"'],
  ['a="tab\\there"', 'a="tab\\there"'],
  ['a="\\u0041BC"', 'a=ABC'],
  ['a="\\U0001F600"', 'a="\u{1F600}"'],
  ['a="back\\\\slash"', 'a="back\\\\slash"'],
  ['a="nl\\nx\\r\\b\\f"', 'a="nl\\nx\\r\\b\\f"'],
  ['a=""', 'a=""'],
  ['naïve', 'naïve'],
  ['rôle=ingénieur', 'rôle=ingénieur'],
  ['部門=技術', '部門=技術'],
  ['Ελλάδα | Россия', 'Ελλάδα | Россия'],
  ['a = "-1"', 'a="-1"'],
  [' ( a | b ) && ( c || d ) ', '(a | b) & (c | d)'],
  ['a&b&c|d&e', 'a & b & c | d & e'],
  ['a=x|a=y', 'a=x | a=y'],
  ['"a.b"', 'a.b'],
  ['"a."', '"a."'],
  ['"-a"', '"-a"'],
  // RDF-ABAC's tokenizer (issue 17): booleans ignore case in a value, Turtle long strings, # comments,
  // an integer may be an attribute name, a decimal only a value.
  ['x=TRUE', 'x=true'],
  ['x=True', 'x=true'],
  ['x != FALSE', 'x!=false'],
  ['x="TRUE"', 'x=true'],
  ['TRUE', 'TRUE'],
  ["'''a'''", 'a'],
  ['"""a"""', 'a'],
  [`'''line\nbreak'''="""it's "quoted" """`, `"line\\nbreak"="it's \\"quoted\\" "`],
  ["a='''x\ny'''", 'a="x\\ny"'],
  ["a=''''''", 'a=""'],
  ['a # b', 'a'],
  ['a # comment & b\n& c', 'a & c'],
  ['# first line\nemployee', 'employee'],
  ['a="#not a comment"', 'a="#not a comment"'],
  ['123=test', '123=test'],
  ['level=1.0', 'level=1.0'],
  ['"1.0"=test', '"1.0"=test'],
];

// [label, position of the error]
const malformed: [string, number][] = [
  ['', 0],
  ['   ', 3],
  ['a &', 3],
  ['& a', 0],
  ['(a', 2],
  ['a)', 1],
  ['a = ', 4],
  ["'unterminated", 0],
  ['"unterminated', 0],
  ['a b', 2],
  ['*&a', 1],
  ['* | a', 2],
  ['!a', 1],
  ['! & a', 2],
  ['a & *', 4],
  ['a | !', 4],
  ['(*)', 1],
  ['()', 1],
  ['a ==b', 3],
  ['a = = b', 4],
  ['a =& b', 3],
  ['!=a', 0],
  ['a ! = b', 2],
  ['a &&& b', 4],
  ['a ||| b', 4],
  ['#a', 2],
  ["''''''", 0],
  ['1.0=test', 0],
  ['a & 2.5', 4],
  ['1e3', 0],
  ["'''unterminated''", 0],
  ['.a', 0],
  ['-a', 0],
  ['a.', 1],
  ['a-', 1],
  ['true', 0],
  ['a & false', 4],
  ['""', 0],
  ['a="bad \\q escape"', 7],
  ['a="\\u12"', 3],
  ['a="\\uD800"', 3],
  ['a="x\ny"', 4],
  ['a < b', 2],
  ['(a | b', 6],
  ['a | b)', 5],
  ['((a)', 4],
  ['a=b=c', 3],
  ['a="x"y', 5],
];

describe('parseLabel: valid labels', () => {
  it.each(valid)('%j prints as %j', (label, canonical) => {
    const expr = parseLabel(label);
    expect(printLabel(expr)).toBe(canonical);
    // The canonical text parses back to the same syntax.
    expect(parseLabel(canonical)).toEqual(expr);
  });
});

describe('parseLabel: malformed labels', () => {
  it.each(malformed)('%j is rejected at position %i', (label, position) => {
    let caught: unknown;
    try {
      parseLabel(label);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(LabelSyntaxError);
    const error = caught as LabelSyntaxError;
    expect(error.code).toBe('LABEL_SYNTAX');
    expect(error.label).toBe(label);
    expect(error.position).toBe(position);
    expect(error.message).toContain(`at position ${position}:`);
    expect(error.message).toMatch(/expected|found|nested|unterminated/);
  });
});

describe('parseLabel: syntax trees and messages', () => {
  it('gives & precedence over |', () => {
    const expected: LabelExpr = {
      type: 'or',
      operands: [{ type: 'attr', name: 'a' }, { type: 'and', operands: [{ type: 'attr', name: 'b' }, { type: 'attr', name: 'c' }] }],
    };
    expect(parseLabel('a | b & c')).toEqual(expected);
  });

  it('reads comparisons', () => {
    expect(parseLabel('clearance != "S"')).toEqual({ type: 'compare', name: 'clearance', op: '!=', value: 'S' });
  });

  it('says what it expected and what it found', () => {
    expect(() => parseLabel('a & & b')).toThrow("malformed label at position 4: expected attribute name or '(', found '&'");
    expect(() => parseLabel('a &')).toThrow('malformed label at position 3: expected attribute name or \'(\', found end of label');
    expect(() => parseLabel('(a')).toThrow("expected '&', '|' or ')' to close '(' at position 0, found end of label");
  });

  it('limits nesting depth', () => {
    const deep = '('.repeat(200) + 'a' + ')'.repeat(200);
    expect(() => parseLabel(deep)).toThrow(/nested more than 100 deep/);
    expect(printLabel(parseLabel('('.repeat(50) + 'a' + ')'.repeat(50)))).toBe('a');
  });

  it('rejects a non-string with TypeError', () => {
    expect(() => parseLabel(42 as unknown as string)).toThrow(TypeError);
  });
});
