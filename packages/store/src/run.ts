/**
 * A run: a set of rows kept in all six sort orders (row-id permutations). The store is a stack of
 * runs of geometrically decreasing size (a log-structured merge): each commit adds a small run and
 * runs of similar size are merged, so a commit costs time in proportion to its own size and every
 * row is merged O(log n) times. A match scans one binary-searched range per run.
 */
import { ORDERS, GRAPH_FIRST, type OrderName, type Position } from './orders.js';
import { compareRows, sortRows, stableSortByGraph, type ColumnSet } from './radix-sort.js';
import { sortCopy } from './parallel-sort.js';
import { shareable, sharedCopy, sharedU32 } from './shared.js';

export type Perms = Record<OrderName, Uint32Array>;

export interface Run {
  readonly size: number;
  readonly perms: Perms;
  /** Which subject / object ids the run holds (see `runMayMatch`), built on first use. */
  presence?: { s?: Uint32Array; o?: Uint32Array };
}

/** Build a run from row ids (any order). Pass `spogSorted` when they are already in SPOG order. */
export function buildRun(cols: ColumnSet, rows: Uint32Array, spogSorted = false): Run {
  const spog = shareable(spogSorted ? rows : sortRows(cols, ORDERS.spog, rows));
  return runOf(cols, spog, sortRows(cols, ORDERS.posg, sharedCopy(spog)), sortRows(cols, ORDERS.ospg, sharedCopy(spog)));
}

/** `buildRun` for rows already in SPOG order, with the two other sorts on worker threads. */
export async function buildRunParallel(cols: ColumnSet, spog: Uint32Array): Promise<Run> {
  const [posg, ospg] = await Promise.all([sortCopy(cols, ORDERS.posg, spog), sortCopy(cols, ORDERS.ospg, spog)]);
  return runOf(cols, spog, posg, ospg);
}

/** A run from its three sorted orders; the graph-first ones are their stable sorts by graph. */
function runOf(cols: ColumnSet, spogIn: Uint32Array, posgIn: Uint32Array, ospgIn: Uint32Array): Run {
  const [spog, posg, ospg] = [shareable(spogIn), shareable(posgIn), shareable(ospgIn)];
  return {
    size: spog.length,
    perms: {
      spog,
      posg,
      ospg,
      gspo: stableSortByGraph(cols.g, spog),
      gpos: stableSortByGraph(cols.g, posg),
      gosp: stableSortByGraph(cols.g, ospg),
    },
    presence: undefined,
  };
}

/** Merge two runs (disjoint row sets) into one. */
export function mergeRuns(cols: ColumnSet, a: Run, b: Run): Run {
  const perms = {} as Perms;
  for (const name of ['spog', 'posg', 'ospg'] as const) {
    perms[name] = mergePerm(cols, ORDERS[name], a.perms[name], b.perms[name]);
    const gName = GRAPH_FIRST[name];
    const aShared = a.perms[gName] === a.perms[name];
    const bShared = b.perms[gName] === b.perms[name];
    if (aShared && bShared && sameSingleGraph(cols.g, a.perms[name], b.perms[name])) {
      perms[gName] = perms[name];
    } else {
      perms[gName] = mergePerm(cols, ORDERS[gName], a.perms[gName], b.perms[gName]);
    }
  }
  return { size: a.size + b.size, perms, presence: undefined };
}

function sameSingleGraph(g: Uint32Array, a: Uint32Array, b: Uint32Array): boolean {
  if (a.length === 0 || b.length === 0) return true;
  return g[a[0]!] === g[b[0]!];
}

export function mergePerm(cols: ColumnSet, keys: readonly Position[], a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = sharedU32(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  const k0 = cols[keys[0]!];
  while (i < a.length && j < b.length) {
    const ra = a[i]!;
    const rb = b[j]!;
    const d = k0[ra]! - k0[rb]!;
    if (d < 0 || (d === 0 && compareRows(cols, keys, ra, rb) <= 0)) {
      out[k++] = ra;
      i++;
    } else {
      out[k++] = rb;
      j++;
    }
  }
  if (i < a.length) out.set(a.subarray(i), k);
  else if (j < b.length) out.set(b.subarray(j), k);
  return out;
}

/** Which subject or object ids a run holds, one bit an id, built on first use per position. */
function presenceOf(cols: ColumnSet, run: Run, pos: 's' | 'o'): Uint32Array {
  const entry = (run.presence ??= {});
  let bits = entry[pos];
  if (bits === undefined) {
    const col = cols[pos];
    const rows = run.perms.spog;
    let max = 0;
    for (let i = 0; i < rows.length; i++) {
      const v = col[rows[i]!]!;
      if (v > max) max = v;
    }
    bits = new Uint32Array((max >>> 5) + 1);
    for (let i = 0; i < rows.length; i++) {
      const v = col[rows[i]!]!;
      bits[v >>> 5]! |= 1 << (v & 31);
    }
    entry[pos] = bits;
  }
  return bits;
}

/**
 * False when the run holds no quad with the pattern's subject or object, so a match can skip its
 * binary searches. A store of several runs (one per load, until merged) pays a search per run and
 * probe otherwise, though a subject usually lives in one. Rows and their values never change in
 * a run (deletes are marked elsewhere), so the bits stay right; a deleted row only makes them
 * say "maybe".
 */
export function runMayMatch(cols: ColumnSet, run: Run, s: number | undefined, o: number | undefined): boolean {
  if (s !== undefined) {
    const bits = presenceOf(cols, run, 's');
    const w = s >>> 5;
    if (w >= bits.length || (bits[w]! & (1 << (s & 31))) === 0) return false;
  }
  if (o !== undefined) {
    const bits = presenceOf(cols, run, 'o');
    const w = o >>> 5;
    if (w >= bits.length || (bits[w]! & (1 << (o & 31))) === 0) return false;
  }
  return true;
}

/** Index range [lo, hi) of rows in `perm` whose leading positions equal `prefix`.
 *
 * This runs once per probed row of a nested-loop join, so it is written for that: the prefix's
 * columns are looked up once (not by key at every comparison), and the upper bound gallops from
 * the lower one (most ranges are short: a subject's few quads). */
export function prefixRange(
  cols: ColumnSet,
  keys: readonly Position[],
  perm: Uint32Array,
  prefix: readonly number[],
): [number, number] {
  const n = perm.length;
  const m = prefix.length;
  if (m === 0) return [0, n];
  const c0 = cols[keys[0]!];
  const c1 = m > 1 ? cols[keys[1]!] : c0;
  const c2 = m > 2 ? cols[keys[2]!] : c0;
  const c3 = m > 3 ? cols[keys[3]!] : c0;
  const v0 = prefix[0]!;
  const v1 = m > 1 ? prefix[1]! : 0;
  const v2 = m > 2 ? prefix[2]! : 0;
  const v3 = m > 3 ? prefix[3]! : 0;
  /** The row's prefix compared with the wanted one: < 0, 0 or > 0. */
  const cmp = (row: number): number => {
    let d = c0[row]! - v0;
    if (d !== 0 || m === 1) return d;
    d = c1[row]! - v1;
    if (d !== 0 || m === 2) return d;
    d = c2[row]! - v2;
    if (d !== 0 || m === 3) return d;
    return c3[row]! - v3;
  };
  const end = n;
  let lo = 0;
  let hi = n;
  // lower bound: first row >= prefix
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(perm[mid]!) < 0) lo = mid + 1;
    else hi = mid;
  }
  const start = lo;
  if (start === end || cmp(perm[start]!) !== 0) return [start, start];
  // upper bound: gallop past the last equal row, then search the last step
  let step = 1;
  let last = start; // known equal
  while (last + step < end && cmp(perm[last + step]!) === 0) {
    last += step;
    step *= 2;
  }
  lo = last + 1;
  hi = Math.min(end, last + step);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(perm[mid]!) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return [start, lo];
}

/** The row of quad (g, s, p, o) in a run that is live at commit `txId`, or -1. */
export function findLiveRow(
  cols: ColumnSet,
  deleted: Uint32Array | undefined,
  run: Run,
  g: number,
  s: number,
  p: number,
  o: number,
): number {
  const [lo, hi] = prefixRange(cols, ORDERS.spog, run.perms.spog, [s, p, o, g]);
  for (let i = lo; i < hi; i++) {
    const r = run.perms.spog[i]!;
    if (!deleted || deleted[r] === 0) return r;
  }
  return -1;
}
