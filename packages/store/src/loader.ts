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
import { LabelSyntaxError, readLabel, validateLabel } from '@ianode/abac';
import { keyToTerm, parsePatternTerms, parseQuadKeyStream, parseQuadKeys, type TermDictionary } from '@ianode/rdf';
import type { LoadOptions, LoadResult, PreparedLoad } from './api.js';
import { StoreError } from './errors.js';
import type { LabelTable } from './labels.js';
import { NO_LABEL, type TxBuffer } from './transaction.js';

/** The label vocabularies SPEC §3 accepts: ianode's and the reference's (RDF-ABAC) namespace. */
export const LABELS_NAMESPACES: readonly string[] = ['http://ndtp.co.uk/security#', 'http://telicent.io/security#'];
const NAMESPACES = LABELS_NAMESPACES;
/** The labels graph ianode writes (dumps, messages): the first namespace's `labels`. Uploads read
 * either namespace's. */
export const LABELS_GRAPH = `${LABELS_NAMESPACES[0]}labels`;
/** The HTTP header (and Kafka message header) that labels the quads of a write without a label of
 * their own. Header names are case-insensitive; Node hands them over in lower case. */
export const SECURITY_LABEL_HEADER = 'Security-Label';
const LABEL_GRAPHS = new Set(NAMESPACES.map((ns) => '<' + ns + 'labels'));

/** Whether a graph key names the labels graph (SPEC §3, either namespace): read by uploads, never
 * stored as data. */
export function isLabelsGraph(graphKey: string): boolean {
  return LABEL_GRAPHS.has(graphKey);
}
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
): Promise<Omit<LoadResult, 'txId' | 'outcome'>> {
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
  for (const a of labelAssignments(entries, prefixes, options.baseIRI, options.legacyLabels === true)) {
    tx.setLabelIds(dict.intern(a.g), dict.intern(a.s), dict.intern(a.p), dict.intern(a.o), labels.intern(a.label));
  }
  return { quads, triples, labels: entries.size };
}

/**
 * Parse and check an upload without touching a store (no lock, no dictionary): syntax, the
 * `Security-Label` (LabelSyntaxError) and every labels-graph entry (StoreError LABELS_GRAPH) fail
 * here. Terms are kept once each in a local table, quads as local ids.
 */
export async function prepareLoad(input: string | AsyncIterable<string | Uint8Array>, options: LoadOptions): Promise<PreparedLoad> {
  if (options.label !== undefined) validateLabel(options.label.trim());
  const ids = new Map<string, number>([['', 0]]);
  const terms: string[] = [''];
  const local = (key: string): number => {
    let id = ids.get(key);
    if (id === undefined) {
      id = terms.length;
      // A fresh copy: a parser's key may be a slice that keeps a whole input chunk alive.
      const copy = (' ' + key).slice(1);
      terms.push(copy);
      ids.set(copy, id);
    }
    return id;
  };
  const entries = new Map<string, LabelEntry>();
  let rows = new Uint32Array(4 * 1024);
  let quads = 0;
  let triples = 0;
  const sink = (s: string, p: string, o: string, g: string): void => {
    if (g !== '' && LABEL_GRAPHS.has(g)) {
      collectEntry(entries, s, p, o);
      return;
    }
    if (rows.length < 4 * (quads + 1)) {
      const grown = new Uint32Array(rows.length * 2);
      grown.set(rows);
      rows = grown;
    }
    const at = 4 * quads;
    rows[at] = g === '' ? 0 : local(g);
    rows[at + 1] = local(s);
    rows[at + 2] = local(p);
    rows[at + 3] = local(o);
    quads++;
    if (g === '') triples++;
  };
  const parseOptions = { format: options.format, baseIRI: options.baseIRI };
  const { prefixes } =
    typeof input === 'string' ? parseQuadKeys(input, parseOptions, sink) : await parseQuadKeyStream(input, parseOptions, sink);
  const assignments = labelAssignments(entries, prefixes, options.baseIRI, options.legacyLabels === true).map((a) => ({
    g: local(a.g), s: local(a.s), p: local(a.p), o: local(a.o), label: a.label,
  }));
  return { kind: 'prepared-load', terms, rows: rows.subarray(0, 4 * quads), label: options.label, assignments, quads, triples, labels: entries.size };
}

/** Stage a prepared load in a transaction (caller holds the writer lock). */
export function loadPrepared(tx: TxBuffer, dict: TermDictionary, labels: LabelTable, prepared: PreparedLoad): Omit<LoadResult, 'txId' | 'outcome'> {
  if (prepared.kind !== 'prepared-load') throw new TypeError('load: not a PreparedLoad (build it with prepareLoad)');
  const ids = new Uint32Array(prepared.terms.length);
  for (let i = 1; i < ids.length; i++) ids[i] = dict.intern(prepared.terms[i]!);
  const headerLabel = prepared.label === undefined ? NO_LABEL : labels.intern(prepared.label);
  const rows = prepared.rows;
  tx.cols.reserve(rows.length / 4);
  for (let i = 0; i < rows.length; i += 4) tx.addIds(ids[rows[i]!]!, ids[rows[i + 1]!]!, ids[rows[i + 2]!]!, ids[rows[i + 3]!]!, headerLabel);
  for (const a of prepared.assignments) tx.setLabelIds(ids[a.g]!, ids[a.s]!, ids[a.p]!, ids[a.o]!, labels.intern(a.label));
  return { quads: prepared.quads, triples: prepared.triples, labels: prepared.labels };
}

/** The labels graph's entries as checked label assignments (quad keys, '' = default graph). */
function labelAssignments(
  entries: Map<string, LabelEntry>,
  prefixes: Record<string, string>,
  baseIRI: string | undefined,
  legacy: boolean,
): { g: string; s: string; p: string; o: string; label: string }[] {
  const assigned = new Map<string, string>();
  const out: { g: string; s: string; p: string; o: string; label: string }[] = [];
  for (const entry of entries.values()) {
    const [patternText, labelText] = checkEntry(entry);
    let keys: string[];
    try {
      keys = parsePatternTerms(patternText, prefixes, baseIRI);
    } catch (err) {
      throw new StoreError('LABELS_GRAPH', `labels graph: bad pattern '${patternText}': ${(err as Error).message}`, { cause: err });
    }
    if (keys.length !== 3 && keys.length !== 4) {
      throw new StoreError('LABELS_GRAPH', `labels graph: pattern '${patternText}' must have 3 or 4 terms, found ${keys.length}`);
    }
    // Graph first (SPEC §3, RDF-ABAC 3): `g s p o`; three terms are a default-graph triple.
    const [g, s, p, o] = keys.length === 4 ? keys : ['', ...keys];
    const id = `${g}\u0000${s}\u0000${p}\u0000${o}`;
    let label: string;
    try {
      label = readLabel(labelText, { legacy });
    } catch (err) {
      if (err instanceof LabelSyntaxError) {
        throw new StoreError('LABELS_GRAPH', `labels graph: malformed label for pattern '${patternText}': ${err.message}`, { cause: err });
      }
      throw err;
    }
    const previous = assigned.get(id);
    if (previous !== undefined && previous !== label) {
      throw new StoreError('LABELS_GRAPH', `labels graph: pattern '${patternText}' has two labels ('${previous}' and '${labelText}')`);
    }
    assigned.set(id, label);
    out.push({ g: g!, s: s!, p: p!, o: o!, label });
  }
  return out;
}

function collectEntry(entries: Map<string, LabelEntry>, s: string, p: string, o: string): void {
  const isPattern = PATTERN_PREDICATES.has(p);
  const isLabel = LABEL_PREDICATES.has(p);
  if (!isPattern && !isLabel) return; // other statements about an entry (e.g. rdf:type) are ignored
  if (o.charCodeAt(0) !== 34 /* " */) {
    throw new StoreError('LABELS_GRAPH', `labels graph: authz:${isPattern ? 'pattern' : 'label'} must be a string literal`);
  }
  const literal = keyToTerm(o);
  let text = literal.value;
  if (isLabel && literal.termType === 'Literal' && literal.datatype.value === XSD_BASE64) {
    text = decodeBase64Label(text, s);
  } else if (literal.termType === 'Literal' && literal.datatype.value !== XSD_STRING && literal.datatype.value !== RDF_LANG_STRING) {
    throw new StoreError('LABELS_GRAPH', `labels graph: authz:${isPattern ? 'pattern' : 'label'} must be a string literal${isLabel ? ' or an xsd:base64Binary literal' : ''}, found datatype <${literal.datatype.value}>`);
  }
  let entry = entries.get(s);
  if (!entry) {
    entry = { patterns: [], labels: [] };
    entries.set(s, entry);
  }
  (isPattern ? entry.patterns : entry.labels).push(text);
}

const XSD_BASE64 = 'http://www.w3.org/2001/XMLSchema#base64Binary';
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const RDF_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** An `xsd:base64Binary` label (RDF-ABAC 3): the UTF-8 text of the decoded bytes. Node's decoder
 * skips bad characters silently, so the lexical form is checked first (white space dropped, as
 * xsd:base64Binary allows). */
function decodeBase64Label(lexical: string, entryKey: string): string {
  const compact = lexical.replace(/\s+/g, '');
  if (BASE64.test(compact)) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(compact, 'base64'));
    } catch {
      throw new StoreError('LABELS_GRAPH', `labels graph: entry ${entryKey}: authz:label "${lexical}"^^xsd:base64Binary does not decode to UTF-8 text`);
    }
  }
  throw new StoreError('LABELS_GRAPH', `labels graph: entry ${entryKey}: authz:label "${lexical}"^^xsd:base64Binary is not valid base64`);
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
