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
import { freshBlankNodePrefix, keyToNTriples, keyToTerm, parsePatternTerms, parseQuadKeyStream, parseQuadKeys, type TermDictionary } from '@ianode/rdf';
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
  const blankNodePrefix = freshBlankNodePrefix();
  // Label assignments as dictionary ids (the pattern's terms are interned as the entry is read).
  const assigned = new Assignments();
  const entries = new LabelEntries(blankNodePrefix, options.baseIRI, options.legacyLabels === true, (keys, label) => {
    assigned.push(dict.intern(keys[0]), dict.intern(keys[1]), dict.intern(keys[2]), dict.intern(keys[3]), labels.intern(label));
  });
  let quads = 0;
  let triples = 0;
  let lastS = '';
  let lastSid = -1;
  const sink = (s: string, p: string, o: string, g: string): void => {
    if (g !== '' && LABEL_GRAPHS.has(g)) {
      entries.statement(s, p, o);
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
  const parseOptions = { format: options.format, baseIRI: options.baseIRI, blankNodePrefix };
  const { prefixes } =
    typeof input === 'string' ? parseQuadKeys(input, parseOptions, sink) : await parseQuadKeyStream(input, parseOptions, sink);
  entries.end(prefixes);
  // Applied after the data (the labels graph beats the Security-Label, wherever it stands).
  assigned.check((id) => dict.key(id), (id) => labels.text(id));
  assigned.apply((g, s, p, o, l) => tx.setLabelIds(g, s, p, o, l));
  return { quads, triples, labels: entries.count };
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
  const labelTexts: string[] = [];
  const labelIds = new Map<string, number>();
  const labelId = (text: string): number => {
    let id = labelIds.get(text);
    if (id === undefined) {
      id = labelTexts.length;
      labelTexts.push(text);
      labelIds.set(text, id);
    }
    return id;
  };
  const blankNodePrefix = freshBlankNodePrefix();
  const assigned = new Assignments();
  const entries = new LabelEntries(blankNodePrefix, options.baseIRI, options.legacyLabels === true, (keys, label) => {
    assigned.push(local(keys[0]), local(keys[1]), local(keys[2]), local(keys[3]), labelId(label));
  });
  let rows = new Uint32Array(4 * 1024);
  let quads = 0;
  let triples = 0;
  const sink = (s: string, p: string, o: string, g: string): void => {
    if (g !== '' && LABEL_GRAPHS.has(g)) {
      entries.statement(s, p, o);
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
  const parseOptions = { format: options.format, baseIRI: options.baseIRI, blankNodePrefix };
  const { prefixes } =
    typeof input === 'string' ? parseQuadKeys(input, parseOptions, sink) : await parseQuadKeyStream(input, parseOptions, sink);
  entries.end(prefixes);
  assigned.check((id) => terms[id]!, (id) => labelTexts[id]!);
  const assignments: PreparedLoad['assignments'][number][] = [];
  assigned.apply((g, s, p, o, l) => assignments.push({ g, s, p, o, label: labelTexts[l]! }));
  return { kind: 'prepared-load', terms, rows: rows.subarray(0, 4 * quads), label: options.label, assignments, quads, triples, labels: entries.count };
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

/**
 * The labels graph read as it streams (docs/operations.md "Restore"): an entry (a subject with one
 * authz:pattern and one authz:label) is checked and handed on as soon as it is complete, so a
 * dump's million entries are never held as text. Only open entries are kept, and which subjects
 * are complete: a bit per anonymous node (`[ … ]`, as a dump writes them; named `prefix-n` by the
 * parser, turtle-parser.ts), a set of the others (labelled blank nodes and IRIs), so a later
 * statement about a complete entry (a second pattern or label) is still refused. A pattern with a
 * prefixed name waits for the end of the document, whose prefixes it is read with (as before).
 */
class LabelEntries {
  count = 0;
  private readonly open = new Map<string, LabelEntry>();
  private readonly doneNamed = new Set<string>();
  private doneAnonymous = new Uint8Array(1024);
  private readonly anonymousPrefix: string;
  /** Entries whose pattern needs the document's prefixes: resolved at the end. */
  private readonly deferred: [string, string][] = [];

  constructor(
    blankNodePrefix: string,
    private readonly baseIRI: string | undefined,
    private readonly legacy: boolean,
    private readonly assign: (keys: [string, string, string, string], label: string) => void,
  ) {
    this.anonymousPrefix = `_:${blankNodePrefix}-`;
  }

  statement(s: string, p: string, o: string): void {
    const isPattern = PATTERN_PREDICATES.has(p);
    const isLabel = LABEL_PREDICATES.has(p);
    if (!isPattern && !isLabel) return; // other statements about an entry (e.g. rdf:type) are ignored
    const text = entryText(o, isPattern, isLabel, s);
    if (this.isDone(s)) {
      throw new StoreError('LABELS_GRAPH', isPattern
        ? 'labels graph: an entry needs exactly one authz:pattern, found more than one'
        : 'labels graph: one label per pattern: found more than one authz:label for an entry');
    }
    let entry = this.open.get(s);
    if (!entry) {
      entry = { patterns: [], labels: [] };
      this.open.set((' ' + s).slice(1), entry);
    }
    (isPattern ? entry.patterns : entry.labels).push(text);
    if (entry.patterns.length > 1 || entry.labels.length > 1) checkEntry(entry); // throws
    if (entry.patterns.length === 1 && entry.labels.length === 1) {
      this.open.delete(s);
      this.markDone(s);
      this.resolve(entry.patterns[0]!, entry.labels[0]!, false);
    }
  }

  /** At the end of the document: an open entry is incomplete; deferred patterns are read. */
  end(prefixes: Record<string, string>): void {
    for (const entry of this.open.values()) checkEntry(entry); // throws: one of the two is missing
    for (const [pattern, label] of this.deferred) this.resolve(pattern, label, true, prefixes);
    this.deferred.length = 0;
  }

  private resolve(patternText: string, labelText: string, final: boolean, prefixes: Record<string, string> = {}): void {
    let keys: string[];
    try {
      keys = parsePatternTerms(patternText, prefixes, this.baseIRI);
    } catch (err) {
      if (!final) {
        // Perhaps a prefixed name: read it with the document's prefixes at the end.
        this.deferred.push([patternText, labelText]);
        this.count++;
        return;
      }
      throw new StoreError('LABELS_GRAPH', `labels graph: bad pattern '${patternText}': ${(err as Error).message}`, { cause: err });
    }
    if (keys.length !== 3 && keys.length !== 4) {
      throw new StoreError('LABELS_GRAPH', `labels graph: pattern '${patternText}' must have 3 or 4 terms, found ${keys.length}`);
    }
    let label: string;
    try {
      label = readLabel(labelText, { legacy: this.legacy });
    } catch (err) {
      if (err instanceof LabelSyntaxError) {
        throw new StoreError('LABELS_GRAPH', `labels graph: malformed label for pattern '${patternText}': ${err.message}`, { cause: err });
      }
      throw err;
    }
    if (!final) this.count++;
    // Graph first (SPEC §3, RDF-ABAC 3): `g s p o`; three terms are a default-graph triple.
    this.assign((keys.length === 4 ? keys : ['', ...keys]) as [string, string, string, string], label);
  }

  private anonymousIndex(s: string): number {
    if (!s.startsWith(this.anonymousPrefix)) return -1;
    const n = Number(s.slice(this.anonymousPrefix.length));
    return Number.isInteger(n) && n >= 0 ? n : -1;
  }

  private isDone(s: string): boolean {
    const n = this.anonymousIndex(s);
    if (n < 0) return this.doneNamed.has(s);
    return n >> 3 < this.doneAnonymous.length && (this.doneAnonymous[n >> 3]! & (1 << (n & 7))) !== 0;
  }

  private markDone(s: string): void {
    const n = this.anonymousIndex(s);
    if (n < 0) {
      this.doneNamed.add((' ' + s).slice(1));
      return;
    }
    if (n >> 3 >= this.doneAnonymous.length) {
      const grown = new Uint8Array(Math.max(this.doneAnonymous.length * 2, (n >> 3) + 1));
      grown.set(this.doneAnonymous);
      this.doneAnonymous = grown;
    }
    this.doneAnonymous[n >> 3]! |= 1 << (n & 7);
  }
}

/**
 * Label assignments as id columns (g s p o label; 20 bytes each), in document order. `check`
 * refuses a quad given two different labels (RDF-ABAC's "one label per pattern"), by sorting
 * positions by quad, so no map of pattern texts is built.
 */
class Assignments {
  private cols = new Uint32Array(5 * 1024);
  length = 0;

  push(g: number, s: number, p: number, o: number, label: number): void {
    if (this.cols.length < 5 * (this.length + 1)) {
      const grown = new Uint32Array(this.cols.length * 2);
      grown.set(this.cols);
      this.cols = grown;
    }
    const at = 5 * this.length++;
    const c = this.cols;
    c[at] = g;
    c[at + 1] = s;
    c[at + 2] = p;
    c[at + 3] = o;
    c[at + 4] = label;
  }

  check(termKey: (id: number) => string, labelText: (id: number) => string): void {
    const n = this.length;
    if (n < 2) return;
    const c = this.cols;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    const cmp = (a: number, b: number): number => {
      const x = 5 * a;
      const y = 5 * b;
      return c[x + 1]! - c[y + 1]! || c[x + 2]! - c[y + 2]! || c[x + 3]! - c[y + 3]! || c[x]! - c[y]! || a - b;
    };
    order.sort(cmp);
    for (let k = 1; k < n; k++) {
      const a = 5 * order[k - 1]!;
      const b = 5 * order[k]!;
      if (c[a] === c[b] && c[a + 1] === c[b + 1] && c[a + 2] === c[b + 2] && c[a + 3] === c[b + 3] && c[a + 4] !== c[b + 4]) {
        const keys = c[a] === 0 ? [c[a + 1]!, c[a + 2]!, c[a + 3]!] : [c[a]!, c[a + 1]!, c[a + 2]!, c[a + 3]!];
        const patternText = keys.map((id) => keyToNTriples(termKey(id))).join(' ');
        throw new StoreError('LABELS_GRAPH', `labels graph: pattern '${patternText}' has two labels ('${labelText(c[a + 4]!)}' and '${labelText(c[b + 4]!)}')`);
      }
    }
  }

  apply(to: (g: number, s: number, p: number, o: number, label: number) => void): void {
    const c = this.cols;
    for (let i = 0; i < 5 * this.length; i += 5) to(c[i]!, c[i + 1]!, c[i + 2]!, c[i + 3]!, c[i + 4]!);
  }
}

/** The text of an authz:pattern or authz:label object (a string literal, or base64 for a label). */
function entryText(o: string, isPattern: boolean, isLabel: boolean, s: string): string {
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
  return text;
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
