/**
 * SPEC §3 "Security labels and ABAC" through `store.load`: the reference example, and each way a
 * label reaches data (default label, Security-Label, labels graph, pending labels, re-labelling),
 * and the rejections that must leave an upload unstored.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AttributeSet, LabelEvaluator } from '@ianode/abac';
import { namedNode, type LabelPredicate } from '@ianode/rdf';
import { openStore, type KeyQuad, type LoadOptions, type QuadStore } from '@ianode/store';
import { holds, lines, quadsOf } from './support/quads.js';
import { ATTRIBUTE_POOL, HIERARCHIES, SPEC_EXAMPLE_TRIG } from '@ianode/testkit';

const NDTP = 'http://ndtp.co.uk/security#';
const TELICENT = 'http://telicent.io/security#';
const XSD_INTEGER = 'http://www.w3.org/2001/XMLSchema#integer';
const DEFAULT_LABEL = '!';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** What a user holding `attributes` may see. */
function user(...attributes: string[]): LabelPredicate {
  const evaluator = new LabelEvaluator(AttributeSet.from(attributes), HIERARCHIES);
  return (label) => evaluator.isVisible(label);
}

/** A key quad over `http://example/` names; `o` is a full term key. */
function ex(s: string, p: string, o: string, g?: string): KeyQuad {
  return { s: `<http://example/${s}`, p: `<http://example/${p}`, o, g: g === undefined ? '' : `<http://example/${g}` };
}
const iri = (local: string) => `<http://example/${local}`;

function prefixes(ns = NDTP): string {
  return `PREFIX authz: <${ns}>\nPREFIX : <http://example/>\n`;
}

/** A labels graph; patterns are written in single quotes, labels in double quotes. */
function labelsGraph(entries: [pattern: string, label: string][]): string {
  const body = entries.map(([pattern, label]) => `  [ authz:pattern '${pattern}' ; authz:label ${JSON.stringify(label)} ] .`);
  return `GRAPH authz:labels {\n${body.join('\n')}\n}\n`;
}

const trig = (text: string, label?: string): [string, LoadOptions] => [text, { format: 'application/trig', label }];

// ---- the reference example ----

const EXAMPLE = SPEC_EXAMPLE_TRIG;
const PHONE = ex('person4321', 'phone', '"0400 111 333"');
const EMP_4321 = ex('person4321', 'empId', `"4321"^^${XSD_INTEGER}`);
const EMP_9876 = ex('person9876', 'empId', `"9876"^^${XSD_INTEGER}`);

describe('SPEC §3 reference example (default label !)', () => {
  let store: QuadStore;
  let result: Awaited<ReturnType<QuadStore['load']>>;
  beforeAll(async () => {
    store = await openStore({ defaultLabel: DEFAULT_LABEL });
    result = await store.load(EXAMPLE, { format: 'application/trig' });
  });
  afterAll(async () => {
    await store.close();
  });

  it('loads three data triples and two label entries', () => {
    expect(result).toMatchObject({ quads: 3, triples: 3, labels: 2 });
    expect(quadsOf(store)).toEqual(lines(PHONE, EMP_4321, EMP_9876));
  });

  it('a user with engineer, contractor sees one triple: the phone', () => {
    expect(quadsOf(store.view(user('engineer', 'contractor')))).toEqual(lines(PHONE));
  });

  it('a user with engineer, employee sees two triples', () => {
    expect(quadsOf(store.view(user('engineer', 'employee')))).toEqual(lines(PHONE, EMP_9876));
  });

  it('nobody sees :person4321 :empId 4321 (default label !)', () => {
    expect(store.labelOf(EMP_4321)).toBe(DEFAULT_LABEL);
    for (const attributes of [[], ['employee'], ['engineer', 'contractor'], [...ATTRIBUTE_POOL]]) {
      expect(holds(store.view(user(...attributes)), EMP_4321), JSON.stringify(attributes)).toBe(false);
    }
  });

  it('never stores the labels graph as data', () => {
    expect(store.count({})).toBe(3);
    expect(store.graphs()).toEqual([]);
    for (const name of ['labels', 'pattern', 'label']) {
      const id = store.lookup(namedNode(NDTP + name));
      if (id !== undefined) expect(store.count({ g: id }) + store.count({ p: id }), name).toBe(0);
    }
  });
});

// ---- how labels reach data ----

describe('labels on load', () => {
  let store: QuadStore;
  beforeEach(async () => {
    store = await openStore({ defaultLabel: DEFAULT_LABEL });
  });
  afterEach(async () => {
    await store.close();
  });

  it('Security-Label applies to every quad of the load, in every graph', async () => {
    const A = ex('a', 'p', '"1"');
    const B = ex('b', 'p', iri('c'), 'g');
    await store.load(...trig(`${prefixes()}:a :p "1" .\nGRAPH :g { :b :p :c }\n`, 'employee'));
    expect(store.labelOf(A)).toBe('employee');
    expect(store.labelOf(B)).toBe('employee');
    expect(quadsOf(store.view(user('employee')))).toEqual(lines(A, B));
    expect(quadsOf(store.view(user('contractor')))).toEqual([]);
  });

  it('quads of a load without any label get the default label', async () => {
    await store.load(`<http://example/a> <http://example/p> "1" .\n`, { format: 'application/n-triples' });
    expect(store.labelOf(ex('a', 'p', '"1"'))).toBe(DEFAULT_LABEL);
  });

  it('a labels-graph entry beats the Security-Label', async () => {
    await store.load(...trig(`${prefixes()}:a :p "1" .\n:b :p "2" .\n${labelsGraph([[':a :p "1"', '*']])}`, 'employee'));
    expect(store.labelOf(ex('a', 'p', '"1"'))).toBe('*');
    expect(store.labelOf(ex('b', 'p', '"2"'))).toBe('employee');
  });

  it('a label for a triple not in the upload applies when the triple arrives', async () => {
    const later = await store.load(...trig(`${prefixes()}${labelsGraph([[':later :p "x"', 'employee']])}`));
    expect(later).toMatchObject({ quads: 0, triples: 0, labels: 1 });
    expect(store.count({})).toBe(0);
    await store.load(...trig(`${prefixes()}:later :p "x" .\n:other :p "y" .\n`));
    expect(store.labelOf(ex('later', 'p', '"x"'))).toBe('employee');
    expect(store.labelOf(ex('other', 'p', '"y"'))).toBe(DEFAULT_LABEL);
    expect(quadsOf(store.view(user('employee')))).toEqual(lines(ex('later', 'p', '"x"')));
  });

  it('re-labelling replaces the label', async () => {
    const A = ex('a', 'p', '"1"');
    await store.load(...trig(`${prefixes()}:a :p "1" .\n`, '*'));
    await store.load(...trig(`${prefixes()}${labelsGraph([[':a :p "1"', 'employee']])}`));
    expect(store.labelOf(A)).toBe('employee');
    expect(store.count({})).toBe(1);
    expect(quadsOf(store.view(user('contractor')))).toEqual([]);
    expect(quadsOf(store.view(user('employee')))).toEqual(lines(A));

    await store.load(...trig(`${prefixes()}:a :p "1" .\n`, 'contractor'));
    expect(store.labelOf(A)).toBe('contractor');
    // QuadStore.add: a quad loaded again without a label keeps the label it has.
    await store.load(...trig(`${prefixes()}:a :p "1" .\n`));
    expect(store.labelOf(A)).toBe('contractor');
    expect(store.count({})).toBe(1);
  });

  it.each([
    ['ndtp.co.uk', NDTP],
    ['telicent.io', TELICENT],
  ])('reads the labels graph in the %s namespace', async (_, ns) => {
    const result = await store.load(...trig(`${prefixes(ns)}:a :p "1" .\n${labelsGraph([[':a :p "1"', 'employee']])}`));
    expect(result).toMatchObject({ quads: 1, labels: 1 });
    expect(store.labelOf(ex('a', 'p', '"1"'))).toBe('employee');
    expect(store.count({})).toBe(1);
    expect(store.graphs()).toEqual([]);
  });

  it('a 4-term pattern (graph first) labels the named-graph quad only', async () => {
    const text = `${prefixes()}:s :p :o .\nGRAPH :g { :s :p :o }\n${labelsGraph([
      [':g :s :p :o', 'employee'],
      [':s :p :o', 'contractor'],
    ])}`;
    await store.load(...trig(text));
    expect(store.labelOf(ex('s', 'p', iri('o'), 'g'))).toBe('employee');
    expect(store.labelOf(ex('s', 'p', iri('o')))).toBe('contractor');
    expect(quadsOf(store.view(user('employee')))).toEqual(lines(ex('s', 'p', iri('o'), 'g')));
  });

  it('a 4-term pattern whose object is a literal labels that named-graph quad', async () => {
    const text = `${prefixes()}GRAPH :g { :s :p "1" }\n${labelsGraph([[':g :s :p "1"', 'employee']])}`;
    await store.load(...trig(text));
    expect(store.labelOf(ex('s', 'p', '"1"', 'g'))).toBe('employee');
  });

  it('keeps labels and pending labels across a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ianode-labels-'));
    dirs.push(dir);
    const first = await openStore({ dir, defaultLabel: DEFAULT_LABEL });
    await first.load(EXAMPLE, { format: 'application/trig' });
    await first.load(...trig(`${prefixes()}${labelsGraph([[':later :p "x"', 'employee']])}`));
    await first.close();

    const second = await openStore({ dir, defaultLabel: DEFAULT_LABEL });
    try {
      expect(quadsOf(second.view(user('engineer', 'employee')))).toEqual(lines(PHONE, EMP_9876));
      await second.load(...trig(`${prefixes()}:later :p "x" .\n`));
      expect(second.labelOf(ex('later', 'p', '"x"'))).toBe('employee');
    } finally {
      await second.close();
    }
  });
});

// ---- rejections: nothing of the upload is stored ----

describe('a rejected upload stores nothing', () => {
  const STORED = ex('stored', 'p', '"1"');
  const FRESH = ex('fresh', 'p', '"2"');
  const LATER = ex('later', 'p', '"3"');
  /** Valid parts every bad upload carries: new data, a re-label and a pending label. */
  const validParts = `:fresh :p "2" .\n`;
  const validEntries: [string, string][] = [
    [':stored :p "1"', 'employee'],
    [':later :p "3"', 'employee'],
  ];

  let store: QuadStore;
  beforeEach(async () => {
    store = await openStore({ defaultLabel: DEFAULT_LABEL });
    await store.load(...trig(`${prefixes()}:stored :p "1" .\n`, '*'));
  });
  afterEach(async () => {
    await store.close();
  });

  const CASES: { name: string; text: string; label?: string }[] = [
    { name: 'a malformed label in the labels graph', text: labelsGraph([...validEntries, [':fresh :p "2"', 'employee & (']]) },
    { name: 'a malformed Security-Label', text: labelsGraph(validEntries), label: 'a |' },
    { name: 'a pattern that does not parse', text: labelsGraph([...validEntries, [':fresh :p "2', 'employee']]) },
    { name: 'a pattern of two terms', text: labelsGraph([...validEntries, [':fresh :p', 'employee']]) },
    { name: 'a pattern of five terms', text: labelsGraph([...validEntries, [':g :fresh :p "2" :x', 'employee']]) },
    { name: 'a wildcard pattern (variable)', text: labelsGraph([...validEntries, ['?s :p "2"', 'employee']]) },
    { name: 'a wildcard pattern (ANY)', text: labelsGraph([...validEntries, ['ANY :p ANY', 'employee']]) },
    { name: 'an entry with two labels', text: `GRAPH authz:labels { [ authz:pattern ':fresh :p "2"' ; authz:label "a", "b" ] }\n${labelsGraph(validEntries)}` },
    { name: 'an RDF syntax error after valid data', text: `${labelsGraph(validEntries)}:broken :p .\n` },
  ];

  it('control: the valid parts alone load', async () => {
    await store.load(...trig(`${prefixes()}${validParts}${labelsGraph(validEntries)}`));
    expect(quadsOf(store)).toEqual(lines(STORED, FRESH));
    expect(store.labelOf(STORED)).toBe('employee');
    await store.load(...trig(`${prefixes()}:later :p "3" .\n`));
    expect(store.labelOf(LATER)).toBe('employee');
  });

  it.each(CASES)('$name', async ({ text, label }) => {
    await expect(store.load(...trig(`${prefixes()}${validParts}${text}`, label))).rejects.toThrow();
    expect(quadsOf(store)).toEqual(lines(STORED));
    expect(store.labelOf(STORED)).toBe('*');
    expect(holds(store, FRESH)).toBe(false);
    // The pending label of the rejected upload was not kept either.
    await store.load(...trig(`${prefixes()}:later :p "3" .\n`));
    expect(store.labelOf(LATER)).toBe(DEFAULT_LABEL);
  });
});
