/**
 * Seeded random data for the contract suites: key quads over a small vocabulary (so patterns hit),
 * labels from a fixed pool, user attribute sets and visibility predicates. Same seed, same data.
 */
import { AttributeSet, Hierarchy, LabelEvaluator, createHierarchySource } from '@ianode/abac';
import type { LabelPredicate } from '@ianode/rdf';
import type { LabelledKeyQuad } from './reference-dataset.js';
import { Rng } from './random.js';

const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** Label texts the random data draws from: all valid in the SPEC §3 grammar. */
export const LABEL_POOL: readonly string[] = [
  '*',
  '!',
  'employee',
  'a & b',
  'a | c',
  'clearance=S',
  'clearance=TS',
  'engineer & (employee | contractor)',
  'nationality != GBR',
  '"quoted attr" || employee',
];

/** User attributes as the access service hands them out (`name` or `name=value`). */
export const ATTRIBUTE_POOL: readonly string[] = [
  'employee',
  'contractor',
  'engineer',
  'a',
  'b',
  'c',
  'clearance=S',
  'clearance=TS',
  'nationality=GBR',
  'nationality=FRA',
  'quoted attr',
];

/** Literal lexical forms that stress escaping in logs and checkpoints. */
const AWKWARD_LEXICALS = ['', 'say "hi"', 'line\nbreak\ttab', 'back\\slash', 'caf\u00e9 \u{1f600}', '<http://ex/s1', '_:b1'];

function subjectKey(rng: Rng): string {
  return rng.chance(0.8) ? `<http://ex/s${rng.int(40)}` : `_:b${rng.int(8)}`;
}

function objectKey(rng: Rng): string {
  switch (rng.int(7)) {
    case 0:
      return subjectKey(rng);
    case 1:
      return `"v${rng.int(30)}"`;
    case 2:
      return `"${rng.int(50)}"^^${XSD}integer`;
    case 3:
      return `"v${rng.int(10)}"@${rng.pick(['en', 'fr', 'en-gb'])}`;
    case 4:
      return `"${rng.pick(AWKWARD_LEXICALS)}"`;
    case 5:
      return `<http://ex/g${rng.int(3)}`; // a graph name used as a node
    default:
      return `"2024-01-0${1 + rng.int(9)}"^^${XSD}date`;
  }
}

function graphKey(rng: Rng): string {
  if (rng.chance(0.5)) return '';
  return rng.chance(0.9) ? `<http://ex/g${rng.int(3)}` : '_:graphNode';
}

/**
 * `count` random quads, each with a label from LABEL_POOL or none (default label). About one in
 * twelve repeats an earlier quad, with a new label or none, to exercise "add keeps or replaces".
 */
export function randomQuads(rng: Rng, count: number): LabelledKeyQuad[] {
  const out: LabelledKeyQuad[] = [];
  for (let i = 0; i < count; i++) {
    const label = rng.chance(0.25) ? undefined : rng.pick(LABEL_POOL);
    if (out.length > 0 && rng.chance(1 / 12)) {
      const { s, p, o, g } = rng.pick(out);
      out.push({ s, p, o, g, label });
      continue;
    }
    out.push({ s: subjectKey(rng), p: `<http://ex/p${rng.int(6)}`, o: objectKey(rng), g: graphKey(rng), label });
  }
  return out;
}

export function randomAttributes(rng: Rng): string[] {
  return rng.subset(ATTRIBUTE_POOL, 0.4);
}

/** The clearance hierarchy of SPEC §3. */
export const HIERARCHIES = createHierarchySource([new Hierarchy('clearance', ['O', 'OS', 'S', 'TS'])]);

export interface Visibility {
  /** For failure messages. */
  name: string;
  visible: LabelPredicate;
  /** Texts the predicate was asked about that are no label of the data (see randomVisibility). */
  unexpected?: Set<string>;
}

/**
 * A predicate that accepts exactly a random subset of the label texts (the pool plus the default
 * label). Labels outside that universe are rejected and remembered in `unexpected`, so a dataset
 * that hands the predicate something other than a stored label's text is caught.
 */
export function randomVisibility(rng: Rng, defaultLabel: string): Visibility {
  const universe = new Set([...LABEL_POOL, defaultLabel]);
  const accepted = new Set(rng.subset([...universe]));
  const unexpected = new Set<string>();
  return {
    name: `accepts ${JSON.stringify([...accepted])}`,
    unexpected,
    visible: (label) => {
      if (!universe.has(label)) unexpected.add(label);
      return accepted.has(label);
    },
  };
}

/** What a user with random attributes may see, decided by the ABAC label language. */
export function randomUserVisibility(rng: Rng): Visibility {
  const attributes = randomAttributes(rng);
  const evaluator = new LabelEvaluator(AttributeSet.from(attributes), HIERARCHIES);
  return { name: `user ${JSON.stringify(attributes)}`, visible: (label) => evaluator.isVisible(label) };
}
