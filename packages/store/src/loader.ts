/**
 * Labelled loading (SPEC §3): parse an upload and stage it in a transaction.
 *
 * Labels, weakest first: the dataset default (label id 0, resolved at read time), the request's
 * `Security-Label` (every quad of the upload), and entries of the labels graph inside the upload
 * (`[ authz:pattern '<s> <p> <o>' ; authz:label "<expr>" ]` in graph authz:labels, both the
 * ndtp.co.uk and telicent.io namespaces). Entries are applied after the data, as label assignments:
 * to a quad of this upload, to a stored quad (re-labelling replaces), or kept pending until the
 * quad arrives. The labels graph itself is never stored as data. Any malformed label or entry
 * throws, and the transaction stores nothing.
 */
import { LabelSyntaxError } from '@ianode/abac';
import { keyToTerm, parsePatternTerms, parseQuadKeyStream, parseQuadKeys, type TermDictionary } from '@ianode/rdf';
import type { LoadOptions, LoadResult } from './api.js';
import { StoreError } from './errors.js';
import type { LabelTable } from './labels.js';
import { NO_LABEL, type TxBuffer } from './transaction.js';

const NAMESPACES = ['http://ndtp.co.uk/security#', 'http://telicent.io/security#'];
const LABEL_GRAPHS = new Set(NAMESPACES.map((ns) => '<' + ns + 'labels'));
const PATTERN_PREDICATES = new Set(NAMESPACES.map((ns) => '<' + ns + 'pattern'));
const LABEL_PREDICATES = new Set(NAMESPACES.map((ns) => '<' + ns + 'label'));

interface LabelEntry {
  patterns: string[];
  labels: string[];
}

export async function loadRdf(
  tx: TxBuffer,
  dict: TermDictionary,
  labels: LabelTable,
  input: string | AsyncIterable<string | Uint8Array>,
  options: LoadOptions,
  onProgress: () => void = () => undefined,
): Promise<Omit<LoadResult, 'txId'>> {
  const headerLabel = options.label === undefined ? NO_LABEL : labels.intern(options.label);
  const entries = new Map<string, LabelEntry>();
  let quads = 0;
  let triples = 0;
  let lastS = '';
  let lastSid = -1;
  const sink = (s: string, p: string, o: string, g: string): void => {
    if (g !== '' && LABEL_GRAPHS.has(g)) {
      collectEntry(entries, s, p, o);
      return;
    }
    let sid: number;
    if (s === lastS && lastSid >= 0) sid = lastSid;
    else {
      sid = dict.intern(s);
      lastS = s;
      lastSid = sid;
    }
    tx.addIds(g === '' ? 0 : dict.intern(g), sid, dict.intern(p), dict.intern(o), headerLabel);
    quads++;
    if (g === '') triples++;
    if ((quads & 0xffff) === 0) onProgress();
  };
  const parseOptions = { format: options.format, baseIRI: options.baseIRI };
  const { prefixes } =
    typeof input === 'string' ? parseQuadKeys(input, parseOptions, sink) : await parseQuadKeyStream(input, parseOptions, sink);
  const assigned = new Map<string, string>();
  for (const entry of entries.values()) {
    const [patternText, labelText] = checkEntry(entry);
    let keys: string[];
    try {
      keys = parsePatternTerms(patternText, prefixes, options.baseIRI);
    } catch (err) {
      throw new StoreError('LABELS_GRAPH', `labels graph: bad pattern '${patternText}': ${(err as Error).message}`, { cause: err });
    }
    if (keys.length !== 3 && keys.length !== 4) {
      throw new StoreError('LABELS_GRAPH', `labels graph: pattern '${patternText}' must have 3 or 4 terms, found ${keys.length}`);
    }
    const [g, s, p, o] = keys.length === 4 ? keys : ['', ...keys];
    const id = `${g}\u0000${s}\u0000${p}\u0000${o}`;
    const previous = assigned.get(id);
    if (previous !== undefined && previous !== labelText.trim()) {
      throw new StoreError('LABELS_GRAPH', `labels graph: pattern '${patternText}' has two labels ('${previous}' and '${labelText}')`);
    }
    assigned.set(id, labelText.trim());
    let labelId: number;
    try {
      labelId = labels.intern(labelText);
    } catch (err) {
      if (err instanceof LabelSyntaxError) {
        throw new StoreError('LABELS_GRAPH', `labels graph: malformed label for pattern '${patternText}': ${err.message}`, { cause: err });
      }
      throw err;
    }
    tx.setLabelIds(dict.intern(g!), dict.intern(s!), dict.intern(p!), dict.intern(o!), labelId);
  }
  return { quads, triples, labels: entries.size };
}

function collectEntry(entries: Map<string, LabelEntry>, s: string, p: string, o: string): void {
  const isPattern = PATTERN_PREDICATES.has(p);
  const isLabel = LABEL_PREDICATES.has(p);
  if (!isPattern && !isLabel) return; // other statements about an entry (e.g. rdf:type) are ignored
  if (o.charCodeAt(0) !== 34 /* " */) {
    throw new StoreError('LABELS_GRAPH', `labels graph: authz:${isPattern ? 'pattern' : 'label'} must be a string literal`);
  }
  let entry = entries.get(s);
  if (!entry) {
    entry = { patterns: [], labels: [] };
    entries.set(s, entry);
  }
  (isPattern ? entry.patterns : entry.labels).push(keyToTerm(o).value);
}

function checkEntry(entry: LabelEntry): [string, string] {
  const what = entry.patterns[0] !== undefined ? `for pattern '${entry.patterns[0]}'` : '';
  if (entry.patterns.length !== 1) {
    throw new StoreError('LABELS_GRAPH', `labels graph: an entry needs exactly one authz:pattern, found ${entry.patterns.length} ${what}`.trim());
  }
  if (entry.labels.length !== 1) {
    throw new StoreError('LABELS_GRAPH', `labels graph: one label per pattern: found ${entry.labels.length} ${what}`.trim());
  }
  return [entry.patterns[0]!, entry.labels[0]!];
}
