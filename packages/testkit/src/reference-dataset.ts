/**
 * The oracle: a deliberately naive Dataset over a plain array of rows. Every method is a linear
 * scan or a filter, so it is obviously right; the store is checked against it.
 */
import {
  TermDictionary,
  type Dataset,
  type IdQuad,
  type LabelPredicate,
  type QuadBatch,
  type QuadPattern,
  type Term,
} from '@ianode/rdf';

/** Quad in dictionary-key form (the shape of the store's `KeyQuad`); `g` '' = default graph. */
export interface KeyQuad {
  s: string;
  p: string;
  o: string;
  g: string;
}

/** A key quad with its label; `label` undefined = the dataset's default label. */
export interface LabelledKeyQuad extends KeyQuad {
  label?: string | undefined;
}

/** One stored quad; `label` '' = the default label. */
export interface ReferenceRow extends IdQuad {
  label: string;
}

function matches(row: IdQuad, pattern: QuadPattern): boolean {
  return (
    (pattern.s === undefined || pattern.s === row.s) &&
    (pattern.p === undefined || pattern.p === row.p) &&
    (pattern.o === undefined || pattern.o === row.o) &&
    (pattern.g === undefined || pattern.g === row.g)
  );
}

export class ReferenceDataset implements Dataset {
  constructor(
    readonly rows: readonly ReferenceRow[],
    readonly dictionary: TermDictionary,
    readonly defaultLabel: string,
  ) {}

  /** The label text a predicate sees for a row ('' resolved to the default label). */
  labelText(row: ReferenceRow): string {
    return row.label === '' ? this.defaultLabel : row.label;
  }

  /** Label text of a stored quad, or undefined when this dataset does not hold it. */
  labelOf(quad: IdQuad): string | undefined {
    const row = this.rows.find((r) => matches(r, quad));
    return row === undefined ? undefined : this.labelText(row);
  }

  match(pattern: QuadPattern): IdQuad[] {
    return this.rows.filter((row) => matches(row, pattern)).map(({ s, p, o, g }) => ({ s, p, o, g }));
  }

  *matchBatches(pattern: QuadPattern, batchSize = 1024): Iterable<QuadBatch> {
    const all = this.match(pattern);
    for (let start = 0; start < all.length; start += batchSize) {
      const chunk = all.slice(start, start + batchSize);
      yield {
        length: chunk.length,
        s: Uint32Array.from(chunk, (q) => q.s),
        p: Uint32Array.from(chunk, (q) => q.p),
        o: Uint32Array.from(chunk, (q) => q.o),
        g: Uint32Array.from(chunk, (q) => q.g),
      };
    }
  }

  count(pattern: QuadPattern): number {
    return this.match(pattern).length;
  }

  graphs(): number[] {
    return [...new Set(this.rows.map((r) => r.g).filter((g) => g !== 0))];
  }

  view(visible: LabelPredicate): ReferenceDataset {
    const kept = this.rows.filter((row) => visible(this.labelText(row)));
    return new ReferenceDataset(kept, this.dictionary, this.defaultLabel);
  }

  lookup(term: Term): number | undefined {
    return this.dictionary.lookup(term);
  }

  term(id: number): Term {
    return this.dictionary.term(id);
  }

  key(id: number): string {
    return this.dictionary.key(id);
  }
}

/**
 * Builds the reference from quads added in order, with the store's `add` semantics: a quad is
 * stored once; a later add with a label replaces the label, a later add without one keeps it.
 */
export function buildReference(quads: readonly LabelledKeyQuad[], defaultLabel: string): ReferenceDataset {
  const dictionary = new TermDictionary();
  const rows = new Map<string, ReferenceRow>();
  for (const q of quads) {
    const row = {
      s: dictionary.intern(q.s),
      p: dictionary.intern(q.p),
      o: dictionary.intern(q.o),
      g: dictionary.intern(q.g),
      label: q.label ?? '',
    };
    const id = `${row.s} ${row.p} ${row.o} ${row.g}`;
    const existing = rows.get(id);
    if (existing === undefined) rows.set(id, row);
    else if (q.label !== undefined) existing.label = q.label;
  }
  return new ReferenceDataset([...rows.values()], dictionary, defaultLabel);
}
