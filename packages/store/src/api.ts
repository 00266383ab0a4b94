/**
 * The public shape of the labelled quad store. See docs/ARCHITECTURE.md ("Store").
 */
import type { Dataset, RdfFormat } from '@ianode/rdf';

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
}

export interface LoadOptions {
  format: RdfFormat;
  /** The `Security-Label` of the request: applies to every quad of the load (SPEC §3). */
  label?: string | undefined;
  baseIRI?: string | undefined;
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
}

/** Quad in dictionary-key form (see @ianode/rdf terms.ts); `g` '' = default graph. */
export interface KeyQuad {
  s: string;
  p: string;
  o: string;
  g: string;
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
}

export interface QuadStore extends Dataset {
  /** A read-only, consistent Dataset of the state as of now; later commits never show in it. */
  snapshot(): Dataset;
  /** Parse and load RDF as one atomic, durable transaction (all or nothing). */
  load(input: string | AsyncIterable<string | Uint8Array>, options: LoadOptions): Promise<LoadResult>;
  /** Run `body` as one atomic, durable transaction; a throw rolls everything back. */
  transaction<T>(body: (tx: WriteTransaction) => T | Promise<T>): Promise<T>;
  /** Label text of a stored quad, or undefined when absent ('' never: default is reported as the
   * default label's text). */
  labelOf(quad: KeyQuad): string | undefined;
  /** Write a checkpoint now and start a fresh log. */
  checkpoint(): Promise<void>;
  stats(): StoreStats;
  close(): Promise<void>;
}
