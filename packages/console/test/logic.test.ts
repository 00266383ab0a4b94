/**
 * The console's own logic, without a browser: the Security-Label check of the upload page, SPARQL
 * results (table cells, pages, CSV), the per-user query history, the per-user GraphiQL storage and
 * the config document. The pages themselves run in Chromium (test/e2e/console.e2e.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { layoutGraph, MAX_TRIPLES, parseTurtle, shortName } from '../src/graph.js';
import { MAX_HISTORY, QueryHistory } from '../src/history.js';
import { checkLabel } from '../src/label.js';
import { pageOf, parseResults, showTerm, toCsv } from '../src/results.js';
import { userStorage } from '../src/storage.js';

/** The Web Storage interface over a Map (what localStorage is to the page). */
class MemoryStorage implements Storage {
  private readonly items = new Map<string, string>();
  get length(): number {
    return this.items.size;
  }
  clear(): void {
    this.items.clear();
  }
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  key(index: number): string | null {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
  setItem(key: string, value: string): void {
    this.items.set(key, String(value));
  }
}

describe('the Security-Label check (the server\'s parser, bundled)', () => {
  it('accepts well-formed labels and says how a legacy one is stored', () => {
    expect(checkLabel('employee', false)).toEqual({ state: 'ok', stored: 'employee' });
    expect(checkLabel('clearance=S && employee', false)).toEqual({ state: 'ok', stored: 'clearance=S && employee' });
    expect(checkLabel('  (a | b) && c ', false)).toEqual({ state: 'ok', stored: '(a | b) && c' });
    expect(checkLabel('!', false)).toEqual({ state: 'ok', stored: '!' });
    expect(checkLabel('user@host', true)).toEqual({ state: 'ok', stored: '"user@host"' });
    expect(checkLabel('', false)).toEqual({ state: 'empty' });
    expect(checkLabel('   ', true)).toEqual({ state: 'empty' });
  });

  it('refuses malformed labels with the position in the text as typed', () => {
    const dangling = checkLabel('employee &&', false);
    expect(dangling).toMatchObject({ state: 'error', position: 11 });
    expect((dangling as { message: string }).message).toMatch(/found end of label/);
    // Leading blanks count in the position shown, as the user sees the field.
    expect(checkLabel('  employee &&', false)).toMatchObject({ state: 'error', position: 13 });
    expect(checkLabel('a = = b', true)).toMatchObject({ state: 'error' });
    // Without the legacy rule a bare user@host is not a label; with it, a label holding a space is still not one.
    expect(checkLabel('user@host', false)).toMatchObject({ state: 'error' });
    expect(checkLabel('user @host', true)).toMatchObject({ state: 'error' });
  });
});

describe('SPARQL results', () => {
  const json = {
    head: { vars: ['s', 'o'] },
    results: {
      bindings: [
        { s: { type: 'uri', value: 'http://ex/a' }, o: { type: 'literal', value: 'x, "quoted"' } },
        { s: { type: 'bnode', value: 'b0' }, o: { type: 'literal', value: '12', datatype: 'http://www.w3.org/2001/XMLSchema#integer' } },
        { s: { type: 'uri', value: 'http://ex/c' }, o: { type: 'literal', value: 'chat', 'xml:lang': 'fr' } },
        { s: { type: 'uri', value: 'http://ex/d' } },
      ],
    },
  };

  it('reads bindings and booleans, and refuses what is neither', () => {
    const results = parseResults(json);
    expect(results).toMatchObject({ kind: 'bindings', vars: ['s', 'o'] });
    expect(parseResults({ head: {}, boolean: false })).toEqual({ kind: 'boolean', value: false });
    expect(() => parseResults({ head: {} })).toThrow(/not SPARQL results JSON/);
  });

  it('shows terms as a reader expects', () => {
    const rows = (parseResults(json) as { rows: Array<Record<string, never>> }).rows;
    expect(rows.map((r) => [showTerm(r.s), showTerm(r.o)])).toEqual([
      ['<http://ex/a>', 'x, "quoted"'],
      ['_:b0', '"12"^^xsd:integer'],
      ['<http://ex/c>', '"chat"@fr'],
      ['<http://ex/d>', ''],
    ]);
    expect(showTerm({ type: 'literal', value: 'v', datatype: 'http://ex/dt' })).toBe('"v"^^<http://ex/dt>');
  });

  it('writes SPARQL CSV: plain values, quoting, unbound as empty', () => {
    expect(toCsv(parseResults(json))).toBe('s,o\r\nhttp://ex/a,"x, ""quoted"""\r\n_:b0,12\r\nhttp://ex/c,chat\r\nhttp://ex/d,\r\n');
    expect(toCsv({ kind: 'boolean', value: true })).toBe('boolean\r\ntrue\r\n');
  });

  it('pages rows, clamping the page asked for', () => {
    const items = Array.from({ length: 53 }, (_, i) => i);
    expect(pageOf(items, 0, 25)).toMatchObject({ page: 0, pages: 3, first: 1, last: 25, total: 53 });
    expect(pageOf(items, 2, 25)).toMatchObject({ items: [50, 51, 52], first: 51, last: 53 });
    expect(pageOf(items, 9, 25).page).toBe(2);
    expect(pageOf(items, -1, 25).page).toBe(0);
    expect(pageOf([], 0, 25)).toMatchObject({ items: [], pages: 1, first: 0, last: 0, total: 0 });
  });
});

describe('query history per user', () => {
  it('keeps each user\'s queries apart, newest first, without duplicates, at most MAX_HISTORY', () => {
    const storage = new MemoryStorage();
    const alice = new QueryHistory(storage, 'sub-alice');
    const bob = new QueryHistory(storage, 'sub-bob');
    alice.add('ASK {}', 1);
    alice.add('SELECT * {}', 2);
    alice.add('  ASK {}  ', 3);
    alice.add('   ', 4);
    bob.add('SELECT ?b {}', 5);
    expect(alice.list()).toEqual([{ query: 'ASK {}', at: 3 }, { query: 'SELECT * {}', at: 2 }]);
    expect(bob.list()).toEqual([{ query: 'SELECT ?b {}', at: 5 }]);
    for (let i = 0; i < MAX_HISTORY + 10; i++) alice.add(`SELECT ${i} {}`, 10 + i);
    expect(alice.list()).toHaveLength(MAX_HISTORY);
    expect(alice.list()[0]!.query).toBe(`SELECT ${MAX_HISTORY + 9} {}`);
    alice.clear();
    expect(alice.list()).toEqual([]);
    expect(bob.list()).toHaveLength(1);
  });

  it('ignores a damaged entry instead of failing the page', () => {
    const storage = new MemoryStorage();
    storage.setItem('ianode.console.history.sparql.u', '{not json');
    expect(new QueryHistory(storage, 'u').list()).toEqual([]);
    storage.setItem('ianode.console.history.sparql.u', JSON.stringify([{ query: 'ASK {}', at: 1 }, { query: 3 }, null]));
    expect(new QueryHistory(storage, 'u').list()).toEqual([{ query: 'ASK {}', at: 1 }]);
  });
});

describe('GraphiQL storage per user', () => {
  it('prefixes every key; clear, key and length see only the user\'s keys', () => {
    const base = new MemoryStorage();
    base.setItem('other', '1');
    const a = userStorage(base, 'p.a.');
    const b = userStorage(base, 'p.b.');
    a.setItem('tabs', 'A');
    b.setItem('tabs', 'B');
    expect(a.getItem('tabs')).toBe('A');
    expect(base.getItem('p.a.tabs')).toBe('A');
    expect(a.length).toBe(1);
    expect(a.key(0)).toBe('tabs');
    a.clear();
    expect(a.getItem('tabs')).toBeNull();
    expect(b.getItem('tabs')).toBe('B');
    expect(base.getItem('other')).toBe('1');
  });
});

describe('the config document', () => {
  const good = { issuer: 'http://localhost:9229/p', clientId: 'c', accessServiceUrl: 'http://localhost:8091', dataset: 'ds', labelsLegacy: true, graphql: true, mode: 'secure' };
  it('is read whole, and a wrong field is named', () => {
    expect(parseConfig(good)).toEqual(good);
    expect(() => parseConfig({ ...good, clientId: 3 })).toThrow('clientId must be a string');
    expect(() => parseConfig({ ...good, mode: 'other' })).toThrow(/mode must be/);
    expect(() => parseConfig({ ...good, graphql: 'yes' })).toThrow('graphql must be true or false');
    expect(() => parseConfig([])).toThrow(/not a JSON object/);
  });
});

describe('the picture of a CONSTRUCT result', () => {
  const turtle = `@prefix : <http://example/> .
:a :knows :b ; :name "A" ; :age 3 .
:b :knows :a ; :name "A" .
_:x :about :a .`;

  it('one node per IRI or blank node, one per literal, one edge per triple, all inside the box', () => {
    const picture = layoutGraph(parseTurtle(turtle), 900, 420);
    expect(picture.triples).toBe(6);
    expect(picture.cut).toBe(false);
    expect(picture.edges).toHaveLength(6);
    const kinds = picture.nodes.map((n) => n.kind);
    expect(kinds.filter((k) => k === 'iri')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'bnode')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'literal')).toHaveLength(3); // the two "A" are two facts
    expect(picture.edges.map((e) => e.label).sort()).toEqual(['about', 'age', 'knows', 'knows', 'name', 'name']);
    for (const n of picture.nodes) {
      expect(n.x).toBeGreaterThanOrEqual(60);
      expect(n.x).toBeLessThanOrEqual(840);
      expect(n.y).toBeGreaterThanOrEqual(20);
      expect(n.y).toBeLessThanOrEqual(386); // room for the label below
    }
    // Deterministic, and the nodes do not all sit on one spot.
    // (Only places and edges: N3.js names blank nodes afresh at each parse.)
    const again = layoutGraph(parseTurtle(turtle), 900, 420);
    expect(again.nodes.map((n) => [n.x, n.y])).toEqual(picture.nodes.map((n) => [n.x, n.y]));
    expect(again.edges).toEqual(picture.edges);
    expect(new Set(picture.nodes.map((n) => `${Math.round(n.x)},${Math.round(n.y)}`)).size).toBe(picture.nodes.length);
  });

  it('draws at most MAX_TRIPLES, and says so', () => {
    const many = Array.from({ length: MAX_TRIPLES + 5 }, (_, i) => `<http://ex/s${i}> <http://ex/p> "${i}" .`).join('\n');
    const picture = layoutGraph(parseTurtle(many));
    expect(picture).toMatchObject({ triples: MAX_TRIPLES + 5, cut: true });
    expect(picture.edges).toHaveLength(MAX_TRIPLES);
  });

  it('names IRIs by their last segment', () => {
    expect(shortName('http://example/person4321')).toBe('person4321');
    expect(shortName('http://www.w3.org/2000/01/rdf-schema#label')).toBe('label');
    expect(shortName('urn:isbn:123')).toBe('123');
    expect(shortName('http://example/dir/')).toBe('dir');
  });

  it('a Turtle syntax error is an error (the page shows the Turtle without a picture)', () => {
    expect(() => parseTurtle('<http://ex/a> <http://ex/b> .')).toThrow();
  });
});
