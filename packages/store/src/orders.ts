/**
 * The six sort orders of the quad indexes. Each is a tuple of column positions; together they
 * serve all 16 bound/unbound shapes of (s, p, o, g) as a contiguous range (a bound prefix).
 */
import type { QuadPattern } from '@ianode/rdf';

export type Position = 's' | 'p' | 'o' | 'g';

export const ORDERS = {
  spog: ['s', 'p', 'o', 'g'],
  posg: ['p', 'o', 's', 'g'],
  ospg: ['o', 's', 'p', 'g'],
  gspo: ['g', 's', 'p', 'o'],
  gpos: ['g', 'p', 'o', 's'],
  gosp: ['g', 'o', 's', 'p'],
} as const satisfies Record<string, readonly Position[]>;

export type OrderName = keyof typeof ORDERS;
export const ORDER_NAMES = Object.keys(ORDERS) as OrderName[];

/** The graph-first order whose permutation is the stable sort by g of the given order. */
export const GRAPH_FIRST: Record<'spog' | 'posg' | 'ospg', 'gspo' | 'gpos' | 'gosp'> = {
  spog: 'gspo',
  posg: 'gpos',
  ospg: 'gosp',
};

/** The order whose bound prefix covers every bound position of the pattern. */
export function chooseOrder(pattern: QuadPattern): OrderName {
  const s = pattern.s !== undefined;
  const p = pattern.p !== undefined;
  const o = pattern.o !== undefined;
  if (pattern.g !== undefined) {
    if (s) return o && !p ? 'gosp' : 'gspo';
    if (p) return 'gpos';
    if (o) return 'gosp';
    return 'gspo';
  }
  if (s) return o && !p ? 'ospg' : 'spog';
  if (p) return 'posg';
  if (o) return 'ospg';
  return 'spog';
}

/** The values of the pattern's bound prefix in the order's sequence. */
export function boundPrefix(order: OrderName, pattern: QuadPattern): number[] {
  const out: number[] = [];
  for (const pos of ORDERS[order]) {
    const v = pattern[pos];
    if (v === undefined) break;
    out.push(v);
  }
  return out;
}
