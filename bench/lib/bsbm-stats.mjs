/**
 * Term and triple mix of the generated data: distinct terms, distinct triples, triples per
 * predicate and per object kind. Run: node bench/lib/bsbm-stats.mjs --triples 1000000 [--seed 42]
 * (holds every distinct term and triple in memory; meant for ≤ a few million triples).
 */
import { bsbmLines, bsbmScale } from './bsbm.mjs';
import { parseArgs } from './args.mjs';

/**
 * @param {{ triples: number, seed?: number }} options
 */
export function bsbmStats({ triples, seed = 42 }) {
  const subjects = new Set();
  const predicates = new Map();
  const objects = new Set();
  const lines = new Set();
  /** @type {Record<string, number>} */
  const objectKinds = {};
  let chars = 0;
  for (const line of bsbmLines({ triples, seed })) {
    chars += line.length;
    lines.add(line);
    const a = line.indexOf('> ');
    const b = line.indexOf('> ', a + 2);
    const s = line.slice(0, a + 1);
    const p = line.slice(a + 2, b + 1);
    const o = line.slice(b + 2, line.length - 3);
    subjects.add(s);
    predicates.set(p, (predicates.get(p) ?? 0) + 1);
    objects.add(o);
    const kind = o.startsWith('<') ? 'iri' : o.endsWith('@en') ? 'langString' : o.includes('^^<')
      ? o.slice(o.lastIndexOf('#') + 1, -1) : 'string';
    objectKinds[kind] = (objectKinds[kind] ?? 0) + 1;
  }
  const terms = new Set([...subjects, ...predicates.keys(), ...objects]);
  return {
    triples,
    distinctTriples: lines.size,
    scale: bsbmScale(triples),
    meanLineBytes: chars / triples,
    subjects: subjects.size,
    predicates: predicates.size,
    objects: objects.size,
    terms: terms.size,
    termsPerTriple: terms.size / triples,
    objectKinds,
    perPredicate: Object.fromEntries([...predicates].sort((x, y) => y[1] - x[1])),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = parseArgs(process.argv.slice(2), { triples: 100_000, seed: 42 });
  console.log(JSON.stringify(bsbmStats({ triples: Number(args.triples), seed: Number(args.seed) }), null, 2));
}
