/**
 * Labels-graph behaviour of the reference IA node (RDF-ABAC 3), issue 17 items 1-4: 4-term
 * patterns are graph first, `xsd:base64Binary` labels are decoded, the legacy fallback
 * (`legacyLabels`) reads an unparsable label free of `= space , ( ) < > { } ! *` as one attribute
 * name, and patterns take Turtle long strings and `#` comments as RDF-ABAC's tokenizer does.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AttributeSet, LabelEvaluator } from '@ianode/abac';
import type { LabelPredicate } from '@ianode/rdf';
import { openStore, StoreError, type KeyQuad, type LoadOptions, type QuadStore } from '@ianode/store';
import { lines, quadsOf } from './support/quads.js';

const PREFIXES = `PREFIX authz: <http://telicent.io/security#>
PREFIX ex: <http://example/>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
`;

function user(...attributes: string[]): LabelPredicate {
  const evaluator = new LabelEvaluator(AttributeSet.from(attributes), undefined);
  return (label) => evaluator.isVisible(label);
}

function ex(s: string, p: string, o: string, g?: string): KeyQuad {
  return { s: `<http://example/${s}`, p: `<http://example/${p}`, o, g: g === undefined ? '' : `<http://example/${g}` };
}

/** A labels graph whose entries are written as given (Turtle objects, quotes included). */
function labelsGraph(entries: [pattern: string, label: string][]): string {
  return `GRAPH authz:labels {\n${entries.map(([p, l]) => `  [ authz:pattern ${p} ; authz:label ${l} ] .`).join('\n')}\n}\n`;
}

const trig = (text: string, extra: Partial<LoadOptions> = {}): [string, LoadOptions] => [PREFIXES + text, { format: 'application/trig', ...extra }];

let store: QuadStore;
beforeEach(async () => {
  store = await openStore({ defaultLabel: '!' });
});
afterEach(async () => {
  await store.close();
});

async function rejected(text: string, extra: Partial<LoadOptions> = {}): Promise<StoreError> {
  const error = await store.load(...trig(text, extra)).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(StoreError);
  expect(store.count({})).toBe(0);
  return error as StoreError;
}

describe('4-term patterns are graph first (item 1)', () => {
  const QUAD = ex('s', 'p2', '"123"', 'g1');

  it(`'ex:g1 ex:s ex:p2 "123"' labels the quad s p2 "123" in graph g1, and only a user satisfying the label sees it`, async () => {
    await store.load(...trig(`GRAPH ex:g1 { ex:s ex:p2 "123" }\n${labelsGraph([[`'ex:g1 ex:s ex:p2 "123"'`, '"employee"']])}`));
    expect(store.labelOf(QUAD)).toBe('employee');
    expect(quadsOf(store.view(user('employee')))).toEqual(lines(QUAD));
    expect(quadsOf(store.view(user('contractor')))).toEqual([]);
  });

  it('a graph-last pattern (first of 4 terms a subject, last a literal) is refused, naming the pattern', async () => {
    const error = await rejected(`GRAPH ex:g1 { ex:s ex:p2 "123" }\n${labelsGraph([[`'ex:s ex:p2 "123" ex:g1'`, '"employee"']])}`);
    expect(error.message).toContain(`'ex:s ex:p2 "123" ex:g1'`);
    expect(error.message).toContain('predicate must be an IRI');
  });

  it('a pattern whose first of 4 terms is a literal is refused, naming the pattern', async () => {
    const error = await rejected(labelsGraph([[`'"g" ex:s ex:p "1"'`, '"employee"']]));
    expect(error.message).toContain(`'"g" ex:s ex:p "1"'`);
    expect(error.message).toContain('graph must be an IRI');
  });
});

describe('xsd:base64Binary labels are decoded (item 2)', () => {
  it.each([
    ['ZW1wbG95ZWVz', 'employees'],
    ['dGVzdA==', 'test'],
    ['ZW1w bG95 ZWVz', 'employees'],
    [Buffer.from('clearance=S & nationality=GBR').toString('base64'), 'clearance=S & nationality=GBR'],
  ])('"%s"^^xsd:base64Binary is the label %s', async (encoded, label) => {
    await store.load(...trig(`ex:s ex:p ex:o .\n${labelsGraph([[`'ex:s ex:p ex:o'`, `"${encoded}"^^xsd:base64Binary`]])}`));
    expect(store.labelOf(ex('s', 'p', '<http://example/o'))).toBe(label);
  });

  it.each(['not*base64', 'dGVzdA=', 'dGVzdA===', '/w=='])('"%s"^^xsd:base64Binary is refused, naming the value', async (encoded) => {
    const error = await rejected(`ex:s ex:p ex:o .\n${labelsGraph([[`'ex:s ex:p ex:o'`, `"${encoded}"^^xsd:base64Binary`]])}`);
    expect(error.code).toBe('LABELS_GRAPH');
    expect(error.message).toContain(encoded);
  });

  it('a decoded label must still parse', async () => {
    const encoded = Buffer.from('a & (').toString('base64');
    const error = await rejected(`ex:s ex:p ex:o .\n${labelsGraph([[`'ex:s ex:p ex:o'`, `"${encoded}"^^xsd:base64Binary`]])}`);
    expect(error.message).toContain("malformed label for pattern 'ex:s ex:p ex:o'");
  });

  it('a label of another datatype is refused', async () => {
    const error = await rejected(`ex:s ex:p ex:o .\n${labelsGraph([[`'ex:s ex:p ex:o'`, '"1"^^xsd:integer']])}`);
    expect(error.message).toContain('base64Binary');
  });
});

describe('legacy labels (item 3)', () => {
  // RDF-ABAC's fallback cases: refused by the grammar, accepted as one attribute name.
  const LEGACY = ['user@host', 'first+last@host', 'a.b.', 'a:', 'a+', '-a', 'a&b.', 'x@y|z'];

  it.each(LEGACY)('with legacyLabels, %s is one attribute name: visible to its holder only', async (label) => {
    await store.load(...trig(`ex:s ex:p ex:o .\n${labelsGraph([[`'ex:s ex:p ex:o'`, JSON.stringify(label)]])}`, { legacyLabels: true }));
    expect(store.labelOf(ex('s', 'p', '<http://example/o'))).toBe(JSON.stringify(label));
    expect(quadsOf(store.view(user(label)))).toHaveLength(1);
    expect(quadsOf(store.view(user('user')))).toEqual([]);
    expect(quadsOf(store.view(user('host')))).toEqual([]);
  });

  it.each(LEGACY)('without legacyLabels, %s is refused', async (label) => {
    const error = await rejected(`ex:s ex:p ex:o .\n${labelsGraph([[`'ex:s ex:p ex:o'`, JSON.stringify(label)]])}`);
    expect(error.code).toBe('LABELS_GRAPH');
  });

  it.each(['a b@c', 'a=b=c', 'a,b.', 'x@(y', 'a<b.', 'a{b.', 'a!b.', 'a*b.', 'a\tb.'])('with legacyLabels, %s (a forbidden character) is still refused', async (label) => {
    await rejected(`ex:s ex:p ex:o .\n${labelsGraph([[`'ex:s ex:p ex:o'`, JSON.stringify(label)]])}`, { legacyLabels: true });
  });

  it('a well-formed label is kept as written', async () => {
    await store.load(...trig(`ex:s ex:p ex:o .\n${labelsGraph([[`'ex:s ex:p ex:o'`, '"a & b"']])}`, { legacyLabels: true }));
    expect(store.labelOf(ex('s', 'p', '<http://example/o'))).toBe('a & b');
  });
});

describe('patterns: Turtle long strings and # comments (item 4)', () => {
  it(`'''ex:s ex:p """x""" ''' labels the triple with the literal x`, async () => {
    await store.load(...trig(`ex:s ex:p "x" .\n${labelsGraph([[`'''ex:s ex:p """x""" '''`, '"employee"']])}`));
    expect(store.labelOf(ex('s', 'p', '"x"'))).toBe('employee');
  });

  it('a # comment inside a pattern is skipped to the end of its line', async () => {
    const pattern = `"""ex:s # the subject\nex:p ex:o # the rest\n"""`;
    await store.load(...trig(`ex:s ex:p ex:o .\n${labelsGraph([[pattern, '"employee # who may see it\\n"']])}`));
    expect(store.labelOf(ex('s', 'p', '<http://example/o'))).toBe('employee # who may see it');
  });
});
