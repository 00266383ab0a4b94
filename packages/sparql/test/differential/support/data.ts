/**
 * Random labelled data, labels and users for the ABAC differential test. Everything is drawn from
 * a seeded PRNG (`Rng` of @ianode/testkit), so a seed reproduces a case exactly.
 *
 * The vocabulary is deliberately small so that joins, paths and groups hit: a dozen nodes, four
 * predicates (`:sub` mostly forms a chain n0 -> n1 -> ... for paths), a handful of literals
 * (integers and a decimal for aggregates), two blank nodes (for DESCRIBE closures and CONSTRUCT
 * isomorphism), two common named graphs, a rare third one, and the default graph.
 */
import { AttributeSet, Hierarchy, compileLabel, createHierarchySource, type HierarchySource } from '@ianode/abac';
import { Rng } from '@ianode/testkit';

export { Rng };

export const EX = 'http://ex/';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

export const NODE_COUNT = 12;
export const PREDICATES = ['knows', 'sub', 'val', 'tag'] as const;
/** Named graphs; `g3` is rare (a few quads, often all hidden), so graph names themselves leak
 * when a view lists graphs it should not. */
export const GRAPHS = ['g1', 'g2', 'g3'] as const;

/** Literal keys (dictionary key form of packages/rdf/src/terms.ts). */
export const LITERAL_KEYS: readonly string[] = [
  `"1"^^${XSD}integer`,
  `"2"^^${XSD}integer`,
  `"3"^^${XSD}integer`,
  `"5"^^${XSD}integer`,
  `"8"^^${XSD}integer`,
  `"2.5"^^${XSD}decimal`,
  '"x"',
  '"y"',
  '"x"@en',
];

/** The same literals in SPARQL syntax, for query constants. */
export const LITERAL_SPARQL: readonly string[] = ['1', '2', '3', '5', '8', '2.5', '"x"', '"y"', '"x"@en'];

export const nodeKey = (i: number): string => `<${EX}n${i}`;
export const predKey = (p: string): string => `<${EX}${p}`;
export const graphKey = (g: string): string => (g === '' ? '' : `<${EX}${g}`);

/** Labels the data draws from: all valid in the SPEC §3 grammar. */
export const LABEL_POOL: readonly string[] = [
  '*',
  '!',
  'a',
  'b',
  'a & b',
  'a | c',
  'c=true',
  'clearance=S',
  'clearance=OS',
  'clearance=TS',
  'nationality != GBR',
  '(a | b) && clearance=O',
  'employee || "quoted attr"',
];

/** Default labels for the store with everything (applied to unlabelled quads at read time). */
export const DEFAULT_LABELS: readonly string[] = ['!', '*', 'a', 'clearance=OS'];

export const ATTRIBUTE_POOL: readonly string[] = ['a', 'b', 'c', 'employee', 'quoted attr', 'nationality=GBR', 'nationality=FRA'];
export const CLEARANCES: readonly string[] = ['O', 'OS', 'S', 'TS'];

export const HIERARCHIES: HierarchySource = createHierarchySource([new Hierarchy('clearance', CLEARANCES)]);

export interface KeyQuad {
  s: string;
  p: string;
  o: string;
  g: string;
}

/** One write against the store: add with a label (undefined: keep the current one, or the default
 * label) or delete. */
export type Op = { kind: 'add'; quad: KeyQuad; label: string | undefined } | { kind: 'delete'; quad: KeyQuad };

export interface RandomData {
  /** Transactions, each a list of writes, applied in order. */
  transactions: Op[][];
  defaultLabel: string;
}

function subjectKey(rng: Rng): string {
  return rng.chance(0.08) ? `_:b${rng.int(2)}` : nodeKey(rng.int(NODE_COUNT));
}

function randomQuad(rng: Rng): KeyQuad {
  const p = rng.pick(PREDICATES);
  let s: string;
  let o: string;
  switch (p) {
    case 'knows':
      s = subjectKey(rng);
      o = rng.chance(0.1) ? `_:b${rng.int(2)}` : nodeKey(rng.int(NODE_COUNT));
      break;
    case 'sub': {
      // Mostly a chain n_i -> n_{i+1}, now and then a shortcut or a back edge (cycles for p+ / p*).
      const i = rng.int(NODE_COUNT);
      s = nodeKey(i);
      o = rng.chance(0.75) ? nodeKey((i + 1) % NODE_COUNT) : nodeKey(rng.int(NODE_COUNT));
      break;
    }
    case 'val':
      s = subjectKey(rng);
      o = rng.pick(LITERAL_KEYS);
      break;
    default:
      s = nodeKey(rng.int(NODE_COUNT));
      o = rng.chance(0.5) ? nodeKey(rng.int(NODE_COUNT)) : rng.pick(LITERAL_KEYS);
  }
  const r = rng.int(100);
  const g = r < 48 ? '' : r < 75 ? graphKey('g1') : r < 96 ? graphKey('g2') : graphKey('g3');
  return { s, p: predKey(p), o, g };
}

/**
 * 30-150 quads in 1-3 transactions. About one add in ten repeats an earlier quad (with a new label
 * or none, "keep or replace"); the last transaction may delete a few.
 */
export function randomData(rng: Rng): RandomData {
  const count = 30 + rng.int(121);
  const added: KeyQuad[] = [];
  const ops: Op[] = [];
  for (let i = 0; i < count; i++) {
    const label = rng.chance(0.2) ? undefined : rng.pick(LABEL_POOL);
    const quad = added.length > 0 && rng.chance(0.1) ? rng.pick(added) : randomQuad(rng);
    added.push(quad);
    ops.push({ kind: 'add', quad, label });
  }
  const parts = 1 + rng.int(3);
  const transactions: Op[][] = [];
  const size = Math.ceil(ops.length / parts);
  for (let i = 0; i < ops.length; i += size) transactions.push(ops.slice(i, i + size));
  if (rng.chance(0.4)) {
    const deletes = 1 + rng.int(5);
    for (let i = 0; i < deletes; i++) transactions[transactions.length - 1]!.push({ kind: 'delete', quad: rng.pick(added) });
  }
  return { transactions, defaultLabel: rng.pick(DEFAULT_LABELS) };
}

const quadId = (q: KeyQuad): string => `${q.s}\u0000${q.p}\u0000${q.o}\u0000${q.g}`;

export interface EffectiveQuad extends KeyQuad {
  /** The label text the quad carries after all writes (the default label when none given). */
  label: string;
}

/** What the data holds after every write, each quad with its effective label (our own model of the
 * store's "add keeps or replaces the label" rule, not the store's). */
export function finalQuads(data: RandomData): EffectiveQuad[] {
  const state = new Map<string, { quad: KeyQuad; label: string | undefined }>();
  for (const tx of data.transactions) {
    for (const op of tx) {
      const id = quadId(op.quad);
      if (op.kind === 'delete') {
        state.delete(id);
        continue;
      }
      const prev = state.get(id);
      state.set(id, { quad: op.quad, label: op.label ?? prev?.label });
    }
  }
  return [...state.values()].map(({ quad, label }) => ({ ...quad, label: label ?? data.defaultLabel }));
}

export interface User {
  /** Attribute strings as the access service hands them out (`name` or `name=value`). */
  attributes: string[];
  /** For failure messages. */
  name: string;
}

/** A random user: a subset of the attributes, and sometimes one (rarely two) clearances. */
export function randomUser(rng: Rng): User {
  const attributes = rng.subset(ATTRIBUTE_POOL, 0.35);
  if (rng.chance(0.6)) attributes.push(`clearance=${rng.pick(CLEARANCES)}`);
  if (rng.chance(0.1)) attributes.push(`clearance=${rng.pick(CLEARANCES)}`);
  return { attributes, name: JSON.stringify(attributes) };
}

/** Visibility straight from the label language (compileLabel + evaluate), independent of the
 * store's view machinery. */
export function visibleTo(user: User, label: string): boolean {
  return compileLabel(label).evaluate(AttributeSet.from(user.attributes), HIERARCHIES);
}

/** The data in a readable form, for failure messages. */
export function showData(data: RandomData): string {
  const lines: string[] = [`default label ${JSON.stringify(data.defaultLabel)}`];
  data.transactions.forEach((tx, i) => {
    lines.push(`-- transaction ${i + 1}`);
    for (const op of tx) {
      const q = op.quad;
      const text = `${q.s} ${q.p} ${q.o} ${q.g}`.replaceAll(EX, ':').replaceAll(XSD, 'xsd:');
      lines.push(op.kind === 'delete' ? `DELETE ${text}` : `ADD ${text}  label=${op.label === undefined ? '(none)' : JSON.stringify(op.label)}`);
    }
  });
  return lines.join('\n');
}
