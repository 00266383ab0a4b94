/**
 * The public shape of the labelled quad store. See docs/ARCHITECTURE.md ("Store").
 */
import type { Dataset, RdfFormat } from '@ianode/rdf';
import type { OpenLogFile } from './persistence.js';
import type { SharedStoreState } from './shared-state.js';

export type { LogFile, OpenLogFile } from './persistence.js';

/** Where the store reports what it did (at open: what it read, dropped or fell back from). */
export type StoreLog = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

export interface StoreOptions {
  /** Folder for the log and checkpoints; absent = memory only (tests, scratch). */
  dir?: string | undefined;
  /** Label of quads loaded without one (SPEC §3); default `!` (visible to no one). Evaluated at
   * read time, so changing it re-labels every unlabelled quad. */
  defaultLabel?: string | undefined;
  /** fsync the log at every commit (default true). */
  fsync?: boolean | undefined;
  /** Write a checkpoint once the log has grown past this many bytes (default 256 MiB). */
  checkpointBytes?: number | undefined;
  /** Reports of the open (torn tail dropped, damaged checkpoint passed over, ...); default silent. */
  log?: StoreLog | undefined;
  /** Also write one when the log is not empty and this long has passed since the last checkpoint
   * (or the opening); 0 = never (default). */
  checkpointIntervalMs?: number | undefined;
  /** Compact (drop deleted rows from memory, then checkpoint) after a commit that leaves more than
   * this fraction of the rows dead (`StoreStats.deletedRows`) (default 0.25; above 1 = never automatically) … */
  compactDeletedFraction?: number | undefined;
  /** … and at least this many deleted rows (default 10 000). */
  compactMinDeleted?: number | undefined;
  /** Time source and timer of the checkpoint interval (default: the system clock; tests inject). */
  clock?: StoreClock | undefined;
  /** What this process opens the folder for, written into the folder lock (`DIR/LOCK`) so a
   * refused open can name it: `graph server`, `ianode load`, … (default `node <script>`). */
  lockPurpose?: string | undefined;
  /** Opens the log file for appending (default: node:fs; tests inject write faults here). */
  logFiles?: OpenLogFile | undefined;
}

export interface StoreClock {
  /** Milliseconds, monotonic enough for intervals. */
  now(): number;
  /** Call `fn` after `ms` milliseconds; the timer must not keep the process alive. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * How a write may touch what is stored (docs/graph-server.md "Writes and labels"). Without
 * `writable` every quad may be written (in-process loads, tools).
 */
export interface WriteOptions {
  /**
   * Whether the writer may change a quad whose current label is `label` (the label text; the
   * dataset default's text for unlabelled quads). A stored quad, or a pending label, whose label
   * this rejects is left exactly as it is by every operation of the transaction (adds, deletes and
   * label assignments alike); a quad that arrives under a rejected pending label takes that label.
   * A predicate that throws counts as `false` (fail closed).
   */
  writable?: ((label: string) => boolean) | undefined;
  /** Commit (log an empty transaction and advance the txId) even when nothing changed, so the
   * txId a writer is told does not depend on whether its writes found quads it cannot see. */
  commitEmpty?: boolean | undefined;
  /**
   * Called with the transaction's outcome once it is resolved, before anything is logged or
   * applied: throwing refuses the transaction (it is rolled back, nothing stored) and the error
   * is what the write rejects with. The graph server's label check (a writer may not write data
   * it could not read) is this hook.
   */
  accept?: ((outcome: WriteOutcome) => void) | undefined;
  /**
   * Commit metadata to record with this transaction, in the same durable commit as its data (one
   * log record): after a crash either both are there or neither. Keys are kept until overwritten;
   * `store.meta(key)` reads the committed value. A transaction with metadata always commits, even
   * when it changes no quad. The Kafka connector keeps the last applied offset of each topic
   * partition here (exactly-once apply, docs/kafka.md).
   */
  meta?: Readonly<Record<string, string>> | undefined;
}

/**
 * What a transaction did, as the writer sees it: a stored quad or pending label it may not write
 * (`writable`) counts as absent, so nothing here depends on data it cannot see.
 */
export interface WriteOutcome {
  /** Quads present after the transaction that were not before. */
  inserted: number;
  /** Quads present before and after under another label. */
  relabelled: number;
  /** Quads present before and not after. */
  deleted: number;
  /** Quads the transaction added that were there already with the same label. */
  unchanged: number;
  /** The resulting label of every quad the transaction added or labelled and that is present
   * after it (the default label by its text), with how many; sorted by label. */
  labels: { label: string; quads: number }[];
}

export interface LoadOptions extends WriteOptions {
  format: RdfFormat;
  /** The `Security-Label` of the request: applies to every quad of the load (SPEC §3). */
  label?: string | undefined;
  baseIRI?: string | undefined;
  /** RDF-ABAC's legacy label fallback for the labels graph's labels (`readLabel` of @ianode/abac;
   * the graph server's `dataset.labels.legacy`). The `Security-Label` is read by the caller. */
  legacyLabels?: boolean | undefined;
}

/**
 * An upload parsed and checked outside the writer lock (`prepareLoad`): the body's syntax, its
 * `Security-Label` and its labels-graph entries are validated, terms are collected locally; the
 * commit then only interns the distinct terms and resolves. Opaque: build it with `prepareLoad`.
 */
export interface PreparedLoad {
  readonly kind: 'prepared-load';
  /** Distinct term keys; local id = index, 0 = the default graph (''). */
  readonly terms: readonly string[];
  /** g, s, p, o local ids per data quad. */
  readonly rows: Uint32Array;
  /** Validated `Security-Label` of every quad, or undefined. */
  readonly label: string | undefined;
  /** Labels-graph assignments (local ids), validated, in upload order. */
  readonly assignments: readonly { g: number; s: number; p: number; o: number; label: string }[];
  readonly quads: number;
  readonly triples: number;
  readonly labels: number;
}

export interface LoadResult {
  /** Data quads in the upload (the labels graph excluded). */
  quads: number;
  /** Of which in the default graph. */
  triples: number;
  /** Label entries read from the labels graph. */
  labels: number;
  /** Commit sequence number of the transaction. */
  txId: number;
  /** What the load did (`WriteOutcome`). */
  outcome: WriteOutcome;
}

/** Quad in dictionary-key form (see @ianode/rdf terms.ts); `g` '' = default graph. */
export interface KeyQuad {
  s: string;
  p: string;
  o: string;
  g: string;
}

/** `QuadStore.labelledQuads`: the state as of the call. */
export interface LabelledQuads {
  txId: number;
  quads: number;
  /** Live quads in graph, then subject, predicate, object id order (may be iterated again). */
  rows: Iterable<KeyQuad & { label: string | undefined }>;
  pending: (KeyQuad & { label: string })[];
}

export interface WriteTransaction {
  /** Add a quad; `label` undefined = keep the quad's current label, or a pending label for it, or
   * the default label. Throws LabelSyntaxError on a malformed label. */
  add(quad: KeyQuad, label?: string): void;
  /** Remove a quad (no-op when absent). */
  delete(quad: KeyQuad): void;
  /** Record a label for a quad pattern: applied now if the quad exists, else when it arrives. */
  setLabel(quad: KeyQuad, label: string): void;
}

export interface StoreStats {
  quads: number;
  terms: number;
  labels: number;
  /** Bytes in the current log file. */
  logBytes: number;
  txId: number;
  /** Rows in memory, deleted ones included (compaction drops those). */
  rows: number;
  /** Rows in memory that hold no live quad: deleted, or added again while stored. */
  deletedRows: number;
  /** Compactions since the store opened. */
  compactions: number;
}

export interface QuadStore extends Dataset {
  /** A read-only, consistent Dataset of the state as of now; later commits never show in it. */
  snapshot(): Dataset;
  /** The latest committed state for a reader on another thread (a query worker): its arrays are
   * shared memory, so posting it copies no data (shared-state.ts). `labelsFrom`: how many label
   * ids the reader holds already (their texts are not sent again). */
  shareState(labelsFrom?: number): SharedStoreState;
  /** Changes with every published state (commit or compaction): `shareState` is new when it does.
   * Unique among the states of every store in the process. */
  readonly stateVersion: number;
  /** Which store this is among those of the process (a reader of another store's states starts over). */
  readonly storeId: number;
  /** Parse and load RDF as one atomic, durable transaction (all or nothing). A string or stream is
   * parsed while the writer lock is held (fastest for in-process loads); a `PreparedLoad` was
   * parsed before, so the lock is held only for interning, resolution and the log write. */
  load(input: string | AsyncIterable<string | Uint8Array>, options: LoadOptions): Promise<LoadResult>;
  load(input: PreparedLoad, options?: WriteOptions): Promise<LoadResult>;
  /** Several prepared uploads as ONE atomic, durable transaction, applied in order (as if loaded
   * one after another): the Kafka connector's batches. The result sums them. */
  loadAll(inputs: readonly PreparedLoad[], options?: WriteOptions): Promise<LoadResult>;
  /** Run `body` as one atomic, durable transaction; a throw rolls everything back. */
  transaction<T>(body: (tx: WriteTransaction) => T | Promise<T>, options?: WriteOptions): Promise<T>;
  /** `transaction`, also telling the txId of the commit (the current one when nothing was
   * committed and `commitEmpty` is off). */
  write<T>(body: (tx: WriteTransaction) => T | Promise<T>, options?: WriteOptions): Promise<{ value: T; txId: number; outcome: WriteOutcome }>;
  /** Label text of a stored quad, or undefined when absent ('' never: default is reported as the
   * default label's text). */
  labelOf(quad: KeyQuad): string | undefined;
  /** Every live quad of the current state with its OWN label (undefined: stored without one, so
   * the dataset's default label applies at read time), in graph order (default graph first), and
   * every pending label (a label recorded for a quad not stored). For dumps (`ianode dump`):
   * nothing here is filtered, so it is for tools holding the folder, never for a caller's read. */
  labelledQuads(): LabelledQuads;
  /** Write a checkpoint now and start a fresh log. */
  checkpoint(): Promise<void>;
  /** Drop the rows of deleted quads from memory now and checkpoint (so the log shrinks too).
   * Snapshots taken before keep reading what they read. Also runs by itself after a commit that
   * passes `compactDeletedFraction` / `compactMinDeleted`. */
  compact(): Promise<void>;
  stats(): StoreStats;
  /** The committed value of a commit-metadata key (`WriteOptions.meta`), or undefined. */
  meta(key: string): string | undefined;
  /** Every committed metadata entry, sorted by key. */
  metaEntries(): [string, string][];
  close(): Promise<void>;
}
