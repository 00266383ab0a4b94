/**
 * The labelled quad store: a term dictionary, row columns, a stack of sorted runs, a label table,
 * pending labels, and (when given a folder) a write-ahead log with checkpoints.
 *
 * One writer at a time (transactions queue on a promise chain); readers take the published state
 * and never wait for the writer. A commit is: resolve the buffered operations, append them to the
 * log and fsync, then apply them in memory and publish the new state.
 */
import { join } from 'node:path';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import type { Dataset, IdQuad, LabelPredicate, QuadBatch, QuadPattern, Term } from '@ianode/rdf';
import { TermDictionary } from '@ianode/rdf';
import type {
  KeyQuad, LabelledQuads, LoadOptions, LoadResult, PreparedLoad, QuadStore, StoreClock, StoreLog, StoreOptions, StoreStats, WriteOptions, WriteOutcome, WriteTransaction,
} from './api.js';
import { RowColumns } from './columns.js';
import { compactRows } from './compaction.js';
import { StoreError } from './errors.js';
import { checkTransaction, readStoreFile, type Damage, type FileTx } from './integrity.js';
import { DEFAULT_LABEL_ID, LabelTable } from './labels.js';
import { FolderLock } from './lock.js';
import { loadPrepared, loadRdf } from './loader.js';
import { ORDERS } from './orders.js';
import {
  checkpointName, DIR_MODE, listDir, openLogFile, prepareDir, truncateFile, walName, WalWriter, writeChunks, writeFileAtomic, type OpenLogFile,
} from './persistence.js';
import { buildRun, buildRunParallel, findLiveRow, mergePerm, mergeRuns, type Run } from './run.js';
import { SnapshotDataset, type StoreState } from './snapshot.js';
import { describeState, RunIds, type SharedStoreState } from './shared-state.js';
import { quadKey, TxBuffer, type Effects } from './transaction.js';
import {
  decodeMeta, decodeStrings, decodeTuples, encodedStringFrames, encodeFrame, encodeMeta, FrameType, stringFrames, tupleFrames, u32Payload,
} from './wal.js';

const DEFAULT_CHECKPOINT_BYTES = 256 * 1024 * 1024;
/** Compact once deleted rows are more than this fraction of all rows … */
const DEFAULT_COMPACT_DELETED_FRACTION = 0.25;
/** … and at least this many (a small store is not worth a pass per commit). */
const DEFAULT_COMPACT_MIN_DELETED = 10_000;
const SYSTEM_CLOCK: StoreClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
/** Terms logged ahead of a commit in batches of at least this many. */
const TERMS_AHEAD = 64_000;
/** Commits adding at least this many rows sort their indexes on worker threads. */
const PARALLEL_SORT_ROWS = 200_000;

/** Publications and stores of every store in the process: a state version or store id names one
 * state of one store, so a reader handed states of several stores (tests) never mixes them up. */
let publications = 0;
let storesOpened = 0;

export async function openStore(options: StoreOptions = {}): Promise<QuadStore> {
  const store = new LabelledQuadStore(options);
  await store.open();
  return store;
}

export class LabelledQuadStore implements QuadStore {
  private readonly dict = new TermDictionary();
  private readonly labels: LabelTable;
  private cols = new RowColumns();
  private runs: Run[] = [];
  private readonly pending = new Map<string, number>();
  /** Commit metadata (`WriteOptions.meta`), as committed. */
  private readonly metadata = new Map<string, string>();
  private state: StoreState;
  /** The latest publication's number (`shareState`'s version): unique in the process. */
  private version = 0;
  /** This store among the stores of the process (`SharedStoreState.storeId`). */
  readonly storeId = ++storesOpened;
  private readonly runIds = new RunIds();
  private liveQuads = 0;
  private deletedRows = 0;
  /** Rows appended by commits but used by no run (the transaction added a quad already stored):
   * dead weight like deleted rows, dropped by compaction. */
  private unusedRows = 0;
  private loggedTerms = 1;
  private loggedLabels = 1;
  private wal: WalWriter | undefined;
  private lock: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Why the last automatic checkpoint failed, if it did (the store keeps working on its log). */
  lastCheckpointError: Error | undefined;
  /** Why the last automatic compaction failed, if it did (the store keeps its deleted rows). */
  lastCompactionError: Error | undefined;
  private compactions = 0;
  private readonly dir: string | undefined;
  private readonly fsync: boolean;
  private readonly checkpointBytes: number;
  private readonly log: StoreLog;
  /** Checkpoints found damaged at open: never kept as the fallback of a newer one. */
  private readonly damagedCheckpoints = new Set<number>();
  private readonly checkpointIntervalMs: number;
  private readonly compactDeletedFraction: number;
  private readonly compactMinDeleted: number;
  private readonly clock: StoreClock;
  private readonly openLogFile: OpenLogFile;
  /** When the last checkpoint was written (or the store opened), on `clock`. */
  private lastCheckpointAt = 0;
  private checkpointTimer: unknown;
  private readonly lockPurpose: string | undefined;
  /** The folder lock (lock.ts), held from `open` to `close`. */
  private folderLock: FolderLock | undefined;

  constructor(options: StoreOptions) {
    this.labels = new LabelTable(options.defaultLabel ?? '!');
    this.dir = options.dir;
    this.fsync = options.fsync ?? true;
    this.checkpointBytes = options.checkpointBytes ?? DEFAULT_CHECKPOINT_BYTES;
    this.log = options.log ?? (() => undefined);
    this.checkpointIntervalMs = options.checkpointIntervalMs ?? 0;
    this.compactDeletedFraction = options.compactDeletedFraction ?? DEFAULT_COMPACT_DELETED_FRACTION;
    this.compactMinDeleted = options.compactMinDeleted ?? DEFAULT_COMPACT_MIN_DELETED;
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.openLogFile = options.logFiles ?? openLogFile;
    this.lockPurpose = options.lockPurpose;
    for (const [name, v] of [
      ['checkpointBytes', this.checkpointBytes], ['checkpointIntervalMs', this.checkpointIntervalMs],
      ['compactDeletedFraction', this.compactDeletedFraction], ['compactMinDeleted', this.compactMinDeleted],
    ] as const) {
      if (!(v >= 0)) throw new TypeError(`${name} must be a non-negative number, got ${v}`);
    }
    this.state = this.publish(0);
  }

  // ---- Dataset (the latest committed state) ----

  lookup(term: Term): number | undefined {
    return this.snapshot().lookup(term);
  }
  term(id: number): Term {
    return this.dict.term(id);
  }
  key(id: number): string {
    return this.dict.key(id);
  }
  termScope(): object {
    return this.dict.termScope();
  }
  match(pattern: QuadPattern): Iterable<IdQuad> {
    return this.snapshot().match(pattern);
  }
  matchBatches(pattern: QuadPattern, batchSize?: number): Iterable<QuadBatch> {
    return this.snapshot().matchBatches(pattern, batchSize);
  }
  count(pattern: QuadPattern): number {
    return this.snapshot().count(pattern);
  }
  estimate(pattern: QuadPattern): number {
    return this.snapshot().estimate(pattern);
  }
  graphs(): number[] {
    return this.snapshot().graphs();
  }
  view(visible: LabelPredicate): Dataset {
    return this.snapshot().view(visible);
  }
  snapshot(): SnapshotDataset {
    return new SnapshotDataset(this.state);
  }

  shareState(labelsFrom = 1): SharedStoreState {
    return describeState(this.state, this.storeId, this.version, this.runIds, this.labels, labelsFrom);
  }

  get stateVersion(): number {
    return this.version;
  }

  labelOf(quad: KeyQuad): string | undefined {
    const ids = [quad.g, quad.s, quad.p, quad.o].map((k) => this.dict.lookupKey(k));
    if (ids.some((id) => id === undefined)) return undefined;
    const [g, s, p, o] = ids as number[];
    const { cols, runs } = this.state;
    for (let k = runs.length - 1; k >= 0; k--) {
      const r = findLiveRow(cols, this.state.deletedRows > 0 ? cols.deleted : undefined, runs[k]!, g!, s!, p!, o!);
      if (r >= 0) return this.labels.text(cols.label[r]!);
    }
    return undefined;
  }

  stats(): StoreStats {
    return {
      quads: this.liveQuads,
      terms: this.dict.size,
      labels: this.labels.size,
      logBytes: this.wal?.bytes ?? 0,
      txId: this.state.txId,
      rows: this.state.rowCount,
      deletedRows: this.deletedRows + this.unusedRows,
      compactions: this.compactions,
    };
  }

  meta(key: string): string | undefined {
    return this.metadata.get(key);
  }

  metaEntries(): [string, string][] {
    return [...this.metadata].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  // ---- writes ----

  load(input: string | AsyncIterable<string | Uint8Array>, options: LoadOptions): Promise<LoadResult>;
  load(input: PreparedLoad, options?: WriteOptions): Promise<LoadResult>;
  load(input: string | AsyncIterable<string | Uint8Array> | PreparedLoad, options: LoadOptions | WriteOptions = {}): Promise<LoadResult> {
    const body = isPrepared(input)
      ? (tx: TxBuffer) => loadPrepared(tx, this.dict, this.labels, input)
      : (tx: TxBuffer) => loadRdf(tx, this.dict, this.labels, input, options as LoadOptions, () => this.logTermsAhead());
    return this.transactionWithId(body, options).then(([result, txId, outcome]) => ({ ...result, txId, outcome }));
  }

  loadAll(inputs: readonly PreparedLoad[], options: WriteOptions = {}): Promise<LoadResult> {
    const body = (tx: TxBuffer) => {
      const sum = { quads: 0, triples: 0, labels: 0 };
      for (const input of inputs) {
        const r = loadPrepared(tx, this.dict, this.labels, input);
        sum.quads += r.quads;
        sum.triples += r.triples;
        sum.labels += r.labels;
      }
      return sum;
    };
    return this.transactionWithId(body, options).then(([result, txId, outcome]) => ({ ...result, txId, outcome }));
  }

  async transaction<T>(body: (tx: WriteTransaction) => T | Promise<T>, options: WriteOptions = {}): Promise<T> {
    const [result] = await this.transactionWithId(body, options);
    return result;
  }

  async write<T>(body: (tx: WriteTransaction) => T | Promise<T>, options: WriteOptions = {}): Promise<{ value: T; txId: number; outcome: WriteOutcome }> {
    const [value, txId, outcome] = await this.transactionWithId(body, options);
    return { value, txId, outcome };
  }

  private transactionWithId<T>(body: (tx: TxBuffer) => T | Promise<T>, options: WriteOptions): Promise<[T, number, WriteOutcome]> {
    const run = this.lock.then(() => this.runTransaction(body, options));
    this.lock = run.catch(() => undefined);
    return run;
  }

  private async runTransaction<T>(body: (tx: TxBuffer) => T | Promise<T>, options: WriteOptions): Promise<[T, number, WriteOutcome]> {
    if (this.closed) throw new StoreError('STORE_CLOSED', 'the store is closed');
    const firstRow = this.cols.length;
    const firstTerm = this.dict.size;
    const firstLabel = this.labels.size;
    const logStart = this.wal?.bytes ?? 0;
    let logged = false;
    const tx = new TxBuffer(this.dict, this.labels, this.cols, firstRow, options.writable);
    try {
      const result = await body(tx);
      const effects = tx.resolve(this.runs, this.pending);
      const outcome = this.outcomeOf(effects);
      options.accept?.(outcome);
      const meta = options.meta === undefined ? [] : Object.entries(options.meta);
      const changed =
        effects.addRows.length > 0 || effects.deleteRows.length > 0 || effects.pendingSet.size > 0 || effects.pendingDelete.length > 0 || meta.length > 0;
      if (!changed) {
        await this.rollBack(firstRow, firstTerm, firstLabel, logStart);
        // commitEmpty: an empty transaction is still logged and advances the txId (WriteOptions).
        if (options.commitEmpty !== true) return [result, this.state.txId, outcome];
      }
      const txId = this.state.txId + 1;
      // A big commit sorts its other index orders on worker threads while the log is written.
      const pendingRun = effects.addRows.length >= PARALLEL_SORT_ROWS ? buildRunParallel(this.cols, effects.addRows) : undefined;
      pendingRun?.catch(() => undefined);
      if (this.wal) {
        const terms = this.dict.size;
        const labels = this.labels.size;
        await this.wal.append(this.encodeTransaction(txId, effects, meta));
        logged = true;
        // Only a written transaction advances what the log holds.
        this.loggedTerms = terms;
        this.loggedLabels = labels;
      }
      this.apply(txId, effects, pendingRun ? await pendingRun : undefined, meta);
      this.unusedRows += this.cols.length - firstRow - effects.addRows.length;
      await this.maintain();
      return [result, txId, outcome];
    } catch (err) {
      if (logged) this.cols.truncate(firstRow); // the log holds its terms: keep them
      else await this.rollBack(firstRow, firstTerm, firstLabel, logStart);
      throw err;
    }
  }

  /** The resolved counts with label texts. */
  private outcomeOf(effects: Effects): WriteOutcome {
    const { inserted, relabelled, deleted, unchanged, labels } = effects.outcome;
    const texts = [...labels].map(([id, quads]) => ({ label: this.labels.text(id), quads }));
    texts.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
    return { inserted, relabelled, deleted, unchanged, labels: texts };
  }

  /** Undo an uncommitted transaction: its rows, and the terms and labels it interned, so a
   * refused upload leaves nothing behind. No committed row uses those ids; a concurrent reader
   * that looked one up got an id its snapshot holds no row of (and `SnapshotDataset.lookup`
   * answers only ids its state knew). Terms a big load logged ahead are the log's tail after
   * `logStart` (the writer lock kept anything else out): the log is cut back there, and should
   * that fail, the next append cuts it back before writing (until then they are only unused
   * entries after a replay, never under a committed row). */
  private async rollBack(firstRow: number, firstTerm: number, firstLabel: number, logStart: number): Promise<void> {
    this.cols.truncate(firstRow);
    if (this.dict.size > firstTerm) {
      const abandoned = this.dict.size - firstTerm;
      this.dict.truncate(firstTerm);
      if (abandoned >= 100_000) this.dict.compact();
    }
    const wroteAhead = this.loggedTerms > firstTerm;
    this.loggedTerms = Math.min(this.loggedTerms, firstTerm);
    this.labels.truncate(firstLabel);
    this.loggedLabels = Math.min(this.loggedLabels, firstLabel);
    if (this.wal && (wroteAhead || this.wal.bytes !== logStart)) await this.wal.rollBackTo(logStart).catch(() => undefined);
  }

  /** After a commit (under the lock): compact when deleted rows pass the threshold (which also
   * checkpoints), else checkpoint when the log is big or old enough. The commit is durable and
   * applied already: a failure here is kept (lastCompactionError / lastCheckpointError) and the
   * work is tried again after a later commit. */
  private async maintain(): Promise<void> {
    if (this.shouldCompact()) {
      await this.compactNow();
      return;
    }
    if (!this.wal) return;
    if (this.wal.bytes >= this.checkpointBytes || this.checkpointDue()) await this.checkpointNow();
    else this.armCheckpointTimer();
  }

  private shouldCompact(): boolean {
    const deleted = this.deletedRows + this.unusedRows;
    return deleted > 0 && deleted >= this.compactMinDeleted && deleted > this.compactDeletedFraction * this.cols.length;
  }

  /** Drop deleted rows from memory now (then checkpoint, which drops them from disk). */
  async compact(): Promise<void> {
    const run = this.lock.then(() => {
      if (this.closed) throw new StoreError('STORE_CLOSED', 'the store is closed');
      return this.compactNow(true);
    });
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Build columns and runs of the live rows only and publish them as the current state, under
   * the lock. States published before keep their own columns and runs, which nothing mutates. */
  private async compactNow(rethrow = false): Promise<void> {
    if (this.deletedRows + this.unusedRows > 0) {
      try {
        const { cols, runs } = compactRows(this.cols, this.runs, this.cols.length);
        this.cols = cols;
        this.runs = runs;
        this.deletedRows = 0;
        this.unusedRows = 0;
        this.compactions++;
        this.state = this.publish(this.state.txId);
        this.lastCompactionError = undefined;
      } catch (err) {
        this.lastCompactionError = err as Error;
        if (rethrow) throw err;
        return;
      }
    }
    if (this.wal && this.wal.bytes > 0) await this.checkpointNow(rethrow);
  }

  private checkpointDue(): boolean {
    return this.checkpointIntervalMs > 0 && this.wal !== undefined && this.wal.bytes > 0 &&
      this.clock.now() - this.lastCheckpointAt >= this.checkpointIntervalMs;
  }

  /** Write a checkpoint (under the lock), keeping its error unless asked to throw it. */
  private async checkpointNow(rethrow = false): Promise<void> {
    try {
      await this.writeCheckpoint();
      this.lastCheckpointAt = this.clock.now();
      this.lastCheckpointError = undefined;
    } catch (err) {
      this.lastCheckpointError = err as Error;
      if (rethrow) throw err;
    }
    this.armCheckpointTimer();
  }

  /** With `checkpointIntervalMs`: once the log holds something, wake up when the interval since
   * the last checkpoint has passed (a store that stops writing still gets its checkpoint). */
  private armCheckpointTimer(): void {
    if (this.checkpointIntervalMs <= 0 || this.checkpointTimer !== undefined || this.closed) return;
    if (!this.wal || this.wal.bytes === 0) return;
    const wait = Math.max(0, this.lastCheckpointAt + this.checkpointIntervalMs - this.clock.now());
    this.checkpointTimer = this.clock.setTimeout(() => {
      this.checkpointTimer = undefined;
      const run = this.lock.then(async () => {
        if (this.closed) return;
        if (this.checkpointDue()) await this.checkpointNow();
        else this.armCheckpointTimer();
      });
      this.lock = run.catch(() => undefined);
    }, wait);
  }

  /** Apply resolved effects in memory and publish the new state. */
  private apply(txId: number, effects: Effects, run?: Run, meta: readonly [string, string][] = []): void {
    const cols = this.cols;
    for (const [key, value] of meta) this.metadata.set(key, value);
    for (const r of effects.deleteRows) cols.markDeleted(r, txId);
    this.deletedRows += effects.deleteRows.length;
    for (const key of effects.pendingDelete) this.pending.delete(key);
    for (const [key, label] of effects.pendingSet) this.pending.set(key, label);
    if (effects.addRows.length > 0) {
      this.pushRun(run ?? buildRun(cols, effects.addRows, true));
    }
    if (effects.addRows.length >= 100_000) {
      // After a bulk load, give back the growth slack of the columns and the dictionary.
      cols.trim();
      this.dict.compact();
    }
    this.liveQuads += effects.addRows.length - effects.deleteRows.length;
    this.state = this.publish(txId);
  }

  /** Add a run and merge runs of similar size (each row is merged O(log n) times). */
  private pushRun(run: Run): void {
    const runs = [...this.runs, run];
    while (runs.length >= 2 && runs[runs.length - 2]!.size <= 2 * runs[runs.length - 1]!.size) {
      const b = runs.pop()!;
      const a = runs.pop()!;
      runs.push(mergeRuns(this.cols, a, b));
    }
    this.runs = runs;
  }

  private publish(txId: number): StoreState {
    this.version = ++publications;
    return {
      txId,
      cols: this.cols,
      runs: this.runs,
      rowCount: this.cols.length,
      deletedRows: this.deletedRows,
      termCount: this.dict.size,
      labelCount: this.labels.size,
      dict: this.dict,
      labels: this.labels,
    };
  }

  // ---- durability ----

  /** The log frames of a transaction, built lazily as they are written. */
  private *encodeTransaction(txId: number, effects: Effects, meta: readonly [string, string][]): Generator<Buffer> {
    const cols = this.cols;
    yield* encodeFrame(FrameType.Begin, u32Payload(txId));
    yield* this.newStringFrames();
    if (effects.deleteRows.length > 0) {
      yield* tupleFrames(FrameType.Delete, [cols.g, cols.s, cols.p, cols.o], effects.deleteRows, effects.deleteRows.length);
    }
    if (effects.addRows.length > 0) {
      yield* tupleFrames(FrameType.Add, [cols.g, cols.s, cols.p, cols.o, cols.label], effects.addRows, effects.addRows.length);
    }
    if (effects.pendingSet.size > 0) yield* pendingFrames(FrameType.PendingSet, [...effects.pendingSet]);
    if (effects.pendingDelete.length > 0) {
      yield* pendingFrames(FrameType.PendingDelete, effects.pendingDelete.map((k) => [k, 0] as [string, number]));
    }
    if (meta.length > 0) yield* encodeFrame(FrameType.Meta, encodeMeta(meta));
    yield* encodeFrame(FrameType.Commit, u32Payload(txId));
  }

  /** Terms and labels created since the last logged transaction. */
  private newStringFrames(): Buffer[] {
    const frames: Buffer[] = [];
    if (this.dict.size > this.loggedTerms) frames.push(...this.termFrames(this.loggedTerms));
    if (this.labels.size > this.loggedLabels) {
      frames.push(...stringFrames(FrameType.Labels, this.loggedLabels, this.labels.textsFrom(this.loggedLabels)));
    }
    return frames;
  }

  /** During a big load: start writing the terms interned so far to the log, so the disk works
   * while the parser does (the commit then writes only the rest). Safe to repeat and to abandon:
   * a rollback truncates the dictionary and cuts the log back to where the transaction started;
   * after a crash they are just unused dictionary entries (no committed row uses them). */
  logTermsAhead(): void {
    if (!this.wal || this.dict.size - this.loggedTerms < TERMS_AHEAD) return;
    this.wal.appendAhead(this.termFrames(this.loggedTerms));
    this.loggedTerms = this.dict.size;
  }

  private termFrames(from: number): Buffer[] {
    const { lengths, bytes } = this.dict.encodedRange(from);
    return encodedStringFrames(FrameType.Terms, from, lengths, bytes);
  }

  /** Check one logged transaction against the current state (integrity.ts), then apply it. */
  private replay(tx: FileTx, file: string): void {
    checkTransaction(tx, file, this.dict.size, this.labels.size);
    const frames = tx.frames;
    if (frames[0]!.type === FrameType.Terms) {
      const { firstId, strings } = decodeStrings(frames[0]!.payload);
      this.restoreStrings(firstId, strings, this.dict.size, (k) => this.dict.intern(k), 'term');
      this.loggedTerms = this.dict.size;
      return;
    }
    const txId = frames[0]!.payload.readUInt32LE(0);
    const effects: Effects = {
      addRows: new Uint32Array(0), deleteRows: [], pendingSet: new Map(), pendingDelete: [],
      outcome: { inserted: 0, relabelled: 0, deleted: 0, unchanged: 0, labels: new Map() }, // not used in a replay
    };
    const firstRow = this.cols.length;
    const meta: [string, string][] = [];
    for (const f of frames) {
      switch (f.type) {
        case FrameType.Meta:
          meta.push(...decodeMeta(f.payload)!); // checkTransaction read it already
          break;
        case FrameType.Terms: {
          const { firstId, strings } = decodeStrings(f.payload);
          this.restoreStrings(firstId, strings, this.dict.size, (k) => this.dict.intern(k), 'term');
          break;
        }
        case FrameType.Labels: {
          const { firstId, strings } = decodeStrings(f.payload);
          this.restoreStrings(firstId, strings, this.labels.size, (t) => this.labels.restore(t), 'label');
          break;
        }
        case FrameType.Delete: {
          const [g, ss, p, o] = decodeTuples(f.payload, 4) as [Uint32Array, Uint32Array, Uint32Array, Uint32Array];
          for (let i = 0; i < g.length; i++) {
            for (let k = this.runs.length - 1; k >= 0; k--) {
              const r = findLiveRow(this.cols, this.cols.deleted, this.runs[k]!, g[i]!, ss[i]!, p[i]!, o[i]!);
              if (r >= 0) {
                effects.deleteRows.push(r);
                break;
              }
            }
          }
          break;
        }
        case FrameType.Add: {
          const [g, ss, p, o, l] = decodeTuples(f.payload, 5) as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
          this.cols.reserve(g.length);
          for (let i = 0; i < g.length; i++) this.cols.push(g[i]!, ss[i]!, p[i]!, o[i]!, l[i]!);
          break;
        }
        case FrameType.PendingSet: {
          const [g, ss, p, o, l] = decodeTuples(f.payload, 5) as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
          for (let i = 0; i < g.length; i++) effects.pendingSet.set(quadKey(g[i]!, ss[i]!, p[i]!, o[i]!), l[i]!);
          break;
        }
        case FrameType.PendingDelete: {
          const [g, ss, p, o] = decodeTuples(f.payload, 5) as [Uint32Array, Uint32Array, Uint32Array, Uint32Array];
          for (let i = 0; i < g.length; i++) effects.pendingDelete.push(quadKey(g[i]!, ss[i]!, p[i]!, o[i]!));
          break;
        }
        default:
          break;
      }
    }
    // Logged rows are in SPOG order and were appended contiguously.
    effects.addRows = new Uint32Array(this.cols.length - firstRow);
    for (let i = 0; i < effects.addRows.length; i++) effects.addRows[i] = firstRow + i;
    this.loggedTerms = this.dict.size;
    this.loggedLabels = this.labels.size;
    this.apply(txId, effects, undefined, meta);
  }

  private restoreStrings(firstId: number, strings: string[], size: number, add: (s: string) => number, what: string): void {
    if (firstId !== size) {
      throw new StoreError('STORE_CORRUPT', `log ${what} ids out of sequence: expected ${size}, found ${firstId}`);
    }
    for (const s of strings) add(s);
  }

  /**
   * Open the folder: rebuild the state from the newest intact checkpoint and its chain of logs
   * (`loadFrom`), and only once that has succeeded touch the folder (cut torn tails, remove
   * leftover temporary files and obsolete files). Damage refuses the open with STORE_CORRUPT and
   * leaves every file as it was.
   */
  async open(): Promise<void> {
    if (this.dir === undefined) return;
    const dir = this.dir;
    // One process at a time (lock.ts): refused here, before anything is read.
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    this.folderLock = FolderLock.acquire(dir, this.lockPurpose, (message, fields) => this.log('warn', message, fields));
    try {
      await this.openLocked(dir);
    } catch (err) {
      this.closed = true;
      await this.wal?.close().catch(() => undefined);
      this.wal = undefined;
      if (this.checkpointTimer !== undefined) this.clock.clearTimeout(this.checkpointTimer);
      this.folderLock.release();
      this.folderLock = undefined;
      throw err;
    }
  }

  private async openLocked(dir: string): Promise<void> {
    let report: LoadReport;
    try {
      report = this.loadFrom(dir);
    } catch (err) {
      if (!(err instanceof StoreError) || err.code !== 'STORE_CORRUPT') throw err;
      const message =
        `store ${dir}: ${err.message}. Nothing in the folder was changed; ` +
        `\`ianode store verify ${dir}\` lists the damage, \`ianode store recover ${dir} --to NEW_DIR\` saves every commit before it`;
      this.log('error', message);
      throw new StoreError('STORE_CORRUPT', message, { cause: err });
    }
    // The folder is healthy (or damaged only in ways the rebuild went around): now it may change.
    prepareDir(dir);
    for (const tmp of report.tmps) {
      rmSync(join(dir, tmp), { force: true });
      this.log('info', `removed ${tmp}, left by an interrupted checkpoint`, { file: tmp });
    }
    for (const d of report.damagedCheckpoints) {
      this.damagedCheckpoints.add(d.txId);
      this.log('warn', `${d.file} is damaged at byte ${d.offset} (${d.reason}); opened from ${report.base === undefined ? 'the logs alone' : checkpointName(report.base)} and its logs instead`, {
        file: d.file, offset: d.offset,
      });
    }
    for (const l of report.logs) {
      if (l.torn === undefined) continue;
      truncateFile(join(dir, l.name), l.validEnd);
      this.log('warn', `${l.name}: dropped a torn tail of ${l.size - l.validEnd} bytes at byte ${l.validEnd} (${l.torn.reason}): an append that was never acknowledged`, {
        file: l.name, offset: l.validEnd, bytes: l.size - l.validEnd,
      });
    }
    const from = report.base ?? 0;
    const last = report.logs.at(-1);
    // Append to the last log of the chain, or start the log of the state's transaction.
    const walTx = last !== undefined && last.txId >= from ? last.txId : this.state.txId;
    this.wal = await WalWriter.open(join(dir, walName(walTx)), this.fsync, this.openLogFile);
    // Keep the previous checkpoint as the fallback of this one (or, after a fallback, the one used).
    const { checkpoints } = listDir(dir);
    const previous = report.damagedCheckpoints.length > 0 ? report.base : checkpoints.filter((c) => c < from).at(-1);
    this.removeObsolete(previous);
    this.cols.trim();
    this.log('info', `store opened at transaction ${this.state.txId}: ${report.base === undefined ? 'no checkpoint' : checkpointName(report.base)} + ${report.commits} commits from ${report.logs.length} logs`, {
      txId: this.state.txId, quads: this.liveQuads, checkpoint: report.base, commits: report.commits,
    });
    this.lastCheckpointAt = this.clock.now();
    this.armCheckpointTimer();
  }

  /**
   * Rebuild the state from a folder without changing it. Every file read is checked end to end
   * (integrity.ts): the newest intact checkpoint is the base (a damaged newer one is passed over
   * and reported), then the logs from the one holding the commit after the base, in txId sequence.
   * Throws StoreError('STORE_CORRUPT') on damage that is not a torn tail, on a gap in the
   * sequence, or when the result falls short of the newest checkpoint's transaction.
   * `salvage` (for `recoverStore`): start from that base and stop, instead of throwing, at the
   * first damage; the state is then every commit before it.
   */
  loadFrom(dir: string, salvage?: { base: number | undefined }): LoadReport {
    const { checkpoints, wals, tmps } = listDir(dir);
    const report: LoadReport = { base: undefined, damagedCheckpoints: [], logs: [], commits: 0, tmps };
    const stop = (message: string, at?: { file: string; offset: number; reason: string }): void => {
      if (salvage === undefined) throw new StoreError('STORE_CORRUPT', message);
      report.stopped = { message, ...(at ?? { file: '', offset: 0, reason: message }) };
    };
    const candidates = salvage === undefined ? [...checkpoints].reverse() : salvage.base === undefined ? [] : [salvage.base];
    for (const c of candidates) {
      const read = readStoreFile(join(dir, checkpointName(c)), 'checkpoint', c);
      if (read.damage) {
        if (salvage !== undefined) throw new StoreError('STORE_CORRUPT', `${read.file} is damaged at byte ${read.damage.offset} (${read.damage.reason})`);
        report.damagedCheckpoints.push({ ...read.damage, txId: c });
        continue;
      }
      this.replay(read.txs[0]!, read.file);
      report.base = c;
      break;
    }
    const newest = checkpoints.at(-1);
    const damagedNote = () => {
      const d = report.damagedCheckpoints[0];
      return d === undefined
        ? ''
        : `${d.file} is damaged at byte ${d.offset} (${d.reason}), so the state as of transaction ${d.txId} and every commit after it must be rebuilt from an earlier checkpoint and the logs, but `;
    };
    // wal-X holds the commits after X: the chain starts at the newest log named <= the base.
    const from = report.base ?? 0;
    const chain = wals.filter((w) => w > from);
    const first = wals.filter((w) => w <= from).at(-1);
    if (first !== undefined) chain.unshift(first);
    for (const w of chain) {
      if (report.stopped) break;
      const name = walName(w);
      if (w > from && this.state.txId !== w) {
        stop(`${damagedNote()}commits ${this.state.txId + 1} to ${w} are missing: ${name} continues from transaction ${w} while the checkpoint and logs before it end at transaction ${this.state.txId}`,
          { file: name, offset: 0, reason: `commits ${this.state.txId + 1} to ${w} are missing before this log` });
        break;
      }
      const read = readStoreFile(join(dir, name), 'log', w + 1);
      const entry: LogEntry = { name, txId: w, size: read.size, validEnd: read.validEnd, commits: 0 };
      report.logs.push(entry);
      for (const tx of read.txs) {
        if (tx.txId === undefined) {
          // Terms logged ahead: in the log the base's checkpoint already covers, they may be known.
          const firstId = tx.frames[0]!.payload.readUInt32LE(0);
          if (w < from && firstId < this.dict.size) continue;
        } else if (tx.txId <= this.state.txId) {
          if (w < from) continue; // in the checkpoint already
        }
        if (tx.txId !== undefined && tx.txId !== this.state.txId + 1) {
          stop(`${damagedNote()}${name} holds transaction ${tx.txId} at byte ${tx.frames[0]!.start} where transaction ${this.state.txId + 1} was expected`,
            { file: name, offset: tx.frames[0]!.start, reason: `transaction ${tx.txId} out of sequence` });
          break;
        }
        try {
          this.replay(tx, name);
        } catch (err) {
          if (!(err instanceof StoreError) || salvage === undefined) throw err;
          stop(err.message, { file: name, offset: tx.frames[0]!.start, reason: err.message });
          break;
        }
        if (tx.txId !== undefined) {
          entry.commits++;
          report.commits++;
        }
      }
      if (report.stopped || read.damage === undefined) continue;
      const d = read.damage;
      if (d.torn) {
        entry.torn = d;
        continue;
      }
      const after = d.commitsAfter;
      stop(
        `${name} is damaged at byte ${d.offset} (${d.reason}), before the last commit in it: ` +
          `${after.length} intact commit${after.length === 1 ? '' : 's'} follow${after.length === 1 ? 's' : ''} the damage` +
          `${after.length > 0 ? ` (transactions ${after[0]} to ${after.at(-1)})` : ''}; ` +
          `opening would lose every commit after transaction ${this.state.txId} in this log`,
        d,
      );
    }
    if (!report.stopped && newest !== undefined && this.state.txId < newest) {
      stop(`${damagedNote()}no intact checkpoint and complete chain of logs reaches transaction ${newest}: the state rebuilt ends at transaction ${this.state.txId}`);
    }
    return report;
  }

  /** Remove checkpoints older than `keepFrom` and the logs only they need (nothing when undefined). */
  private removeObsolete(keepFrom: number | undefined): void {
    if (this.dir === undefined || keepFrom === undefined) return;
    const { checkpoints, wals } = listDir(this.dir);
    // The log holding the commit after `keepFrom` is the newest one named <= keepFrom.
    const firstLog = wals.filter((w) => w <= keepFrom).at(-1) ?? keepFrom;
    for (const c of checkpoints) if (c < keepFrom) rmSync(join(this.dir, checkpointName(c)), { force: true });
    for (const w of wals) if (w < firstLog) rmSync(join(this.dir, walName(w)), { force: true });
  }

  async checkpoint(): Promise<void> {
    const run = this.lock.then(() => this.checkpointNow(true));
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Write the whole state as one transaction, then start a new log (caller holds the lock). The
   * previous checkpoint and the logs from it stay (the fallback should this one be damaged) until
   * the next checkpoint and its log are durable. */
  private async writeCheckpoint(): Promise<void> {
    if (this.dir === undefined || this.closed) return;
    const txId = this.state.txId;
    const path = join(this.dir, checkpointName(txId));
    const walPath = join(this.dir, walName(txId));
    const replacing = existsSync(path);
    const walExisted = existsSync(walPath);
    const frames = this.checkpointFrames();
    await writeFileAtomic(path, (handle) => writeChunks(handle, frames));
    const old = this.wal;
    try {
      this.wal = await WalWriter.open(walPath, this.fsync, this.openLogFile);
    } catch (err) {
      // Without its log the checkpoint is withdrawn: commits go on in the current log, which the
      // next open reads from the previous checkpoint (a new checkpoint with a stale log after it
      // would hide them).
      if (!replacing) rmSync(path, { force: true });
      if (!walExisted) rmSync(walPath, { force: true });
      throw err;
    }
    await old?.close();
    this.loggedTerms = this.dict.size;
    this.loggedLabels = this.labels.size;
    const previous = listDir(this.dir).checkpoints.filter((c) => c < txId && !this.damagedCheckpoints.has(c)).at(-1);
    this.removeObsolete(previous);
  }

  /** The whole state as one transaction (a checkpoint file's frames), built lazily. */
  private checkpointFrames(): Generator<Buffer> {
    const txId = this.state.txId;
    const cols = this.cols;
    const live = this.liveRowsInSpogOrder();
    const pending = [...this.pending];
    const labels = this.labels.textsFrom(1);
    const meta = [...this.metadata];
    const frames = function* (termFrames: Buffer[]): Generator<Buffer> {
      yield* encodeFrame(FrameType.Begin, u32Payload(txId));
      yield* termFrames;
      yield* stringFrames(FrameType.Labels, 1, labels);
      yield* tupleFrames(FrameType.Add, [cols.g, cols.s, cols.p, cols.o, cols.label], live, live.length);
      if (pending.length > 0) yield* pendingFrames(FrameType.PendingSet, pending);
      if (meta.length > 0) yield* encodeFrame(FrameType.Meta, encodeMeta(meta));
      yield* encodeFrame(FrameType.Commit, u32Payload(txId));
    };
    return frames(this.termFrames(1));
  }

  /** Write the state (as loaded by `loadFrom`) as a new store folder `dir`: one checkpoint and an
   * empty log (`recoverStore`). */
  async exportTo(dir: string): Promise<void> {
    prepareDir(dir);
    const frames = this.checkpointFrames();
    await writeFileAtomic(join(dir, checkpointName(this.state.txId)), (handle) => writeChunks(handle, frames));
    const wal = await WalWriter.open(join(dir, walName(this.state.txId)), true);
    await wal.close();
  }

  labelledQuads(): LabelledQuads {
    const cols = this.cols;
    const dict = this.dict;
    const labels = this.labels;
    const spog = this.liveRowsInSpogOrder();
    // Stable counting sort of the SPOG rows by graph id: graph, then S P O.
    const graphIds = [...new Set(Array.from(spog, (r) => cols.g[r]!))].sort((a, b) => a - b);
    const start = new Map<number, number>();
    let at = 0;
    const counts = new Map<number, number>();
    for (const r of spog) counts.set(cols.g[r]!, (counts.get(cols.g[r]!) ?? 0) + 1);
    for (const g of graphIds) {
      start.set(g, at);
      at += counts.get(g)!;
    }
    const rows = new Uint32Array(spog.length);
    for (const r of spog) {
      const g = cols.g[r]!;
      const i = start.get(g)!;
      rows[i] = r;
      start.set(g, i + 1);
    }
    const keyOf = (id: number) => (id === 0 ? '' : dict.key(id));
    const pending = [...this.pending].map(([key, label]) => {
      const [g, s, p, o] = key.split(' ').map(Number) as [number, number, number, number];
      return { g: keyOf(g), s: dict.key(s), p: dict.key(p), o: dict.key(o), label: labels.text(label) };
    });
    function* iterate(): Generator<KeyQuad & { label: string | undefined }> {
      for (const r of rows) {
        const l = cols.label[r]!;
        yield { g: keyOf(cols.g[r]!), s: dict.key(cols.s[r]!), p: dict.key(cols.p[r]!), o: dict.key(cols.o[r]!), label: l === DEFAULT_LABEL_ID ? undefined : labels.text(l) };
      }
    }
    return { txId: this.state.txId, quads: rows.length, rows: { [Symbol.iterator]: iterate }, pending };
  }

  /** The columns and runs of the current state, for `verifyStore`'s index check. */
  indexState(): { cols: RowColumns; runs: readonly Run[]; txId: number; quads: number } {
    return { cols: this.cols, runs: this.runs, txId: this.state.txId, quads: this.liveQuads };
  }

  /** Live rows of the current state in SPOG order (merging the runs' SPOG permutations). */
  private liveRowsInSpogOrder(): Uint32Array {
    let spog: Uint32Array = new Uint32Array(0);
    for (const run of this.runs) spog = spog.length === 0 ? run.perms.spog : mergePerm(this.cols, ORDERS.spog, spog, run.perms.spog);
    const deleted = this.cols.deleted;
    if (!deleted || this.deletedRows === 0) return spog;
    return spog.filter((r) => deleted[r] === 0);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.lock;
    this.closed = true;
    if (this.checkpointTimer !== undefined) this.clock.clearTimeout(this.checkpointTimer);
    this.checkpointTimer = undefined;
    try {
      await this.wal?.close();
    } finally {
      this.wal = undefined;
      this.folderLock?.release();
      this.folderLock = undefined;
    }
  }
}

function isPrepared(input: unknown): input is PreparedLoad {
  return typeof input === 'object' && input !== null && (input as { kind?: unknown }).kind === 'prepared-load';
}

/** What `loadFrom` read and decided. */
export interface LoadReport {
  /** The checkpoint the state was built from (undefined: none, the logs alone). */
  base: number | undefined;
  /** Newer checkpoints passed over as damaged. */
  damagedCheckpoints: (Damage & { txId: number })[];
  /** The logs replayed, in order. */
  logs: LogEntry[];
  /** Commits replayed from the logs. */
  commits: number;
  /** Leftover temporary files. */
  tmps: string[];
  /** Salvage only: where loading stopped. */
  stopped?: { message: string; file: string; offset: number; reason: string };
}

export interface LogEntry {
  name: string;
  txId: number;
  size: number;
  validEnd: number;
  commits: number;
  /** A torn tail after `validEnd`, cut by the open. */
  torn?: Damage;
}

function pendingFrames(type: FrameType, entries: [string, number][]): Iterable<Buffer> {
  const n = entries.length;
  const cols = [new Uint32Array(n), new Uint32Array(n), new Uint32Array(n), new Uint32Array(n), new Uint32Array(n)];
  entries.forEach(([key, label], i) => {
    const [g, s, p, o] = key.split(' ').map(Number);
    cols[0]![i] = g!;
    cols[1]![i] = s!;
    cols[2]![i] = p!;
    cols[3]![i] = o!;
    cols[4]![i] = label;
  });
  return tupleFrames(type, cols, undefined, n);
}

export { ORDERS };
