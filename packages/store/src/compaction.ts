/**
 * Compaction: new row columns holding only the live rows, and runs over them.
 *
 * Deleting a quad only marks its row (snapshots taken earlier still read it), so rows of deleted
 * quads stay in the columns and in the runs' permutations until compaction drops them. Nothing
 * is re-sorted: live rows keep their relative order (row r becomes the number of live rows before
 * r), so every permutation stays sorted after dropping its deleted rows and renumbering the rest —
 * a linear pass per order instead of a sort. Runs that shrank are then merged as a commit would
 * merge them. The old columns and runs are not touched: snapshots that hold them stay valid.
 */
import { RowColumns } from './columns.js';
import { GRAPH_FIRST, type OrderName } from './orders.js';
import { mergeRuns, type Perms, type Run } from './run.js';
import { sharedU32 } from './shared.js';

export interface Compacted {
  cols: RowColumns;
  runs: Run[];
}

/** The live rows of the first `rowCount` rows, and the runs over them. A row is live when a run
 * holds it and it is not deleted: rows a transaction appended but did not use (it added a quad
 * that was already stored) are in no run and go too. */
export function compactRows(cols: RowColumns, runs: readonly Run[], rowCount: number): Compacted {
  const deleted = cols.deleted;
  const keep = new Uint8Array(rowCount);
  for (const run of runs) {
    const rows = run.perms.spog;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      if (deleted === undefined || deleted[r] === 0) keep[r] = 1;
    }
  }
  const remap = new Uint32Array(rowCount);
  let live = 0;
  for (let r = 0; r < rowCount; r++) if (keep[r] === 1) remap[r] = live++;
  const out = new RowColumns(Math.max(1024, live));
  for (let r = 0; r < rowCount; r++) {
    if (keep[r] === 1) out.push(cols.g[r]!, cols.s[r]!, cols.p[r]!, cols.o[r]!, cols.label[r]!);
  }
  const stack: Run[] = [];
  for (const run of runs) {
    const kept = remapRun(run, keep, remap);
    if (kept.size === 0) continue;
    stack.push(kept);
    while (stack.length >= 2 && stack[stack.length - 2]!.size <= 2 * stack[stack.length - 1]!.size) {
      const b = stack.pop()!;
      const a = stack.pop()!;
      stack.push(mergeRuns(out, a, b));
    }
  }
  return { cols: out, runs: stack };
}

/** A run without its deleted rows, renumbered. Graph-first orders that share the array of their
 * graph-less order (a run of one graph) keep sharing it. */
function remapRun(run: Run, keep: Uint8Array, remap: Uint32Array): Run {
  const perms = {} as Perms;
  for (const name of ['spog', 'posg', 'ospg'] as const) {
    perms[name] = remapPerm(run.perms[name], keep, remap);
    const gName: OrderName = GRAPH_FIRST[name];
    perms[gName] = run.perms[gName] === run.perms[name] ? perms[name] : remapPerm(run.perms[gName], keep, remap);
  }
  return { size: perms.spog.length, perms, presence: undefined };
}

function remapPerm(perm: Uint32Array, keep: Uint8Array, remap: Uint32Array): Uint32Array {
  let n = 0;
  for (let i = 0; i < perm.length; i++) n += keep[perm[i]!]!;
  const out = sharedU32(n);
  let k = 0;
  for (let i = 0; i < perm.length; i++) {
    const r = perm[i]!;
    if (keep[r] === 1) out[k++] = remap[r]!;
  }
  return out;
}
