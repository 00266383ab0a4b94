/**
 * RDF Patch applied through the write boundary (./writes.ts; docs/graph-server.md, "RDF Patch"),
 * for `POST /{ds}/patch` (./routes/patch.ts) and for the Kafka connector, which calls
 * `applyPatch` inside its own store transaction.
 *
 * The whole patch is applied in the ONE transaction it is given: its TX..TC blocks in order, the
 * rows of TX..TA blocks already dropped by the parser (@ianode/rdf `parsePatch`). `A` adds the quad
 * with the given label (the request's `Security-Label`, else undefined: the quad keeps its label,
 * or gets the dataset default, exactly as uploads and SPARQL Update); `D` deletes it. Run inside
 * the writer's transaction (`ctx.writer.transaction`), the store's label rule holds: a quad the
 * writer cannot see is left as it is, whatever the patch says. Headers (`H`) are not applied, and
 * no labels graph is read (the reference's patch apply reads none either): a patch row naming the
 * labels graph is refused, as Graph Store writes refuse it, so labels never arrive as plain data.
 */
import type { ParsedPatch } from '@ianode/rdf';
import { isLabelsGraph, type WriteTransaction } from '@ianode/store';
import { GraphServerError } from './errors.js';

/** What a patch holds, for write replies: change rows applied, committed and aborted blocks. */
export interface PatchCounts {
  rows: number;
  transactions: number;
  aborted: number;
}

/** Refuses a patch that writes into a labels graph (400), before any transaction starts. */
export function checkPatch(patch: ParsedPatch): void {
  for (const change of patch.changes) {
    if (isLabelsGraph(change.g)) {
      throw new GraphServerError(
        'BAD_REQUEST',
        `line ${change.line}: a patch row names the labels graph <${change.g.slice(1)}>; RDF Patch does not read labels from a labels graph (label a patch with its Security-Label), so rows in it are refused; nothing was stored`,
        { position: { line: change.line, column: 1 } },
      );
    }
  }
}

/**
 * Applies every change of `patch` to `tx`, in order: `A` rows with `label` (undefined = the
 * quad's current label or the dataset default), `D` rows deleted. Checks the patch first
 * (`checkPatch`; a throw rolls the caller's transaction back). Returns the patch's counts.
 */
export function applyPatch(tx: WriteTransaction, patch: ParsedPatch, label: string | undefined): PatchCounts {
  checkPatch(patch);
  for (const change of patch.changes) {
    const quad = { s: change.s, p: change.p, o: change.o, g: change.g };
    if (change.op === 'add') tx.add(quad, label);
    else tx.delete(quad);
  }
  return { rows: patch.rows, transactions: patch.transactions, aborted: patch.aborted };
}
