/** Small helpers for tests that state expected quads by hand, in term keys. */
import { keyToTerm, type Dataset, type QuadPattern } from '@ianode/rdf';
import type { KeyQuad } from '@ianode/testkit';

/** A quad as one readable line: `s p o g` in term keys (g '' = default graph). */
export function keyText(q: KeyQuad): string {
  return [q.s, q.p, q.o, q.g].join(' ');
}

/** The given quads as sorted lines, to compare with `quadsOf`. */
export function lines(...quads: KeyQuad[]): string[] {
  return quads.map(keyText).sort();
}

/** The quads a dataset yields for a pattern, as sorted lines. */
export function quadsOf(ds: Dataset, pattern: QuadPattern = {}): string[] {
  return [...ds.match(pattern)].map((q) => keyText({ s: ds.key(q.s), p: ds.key(q.p), o: ds.key(q.o), g: ds.key(q.g) })).sort();
}

/** Whether the dataset holds the quad (its terms may be in the dictionary without it). */
export function holds(ds: Dataset, q: KeyQuad): boolean {
  const [s, p, o, g] = [q.s, q.p, q.o, q.g].map((key) => ds.lookup(keyToTerm(key)));
  if (s === undefined || p === undefined || o === undefined || g === undefined) return false;
  return ds.count({ s, p, o, g }) === 1;
}
