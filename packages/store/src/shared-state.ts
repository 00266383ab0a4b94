/**
 * A committed store state handed to another thread (a query worker) without copying the data.
 *
 * The writer (`LabelledQuadStore.shareState`) describes its latest published state as a plain
 * object whose arrays — row columns, every run's six permutations, the term dictionary — are views
 * of SharedArrayBuffers; posting it with `postMessage` shares that memory. What is not in shared
 * memory is small and sent by value: counts, the label texts the reader does not have yet, the
 * default label. The reader (`SharedStateReader`, on the worker) turns the message into the same
 * `SnapshotDataset` the writer's thread reads, so views, ABAC masks and every read path are the
 * code of snapshot.ts, not a second implementation.
 *
 * Why no locks are needed: the writer never changes memory a published state reads. Rows are only
 * appended (a commit writes rows past the state's `rowCount`, or into new, larger arrays); runs are
 * immutable (merges and compaction build new arrays); a row's `deleted` entry only goes from 0 to
 * the deleting commit's id, which is past the state's txId and so ignored by it; the dictionary's
 * rules are in @ianode/rdf's dictionary.ts. `postMessage` orders memory: everything written before
 * the post is visible to the worker after it receives the message.
 */
import { TermDictionary, type DictionaryShare } from '@ianode/rdf';
import { LabelTable } from './labels.js';
import type { Perms, Run } from './run.js';
import { SnapshotDataset, type ReadColumns, type StoreState } from './snapshot.js';

export interface SharedRun {
  /** Stable for the life of the run: a reader keeps what it built for it (presence bits). */
  readonly id: number;
  readonly size: number;
  readonly perms: Perms;
}

export interface SharedStoreState {
  readonly kind: 'shared-store-state';
  /** The store the state is of (`QuadStore.storeId`): a reader given another store's starts over. */
  readonly storeId: number;
  /** Publication number of the writer: a reader holding this version needs nothing new. */
  readonly version: number;
  readonly txId: number;
  readonly rowCount: number;
  readonly deletedRows: number;
  readonly termCount: number;
  readonly labelCount: number;
  readonly defaultLabel: string;
  readonly cols: ReadColumns;
  readonly runs: readonly SharedRun[];
  readonly dict: DictionaryShare;
  /** Label texts of ids [labelsFrom, labelCount); the reader holds the ones below. */
  readonly labelsFrom: number;
  readonly labelTexts: readonly string[];
}

/** Gives each run object a number, for `SharedRun.id`. */
export class RunIds {
  private readonly ids = new WeakMap<Run, number>();
  private next = 1;

  of(run: Run): number {
    let id = this.ids.get(run);
    if (id === undefined) {
      id = this.next++;
      this.ids.set(run, id);
    }
    return id;
  }
}

/** Build the message for `state` (the writer's side). `labelsFrom`: the reader's label count. */
export function describeState(state: StoreState, storeId: number, version: number, runIds: RunIds, labels: LabelTable, labelsFrom: number): SharedStoreState {
  const from = Math.max(1, Math.min(labelsFrom, state.labelCount));
  const texts: string[] = [];
  for (let id = from; id < state.labelCount; id++) texts.push(labels.text(id));
  const { g, s, p, o, label, deleted } = state.cols;
  return {
    kind: 'shared-store-state',
    storeId,
    version,
    txId: state.txId,
    rowCount: state.rowCount,
    deletedRows: state.deletedRows,
    termCount: state.termCount,
    labelCount: state.labelCount,
    defaultLabel: labels.defaultLabel,
    cols: { g, s, p, o, label, deleted: state.deletedRows > 0 ? deleted : undefined },
    runs: state.runs.map((run) => ({ id: runIds.of(run), size: run.size, perms: run.perms })),
    dict: state.dict.share(state.termCount),
    labelsFrom: from,
    labelTexts: texts,
  };
}

/**
 * The reader's side, one per worker: `update` with each message, `dataset` for the latest state.
 * It keeps the dictionary reader (and its decoded-term cache), the label texts and each run's
 * presence bits across updates.
 */
export class SharedStateReader {
  private dict: TermDictionary | undefined;
  private labels: LabelTable | undefined;
  private runs = new Map<number, Run>();
  private state: StoreState | undefined;
  private currentVersion = -1;
  private storeId = -1;

  /** The version of the state held (-1: none yet). */
  get version(): number {
    return this.currentVersion;
  }

  /** Label ids held: the `labelsFrom` to ask the writer for. */
  get labelCount(): number {
    return this.labels?.size ?? 1;
  }

  update(share: SharedStoreState): void {
    if (share.kind !== 'shared-store-state') throw new TypeError('not a shared store state');
    if (share.storeId !== this.storeId) {
      // Another store: nothing held (labels, terms, runs) is about it.
      this.dict = undefined;
      this.labels = undefined;
      this.runs = new Map();
      this.state = undefined;
      this.currentVersion = -1;
      this.storeId = share.storeId;
    }
    if (share.version === this.currentVersion) return;
    const labels = (this.labels ??= new LabelTable(share.defaultLabel));
    if (share.labelsFrom > labels.size) {
      throw new RangeError(`shared state sends labels from id ${share.labelsFrom}, the reader has ${labels.size}`);
    }
    // Texts below the reader's count were sent before (ids never change meaning once committed).
    for (let id = share.labelsFrom; id < share.labelCount; id++) {
      if (id >= labels.size) labels.restore(share.labelTexts[id - share.labelsFrom]!);
    }
    labels.defaultLabel = share.defaultLabel;
    if (this.dict === undefined) this.dict = TermDictionary.reader(share.dict);
    else this.dict.update(share.dict);
    const runs = new Map<number, Run>();
    for (const shared of share.runs) {
      runs.set(shared.id, this.runs.get(shared.id) ?? { size: shared.size, perms: shared.perms, presence: undefined });
    }
    this.runs = runs;
    this.state = {
      txId: share.txId,
      cols: share.cols,
      runs: share.runs.map((r) => runs.get(r.id)!),
      rowCount: share.rowCount,
      deletedRows: share.deletedRows,
      termCount: share.termCount,
      labelCount: share.labelCount,
      dict: this.dict,
      labels,
    };
    this.currentVersion = share.version;
  }

  /** The latest state as a Dataset (narrow it with `view`). */
  dataset(): SnapshotDataset {
    if (this.state === undefined) throw new Error('no shared state received yet');
    return new SnapshotDataset(this.state);
  }
}
