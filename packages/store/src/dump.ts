/**
 * The dump of a store's labelled state (docs/operations.md "Dump format"), shared by the offline
 * `ianode dump` (packages/cli) and the graph server's online backups (graph-server backup.ts): the
 * writer of the format whose reader is `load` (loader.ts reads the labels graph back).
 *
 * TriG. The data as it is stored, then the labels graph <http://ndtp.co.uk/security#labels> with
 * one entry per quad that has a label of its own and per pending label, its pattern graph-first
 * (`g s p o`, three terms for the default graph) as RDF-ABAC reads it. Quads stored without a
 * label of their own get no entry, so they stay label-less (the dataset's default label applies,
 * whatever it is where the dump is loaded).
 *
 * The chunks come from ONE `labelledQuads()` state (one commit): committed rows are never changed
 * in place (a delete marks the row with its commit, a relabel adds a row, compaction builds new
 * columns), so the dump may be streamed while writes go on and still equals that one commit.
 */
import { keyToNTriples } from '@ianode/rdf';
import type { KeyQuad, QuadStore } from './api.js';
import { LABELS_GRAPH, LABELS_NAMESPACES } from './loader.js';

const AUTHZ = LABELS_NAMESPACES[0]!;

/** A term or pattern that the labels graph cannot name: RDF-ABAC patterns hold IRIs and literals. */
const hasBlank = (q: KeyQuad) => q.s.startsWith('_:') || q.o.startsWith('_:') || q.g.startsWith('_:');

/** A string literal for TriG (N-Triples escapes). */
const literal = (text: string) => keyToNTriples(`"${text}"`);

/** The pattern of a quad as RDF-ABAC reads it: `g s p o` for a named graph, `s p o` for the default. */
function pattern(q: KeyQuad): string {
  const spo = `${keyToNTriples(q.s)} ${keyToNTriples(q.p)} ${keyToNTriples(q.o)}`;
  return q.g === '' ? spo : `${keyToNTriples(q.g)} ${spo}`;
}

/** What a dump holds; filled in by `dumpChunks` (`labelled` once the data pass has ended). */
export interface DumpFigures {
  quads: number;
  labelled: number;
  pending: number;
  txId: number;
}

/** The dump of `store`'s current state as TriG text chunks. Throws before the first chunk when a
 * labelled quad has a blank node (no labels-graph pattern can name it; docs/operations.md).
 * `onQuad(n)`: data quads written so far (every 4096 quads and at the end). */
export function dumpChunks(store: Pick<QuadStore, 'labelledQuads'>, figures: DumpFigures, onQuad: (n: number) => void = () => undefined): Generator<string> {
  const state = store.labelledQuads();
  figures.quads = state.quads;
  figures.txId = state.txId;
  figures.pending = state.pending.length;
  const unnameable = state.pending.filter(hasBlank).length;
  let blankLabelled = 0;
  for (const q of state.rows) if (q.label !== undefined && hasBlank(q)) blankLabelled++;
  if (blankLabelled + unnameable > 0) {
    throw new Error(
      `${blankLabelled + unnameable} quads with a label of their own (or pending labels) have a blank node, which the labels graph cannot name ` +
        '(RDF-ABAC patterns hold IRIs and literals): nothing was written. Give those nodes IRIs, or keep a copy of the stopped folder instead (docs/operations.md)',
    );
  }
  const entry = (q: KeyQuad, label: string) => `[ <${AUTHZ}pattern> ${literal(pattern(q))} ; <${AUTHZ}label> ${literal(label)} ] .\n`;
  return (function* () {
    let out = `# ianode dump: transaction ${state.txId}, ${state.quads} quads, ${state.pending.length} pending labels\n` +
      `# TriG; the labels graph <${LABELS_GRAPH}> holds the labels (docs/operations.md "Dump format")\n`;
    // Pass 1: the data, graph by graph. Pass 2: the labels graph (the rows again, so no entry is
    // held in memory: a dump of any size streams).
    let graph = '';
    let n = 0;
    let labelled = 0;
    for (const q of state.rows) {
      if (q.g !== graph) {
        if (graph !== '') out += '}\n';
        graph = q.g;
        out += `${keyToNTriples(q.g)} {\n`;
      }
      out += `${keyToNTriples(q.s)} ${keyToNTriples(q.p)} ${keyToNTriples(q.o)} .\n`;
      if (q.label !== undefined) labelled++;
      if ((++n & 0xfff) === 0) {
        onQuad(n);
        yield out;
        out = '';
      }
    }
    if (graph !== '') out += '}\n';
    figures.labelled = labelled;
    if (labelled + state.pending.length > 0) {
      out += `<${LABELS_GRAPH}> {\n`;
      let k = 0;
      for (const q of state.rows) {
        if (q.label === undefined) continue;
        out += entry(q, q.label);
        if ((++k & 0xfff) === 0) {
          yield out;
          out = '';
        }
      }
      for (const p of state.pending) out += entry(p, p.label);
      out += '}\n';
    }
    onQuad(n);
    yield out;
  })();
}
