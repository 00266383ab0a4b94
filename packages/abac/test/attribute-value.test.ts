/**
 * `parseAttributeValue`: one attribute as an attribute service writes it (RDF-ABAC's
 * `AE.parseAttrValue`), cases from RDF-ABAC's remote attribute store tests (`"v"` is the boolean
 * `v`; `"v>1"` is a syntax error) and the reference access service's answers
 * (`classification='S'`).
 */
import { describe, expect, it } from 'vitest';
import { LabelSyntaxError, parseAttributeValue } from '../src/index.js';

describe('parseAttributeValue', () => {
  it('name or name=value, either side a word or a quoted string, white space allowed around =', () => {
    expect(parseAttributeValue('v')).toEqual(['v', undefined]);
    expect(parseAttributeValue('clearance=S')).toEqual(['clearance', 'S']);
    expect(parseAttributeValue("classification='S'")).toEqual(['classification', 'S']);
    expect(parseAttributeValue("clearance = 'S'")).toEqual(['clearance', 'S']);
    expect(parseAttributeValue('"permitted_nationalities"="GBR"')).toEqual(['permitted_nationalities', 'GBR']);
    expect(parseAttributeValue("permitted_organisations='Integration Architecture'")).toEqual(['permitted_organisations', 'Integration Architecture']);
    expect(parseAttributeValue("org='O\\'Brien \\\\ Co'")).toEqual(['org', "O'Brien \\ Co"]);
    expect(parseAttributeValue('level=3')).toEqual(['level', '3']);
    expect(parseAttributeValue("x='a=b'")).toEqual(['x', 'a=b']);
    expect(parseAttributeValue('urn:ndtp:groups:developers:and')).toEqual(['urn:ndtp:groups:developers:and', undefined]);
  });

  it("legacy (RDF-ABAC's default): a string that does not parse and holds none of = space , ( ) < > { } ! * is one name", () => {
    for (const text of ['user@host', 'a.b.', 'a:', 'first+last@host']) {
      expect(parseAttributeValue(text, { legacy: true }), text).toEqual([text, undefined]);
      expect(() => parseAttributeValue(text), text).toThrow(LabelSyntaxError);
    }
  });

  it('anything else is a syntax error, legacy or not', () => {
    for (const text of ['v>1', 'a b', 'a=b=c', 'a & b', '(a)', 'a != b', "x='open", '', '*', '!', 'a | b']) {
      expect(() => parseAttributeValue(text, { legacy: true }), text).toThrow(LabelSyntaxError);
    }
  });
});
