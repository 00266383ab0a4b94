/**
 * Differential test against Oxigraph (a devDependency): random small datasets (default and two
 * named graphs) and random queries built from every operator; both engines must return the same
 * solution multisets. Known, deliberate differences are not generated:
 * - property path alternatives: we follow the spec's multiset Union (§18.4), Oxigraph returns
 *   distinct pairs; negated property sets: we give each pair once (the spec defines a set),
 *   Oxigraph does so only when both ends are bound (paths.test.ts covers both);
 * - a sub-select directly inside GRAPH ?g: we evaluate it per named graph (§18.5 Graph), Oxigraph
 *   does not bind ?g;
 * - zero-length paths from a constant the graph lacks: we return the constant (§18.4 ALP),
 *   Oxigraph returns nothing (the generator's constants always occur in the data);
 * - several FROM graphs: we merge them (distinct triples, §13.2.2), Oxigraph keeps a triple once
 *   per graph (graph.test.ts covers the merge);
 * - GRAPH ?g over a group without triple patterns (only VALUES / BIND): we bind ?g to each named
 *   graph (§18.5 Graph), Oxigraph does not (GRAPH groups here start with a triple pattern);
 * - MIN/MAX over terms of different kinds: we order them like ORDER BY (§18.5.1.5), Oxigraph
 *   gives no value;
 * - patterns after a MINUS in a group, `{ A MINUS { P } B }`: we evaluate Join(Minus(A, P), B)
 *   (§18.2.2.6); Oxigraph subtracts P from Join(A, B), so B's variables can make P match (MINUS
 *   here always ends its group, after a triple pattern); nor does it evaluate a MINUS inside an
 *   OPTIONAL on its own (§18.5 LeftJoin), it feeds it the left side's bindings (MINUS here only
 *   appears in the top-level group);
 * - a variable a sub-select does not project, read by an outer FILTER: we treat it as another
 *   variable (unbound there, §18.2.1), Oxigraph sees the inner value (sub-selects here project *
 *   or group by one variable);
 * - MINUS whose right side has a solution binding nothing (MINUS { OPTIONAL { ... } }): such a
 *   solution never removes anything (§18.5 Minus), Oxigraph removes everything (MINUS groups here
 *   start with a triple pattern);
 * - sub-selects inside EXISTS: substitution reaches into them differently (not generated);
 * - MINUS inside EXISTS: we substitute the outer bindings as constants (§18.6), so they never
 *   make MINUS's domains overlap; Oxigraph keeps them as bindings.
 * - closure paths (`*`, `+`, `?`) whose both ends are bound by a join: Oxigraph sometimes repeats
 *   a pair, we give it once (§18.4); it shows on larger data only (DIFF_SIZE=1500).
 * Failures print the seed, data and query; re-run some with DIFF_SEEDS=7,8 (DIFF_DUMP=file writes
 * the failing data and query there).
 */
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import oxigraph from 'oxigraph';
import { termToKey, type Term } from '@ianode/rdf';
import { openStore, type QuadStore } from '@ianode/store';
import { executeQuery } from '../../src/engine/execute.js';
import { mulberry32 } from '@ianode/testkit';


const E = 'http://e/';
const NODES = ['a', 'b', 'c', 'd', 'e'].map((x) => `<${E}${x}>`);
const PREDS = ['p', 'q', 'r'].map((x) => `<${E}${x}>`);
const LITS = ['1', '2', '"x"', '"y"@en', '2.5'];
const GRAPHS = [`<${E}g1>`, `<${E}g2>`];
const VARS = ['?x', '?y', '?z', '?w'];

class Generator {
  constructor(private readonly rnd: () => number) {}
  pick<T>(a: readonly T[]): T {
    return a[Math.floor(this.rnd() * a.length)]!;
  }

  data(size: number): string {
    const lines: string[] = [];
    // Every node occurs in every graph, so constants are always graph nodes (see above).
    for (const g of ['', ...GRAPHS]) {
      for (const n of [...NODES, ...LITS]) lines.push(g ? `${g} { <${E}T> <${E}has> ${n} . }` : `<${E}T> <${E}has> ${n} .`);
    }
    for (let i = 0; i < size; i++) {
      const o = this.rnd() < 0.6 ? this.pick(NODES) : this.pick(LITS);
      const t = `${this.pick(NODES)} ${this.pick(PREDS)} ${o} .`;
      lines.push(this.rnd() < 0.7 ? t : `${this.pick(GRAPHS)} { ${t} }`);
    }
    return lines.join('\n');
  }

  term(): string {
    return this.rnd() < 0.75 ? this.pick(VARS) : this.rnd() < 0.7 ? this.pick(NODES) : this.pick(LITS);
  }

  path(): string {
    const p = this.pick(PREDS);
    return this.pick([`${p}*`, `${p}+`, `${p}?`, `^${p}`, `^${p}*`, `^${p}+`]);
  }

  triple(): string {
    const s = this.rnd() < 0.8 ? this.pick(VARS) : this.pick(NODES);
    const p = this.rnd() < 0.15 ? this.path() : this.rnd() < 0.9 ? this.pick(PREDS) : this.pick(VARS);
    return `${s} ${p} ${this.term()} .`;
  }

  filter(): string {
    const v = (): string => this.pick(VARS);
    return this.pick([`isIRI(${v()})`, `BOUND(${v()})`, `${v()} = ${this.pick(NODES)}`, `${v()} != ${v()}`, `${v()} > 1`, `!BOUND(${v()})`, `isLiteral(${v()}) || ${v()} = ${this.pick(NODES)}`]);
  }

  group(depth: number, inGraph = false, inExists = false): string {
    const parts: string[] = [];
    const tail: string[] = [];
    const n = 1 + Math.floor(this.rnd() * 3);
    for (let i = 0; i < n; i++) {
      const k = this.rnd();
      if (depth > 2 || k < 0.45) parts.push(this.triple());
      else if (k < 0.55) parts.push(`OPTIONAL { ${this.group(depth + 1, inGraph, inExists)} }`);
      else if (k < 0.62) parts.push(`{ ${this.group(depth + 1, inGraph, inExists)} } UNION { ${this.group(depth + 1, inGraph, inExists)} }`);
      else if (k < 0.67) {
        if (inExists || depth > 0) parts.push(this.triple());
        else tail.push(`MINUS { ${this.triple()} ${this.group(depth + 1, inGraph)} }`);
      }
      else if (k < 0.74) parts.push(`FILTER(${this.filter()})`);
      else if (k < 0.78) parts.push(`FILTER ${this.rnd() < 0.5 ? 'NOT ' : ''}EXISTS { ${this.group(depth + 1, inGraph, true)} }`);
      else if (k < 0.83) parts.push(`GRAPH ${this.rnd() < 0.7 ? '?g' : this.pick(GRAPHS)} { ${this.triple()} ${this.group(depth + 1, true, inExists)} }`);
      else if (k < 0.87) parts.push(`VALUES ${this.pick(VARS)} { ${this.pick(NODES)} ${this.pick(LITS)} UNDEF }`);
      else if (k < 0.91 && !inGraph && !inExists) {
        const v = this.pick(VARS);
        parts.push(`{ SELECT ${v} (COUNT(*) AS ?c${depth}) WHERE { ${this.group(depth + 1, false, inExists)} } GROUP BY ${v} }`);
      } else if (k < 0.94 && !inGraph && !inExists) parts.push(`{ SELECT DISTINCT * WHERE { ${this.group(depth + 1, false, inExists)} } }`);
      else if (k < 0.97) parts.push(`BIND(${this.pick(['STR(?x)', '?y', '1', 'COALESCE(?z, 0)', 'IF(BOUND(?w), 1, 2)'])} AS ?b${depth}${i})`);
      else parts.push(`{ ${this.group(depth + 1, inGraph, inExists)} }`);
    }
    if (tail.length > 0) parts.unshift(this.triple());
    return [...parts, ...tail].join(' ');
  }

  query(): string {
    const body = this.group(0);
    const k = this.rnd();
    if (k < 0.1) return `SELECT ?x (COUNT(*) AS ?n) (SUM(?y) AS ?s) (COUNT(DISTINCT ?z) AS ?m) WHERE { ${body} } GROUP BY ?x`;
    if (k < 0.15) return `SELECT DISTINCT ?x ?y WHERE { ${body} }`;
    if (k < 0.2) return `ASK { ${body} }`;
    if (k < 0.25) return `SELECT * FROM <${E}g1> FROM NAMED <${E}g2> WHERE { ${body} }`;
    return `SELECT * WHERE { ${body} }`;
  }
}

/** Terms by key; xsd:decimal by value (the two engines write computed decimals differently:
 * "15.0" and "15" are the same number). */
const key = (t: Term): string =>
  t.termType === 'Literal' && t.datatype.value === 'http://www.w3.org/2001/XMLSchema#decimal' ? `decimal:${Number(t.value)}` : termToKey(t);
const show = (entries: Iterable<[string, Term | undefined]>): string =>
  [...entries]
    .filter((e): e is [string, Term] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${key(v)}`)
    .sort()
    .join(' ');

const SEEDS = process.env['DIFF_SEEDS'] ? process.env['DIFF_SEEDS'].split(',').map(Number) : Array.from({ length: 12 }, (_, i) => 100 + i);
const QUERIES_PER_SEED = 40;
const stores: QuadStore[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

describe('differential: ianode and Oxigraph agree', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}`, async () => {
      const gen = new Generator(mulberry32(seed));
      const size = Number(process.env['DIFF_SIZE'] ?? 0) || (seed % 3 === 0 ? 150 : 20);
      const data = gen.data(size);
      const ox = new oxigraph.Store();
      ox.load(data, { format: 'application/trig' });
      const store = await openStore({ defaultLabel: '*' });
      stores.push(store);
      await store.load(data, { format: 'application/trig' });
      let compared = 0;
      for (let i = 0; i < QUERIES_PER_SEED; i++) {
        const q = gen.query();
        let expected: string;
        try {
          const r = ox.query(q) as boolean | Map<string, Term>[];
          expected = typeof r === 'boolean' ? String(r) : r.map((m) => show(m)).sort().join('\n');
        } catch {
          continue; // not a valid query (e.g. BIND to a variable already in scope)
        }
        const r = executeQuery(store, q, { deadline: Date.now() + 10_000 });
        const actual = r.type === 'boolean' ? String(r.value) : r.type === 'bindings' ? [...r.solutions].map((m) => show(m)).sort().join('\n') : '';
        compared++;
        if (actual !== expected && process.env['DIFF_DUMP']) writeFileSync(process.env['DIFF_DUMP'], `${data}\n#QUERY ${q}\n`);
        expect(actual, `seed ${seed}, query ${i}\nDATA:\n${data}\nQUERY: ${q}`).toBe(expected);
      }
      expect(compared).toBeGreaterThan(QUERIES_PER_SEED / 2);
    });
  }
});
