/**
 * A run: a set of rows kept in all six sort orders (row-id permutations). The store is a stack of
 * runs of geometrically decreasing size (a log-structured merge): each commit adds a small run and
 * runs of similar size are merged, so a commit costs time in proportion to its own size and every
 * row is merged O(log n) times. A match scans one binary-searched range per run.
 */
import { ORDERS, GRAPH_FIRST, type OrderName, type Position } from './orders.js';
import { compareRows, sortRows, stableSortByGraph, type ColumnSet } from './radix-sort.js';
import { sortCopy } from './parallel-sort.js';

export type Perms = Record<OrderName, Uint32Array>;

export interface Run {
  readonly size: number;
  readonly perms: Perms;
}

/** Build a run from row ids (any order). Pass `spogSorted` when they are already in SPOG order. */
export function buildRun(cols: ColumnSet, rows: Uint32Array, spogSorted = false): Run {
  const spog = spogSorted ? rows : sortRows(cols, ORDERS.spog, rows);
  const posg = sortRows(cols, ORDERS.posg, new Uint32Array(spog));
  const ospg = sortRows(cols, ORDERS.ospg, new Uint32Array(spog));
  return {
    size: rows.length,
    perms: {
      spog,
      posg,
      ospg,
      gspo: stableSortByGraph(cols.g, spog),
      gpos: stableSortByGraph(cols.g, posg),
      gosp: stableSortByGraph(cols.g, ospg),
    },
  };
}

/** `buildRun` for rows already in SPOG order, with the two other sorts on worker threads. */
export async function buildRunParallel(cols: ColumnSet, spog: Uint32Array): Promise<Run> {
  const [posg, ospg] = await Promise.all([sortCopy(cols, ORDERS.posg, spog), sortCopy(cols, ORDERS.ospg, spog)]);
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
  return { size: a.size + b.size, perms };
}

function sameSingleGraph(g: Uint32Array, a: Uint32Array, b: Uint32Array): boolean {
  if (a.length === 0 || b.length === 0) return true;
  return g[a[0]!] === g[b[0]!];
}

export function mergePerm(cols: ColumnSet, keys: readonly Position[], a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
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

/** Index range [lo, hi) of rows in `perm` whose leading positions equal `prefix`. */
export function prefixRange(
  cols: ColumnSet,
  keys: readonly Position[],
  perm: Uint32Array,
  prefix: readonly number[],
): [number, number] {
  const n = perm.length;
  if (prefix.length === 0) return [0, n];
  // lower bound: first row >= prefix
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePrefix(cols, keys, perm[mid]!, prefix) < 0) lo = mid + 1;
    else hi = mid;
  }
  const start = lo;
  hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePrefix(cols, keys, perm[mid]!, prefix) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return [start, lo];
}

function comparePrefix(cols: ColumnSet, keys: readonly Position[], row: number, prefix: readonly number[]): number {
  for (let i = 0; i < prefix.length; i++) {
    const d = cols[keys[i]!][row]! - prefix[i]!;
    if (d !== 0) return d;
  }
  return 0;
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
