/**
 * The write boundary of the graph server (SPEC §3, §4; STYLE.md "Write boundary"): uploads, SPARQL
 * Update and Graph Store Protocol writes all commit through `createWriter`, the one holder of the
 * store's write side, with one label rule (docs/graph-server.md, "Writes and labels"):
 *
 * - a writer adds quads (labelled by the request's `Security-Label`, else the default label), and
 *   changes (relabels) or removes only quads it can see;
 * - a quad it cannot see is left exactly as it is, data and label, whatever the request says
 *   (enforced by the store at commit resolution: `WriteOptions.writable` is the caller's
 *   visibility, so no route can forget it);
 * - the reply does not depend on whether such a quad exists: the counts and labels are the
 *   store's `WriteOutcome`, in which a quad the writer may not write counts as absent, and every
 *   acknowledged write commits and advances the txId (`commitEmpty`), changed or not;
 * - in secure mode, a write whose resulting label (of any quad it adds or labels) the writer
 *   could not read itself is refused (400 `LABEL_NOT_VISIBLE_TO_WRITER`, nothing stored), unless
 *   the configuration says `writes.allowUnreadableLabels: true`. The labels checked and named
 *   are the writer's own (header, labels graph), the dataset default, or labels it can see.
 *
 * Every write request is ONE store transaction. Reads inside it go through the caller's view of
 * the snapshot taken when the transaction starts (one writer at a time, so nothing commits in
 * between), plus the request's own pending writes (the update overlay of @ianode/sparql).
 */
import { namedNode, termToKey, type Dataset } from '@ianode/rdf';
import type { GraphTarget } from './pool/graph-read.js';
import { createFileLoader, executeUpdate, type ParsedUpdate, type UpdateOp, type UpdateResult } from '@ianode/sparql';
import { LABELS_GRAPH, SECURITY_LABEL_HEADER, StoreError, type KeyQuad, type LoadResult, type PreparedLoad, type QuadStore, type WriteOptions, type WriteOutcome, type WriteTransaction } from '@ianode/store';
import type { GraphServerConfig } from './config.js';
import { GraphServerError } from './errors.js';
import { rdfXmlToNQuads } from './rdfxml.js';
import type { Caller } from './security.js';

/** What a write may carry besides its data: commit metadata recorded in the same durable commit
 * (the Kafka connector's applied offset, `WriteOptions.meta` of @ianode/store). */
export interface CommitExtras {
  meta?: Readonly<Record<string, string>> | undefined;
}

/** The write side of the store, as routes (and the Kafka connector) get it: always in a caller's
 * write scope. */
export interface Writer {
  /** One atomic, durable transaction in the caller's write scope; `view` is the caller's view of
   * the state the transaction starts from. */
  transaction<T>(caller: Caller, body: (tx: WriteTransaction, view: Dataset) => T | Promise<T>, extras?: CommitExtras): Promise<{ value: T; txId: number; outcome: WriteOutcome }>;
  /** Commit an upload parsed before (`prepareLoad`) in the caller's write scope. */
  load(caller: Caller, prepared: PreparedLoad, extras?: CommitExtras): Promise<LoadResult>;
  /** Several uploads as one commit, in order (the Kafka connector's batches). */
  loadAll(caller: Caller, prepared: readonly PreparedLoad[], extras?: CommitExtras): Promise<LoadResult>;
  /** Whether the store can still commit, as the writes have found (`/$/ready`). */
  status(): WriterStatus;
}

/**
 * What the writes have found about the store (readiness, routes/health.ts): `failed` after a
 * commit failed because the transaction log could not be written (STORE_IO: the store refuses
 * writes until its log is whole again; cleared by the next commit that succeeds), `closed` after
 * a commit met a closed store. `reason` names the kind of failure (an errno code such as ENOSPC),
 * never a path or any data.
 */
export interface WriterStatus {
  state: 'ok' | 'failed' | 'closed';
  reason?: string;
}

export interface WriterOptions {
  /** The dataset's default label (for the error message: it is named as such). */
  defaultLabel: string;
  /** `writes.allowUnreadableLabels`: accept writes whose label the writer could not read. */
  allowUnreadableLabels: boolean;
}

/** The caller's write options: may write what it can see (open mode: everything); always
 * commit; in secure mode, refuse a resulting label the caller could not read (unless allowed). */
function writeOptions(caller: Caller, options: WriterOptions): WriteOptions {
  const visible = caller.visible;
  const check = visible === undefined || options.allowUnreadableLabels ? undefined : (outcome: WriteOutcome) => checkLabels(outcome, visible, options.defaultLabel);
  return { writable: visible, commitEmpty: true, ...(check ? { accept: check } : {}) };
}

/**
 * Throws `LABEL_NOT_VISIBLE_TO_WRITER` when a resulting label is one the writer could not read.
 * The outcome's labels are those the writer supplied, the default, or labels it can see (quads
 * and pending labels it cannot see count as absent in a `WriteOutcome`), so naming them tells the
 * writer nothing it could not know.
 */
function checkLabels(outcome: WriteOutcome, visible: (label: string) => boolean, defaultLabel: string): void {
  const unreadable = outcome.labels.filter((entry) => !safeVisible(visible, entry.label));
  if (unreadable.length === 0) return;
  const named = unreadable
    .map((entry) => `${JSON.stringify(entry.label)}${entry.label === defaultLabel ? ' (the dataset\'s default label, given to quads written without a Security-Label)' : ''} on ${entry.quads} quad${entry.quads === 1 ? '' : 's'}`)
    .join(', ');
  throw new GraphServerError(
    'LABEL_NOT_VISIBLE_TO_WRITER',
    `nothing was stored: the write would label data ${named}, which your own attributes do not satisfy, so you could not read, change or delete it afterwards. ` +
      `Send a ${SECURITY_LABEL_HEADER} header your attributes satisfy, or label the data in the TriG labels graph (<${LABELS_GRAPH}>, uploads only). ` +
      '(An administrator can allow such writes with writes.allowUnreadableLabels: true in the dataset configuration.)',
  );
}

export function createWriter(store: QuadStore, options: WriterOptions): Writer {
  let status: WriterStatus = { state: 'ok' };
  /** Records what a commit found: the store's I/O and closed errors, or success. */
  const watch = <T>(commit: Promise<T>): Promise<T> =>
    commit.then(
      (value) => {
        if (status.state === 'failed') status = { state: 'ok' };
        return value;
      },
      (error: unknown) => {
        if (error instanceof StoreError && error.code === 'STORE_IO') {
          const cause = (error.cause as NodeJS.ErrnoException | undefined)?.code;
          status = { state: 'failed', reason: `the transaction log could not be written (STORE_IO${cause ? `, ${cause}` : ''}); writes fail until one commits again` };
        } else if (error instanceof StoreError && error.code === 'STORE_CLOSED') {
          status = { state: 'closed', reason: 'the store is closed' };
        }
        throw error;
      },
    );
  return {
    transaction: (caller, body, extras) =>
      watch(store.write((tx) => {
        const snapshot = store.snapshot();
        return body(tx, caller.visible === undefined ? snapshot : snapshot.view(caller.visible));
      }, { ...writeOptions(caller, options), meta: extras?.meta })),
    load: (caller, prepared, extras) => watch(store.load(prepared, { ...writeOptions(caller, options), meta: extras?.meta })),
    loadAll: (caller, prepared, extras) => watch(store.loadAll(prepared, { ...writeOptions(caller, options), meta: extras?.meta })),
    status: () => status,
  };
}

/** What the writes need from whoever calls them: the dataset's configuration and the write side.
 * The routes' RouteContext and the Kafka connector's ApplyContext both extend it; it is declared
 * here, not taken from routes/context.ts, so the write side does not depend on the routes (which
 * import it). */
export interface WriteContext {
  config: GraphServerConfig;
  writer: Writer;
}

export interface WriteScope {
  /** The caller's view of the state the transaction starts from. */
  view: Dataset;
  /** Adds and deletes, straight into the transaction (the store applies the label rule). */
  apply(ops: readonly UpdateOp[]): void;
  /** Whether the caller will see what it inserts. */
  insertsVisible: boolean;
}

/** Runs `body` as one atomic, durable store transaction with the caller's write scope. */
export async function withWriteScope<T>(
  ctx: WriteContext,
  caller: Caller,
  label: string | undefined,
  body: (scope: WriteScope) => T | Promise<T>,
  extras?: CommitExtras,
): Promise<{ value: T; txId: number; outcome: WriteOutcome }> {
  const visible = caller.visible;
  const effectiveLabel = label ?? ctx.config.dataset.defaultLabel;
  return ctx.writer.transaction(caller, async (tx, view) => {
    const scope: WriteScope = {
      view,
      insertsVisible: visible === undefined ? true : safeVisible(visible, effectiveLabel),
      apply(ops) {
        for (const op of ops) {
          const quad: KeyQuad = op.quad;
          if (op.type === 'delete') tx.delete(quad);
          else tx.add(quad, label);
        }
      },
    };
    return body(scope);
  }, extras);
}

function safeVisible(visible: (label: string) => boolean, label: string): boolean {
  try {
    return visible(label);
  } catch {
    return false;
  }
}

/** The protocol's dataset for an update: `using-graph-uri` and `using-named-graph-uri` IRIs. */
export interface UpdateDataset {
  default: string[];
  named: string[];
}

/**
 * The update with the protocol's dataset (SPARQL 1.1 Protocol §2.2.3) as the USING / USING NAMED
 * of every DELETE/INSERT operation. An update that names its own dataset (USING, USING NAMED or
 * WITH) together with the parameters is refused (400). DELETE WHERE and INSERT DATA / DELETE DATA
 * have no dataset clause and are left as they are.
 */
export function withProtocolDataset(parsed: ParsedUpdate, dataset: UpdateDataset | undefined): ParsedUpdate {
  if (dataset === undefined || (dataset.default.length === 0 && dataset.named.length === 0)) return parsed;
  const modify = (op: unknown): op is { updateType: 'insertdelete'; graph?: unknown; using?: { default?: unknown[]; named?: unknown[] } } =>
    (op as { updateType?: string }).updateType === 'insertdelete';
  for (const op of parsed.operations) {
    if (modify(op) && (op.graph !== undefined || (op.using?.default?.length ?? 0) > 0 || (op.using?.named?.length ?? 0) > 0)) {
      throw new GraphServerError('BAD_REQUEST', 'the update names its dataset (USING, USING NAMED or WITH): give that or using-graph-uri / using-named-graph-uri, not both');
    }
  }
  const using = { default: dataset.default.map((iri) => namedNode(iri)), named: dataset.named.map((iri) => namedNode(iri)) };
  const operations = parsed.operations.map((op) => (modify(op) ? ({ ...op, using } as unknown as typeof op) : op));
  return { ...parsed, operations };
}

/** LOAD reads RDF/XML files (`.rdf`, `.owl`) too. */
const LOAD_CONVERTERS = { rdf: rdfXmlToNQuads, owl: rdfXmlToNQuads };
/**
 * What every write reply says (docs/graph-server.md, "Write replies"): the store's outcome as the
 * writer sees it, and the commit's txId.
 */
export interface WriteCounts {
  /** Quads that were not there before and are now. */
  inserted: number;
  /** Quads that were there under another label and now have the written one. */
  relabelled: number;
  /** Quads that were there and are gone. */
  deleted: number;
  /** Quads written that were there already with the same label (nothing changed for them). */
  unchanged: number;
  /** The label each written quad has now, with how many (sorted by label). */
  labels: { label: string; quads: number }[];
  txId: number;
}

export function writeCounts(outcome: WriteOutcome, txId: number): WriteCounts {
  const { inserted, relabelled, deleted, unchanged, labels } = outcome;
  return { inserted, relabelled, deleted, unchanged, labels, txId };
}

/** A parsed SPARQL Update as one transaction in the caller's write scope (the HTTP route and the
 * Kafka connector). */
export function applySparqlUpdate(
  ctx: WriteContext,
  caller: Caller,
  parsed: ParsedUpdate,
  label: string | undefined,
  extras?: CommitExtras,
  /** From the log (Kafka), every replica must do the same: no time limit (a replica slower than
   * another would refuse what the other applied) and no LOAD (files differ between machines). */
  replicated = false,
): Promise<{ value: UpdateResult; txId: number; outcome: WriteOutcome }> {
  const { queryTimeoutMs, resultRows } = ctx.config.limits;
  const loadDir = replicated ? undefined : ctx.config.writes.updateLoadDir;
  return withWriteScope(ctx, caller, label, (scope) =>
    executeUpdate(scope.view, parsed, { applyOps: (ops) => scope.apply(ops) }, {
      deadline: queryTimeoutMs > 0 && !replicated ? Date.now() + queryTimeoutMs : undefined,
      rowBudget: resultRows > 0 ? resultRows : undefined,
      insertsVisible: scope.insertsVisible,
      // LOAD is off unless writes.updateLoadDir (IANODE_UPDATE_LOAD_DIR) names a folder; then only files under it.
      load: loadDir ? createFileLoader(loadDir, LOAD_CONVERTERS) : undefined,
    }), extras);
}

/** A Graph Store Protocol write (routes/gsp.ts): the body's quads, already parsed, and what to do
 * with the target graph. */
export interface GraphStoreWrite {
  method: 'PUT' | 'POST' | 'DELETE';
  target: GraphTarget;
  quads: KeyQuad[];
  label: string | undefined;
}

/**
 * A Graph Store write as one transaction in the caller's write scope (the HTTP route and the Kafka
 * connector): PUT and DELETE remove the caller's visible quads of the graph, PUT and POST add the
 * body's. `created`: the graph had no visible quad and now has some. DELETE of a graph with no
 * visible quad is 404 (thrown inside, so nothing commits).
 */
export function applyGraphStoreWrite(
  ctx: WriteContext,
  caller: Caller,
  write: GraphStoreWrite,
  extras?: CommitExtras,
): Promise<{ value: { created: boolean }; txId: number; outcome: WriteOutcome }> {
  const { method, target, quads } = write;
  const ds = ctx.config.dataset.name;
  const graphName = target.kind === 'graph' ? target.iri : target.kind === 'default' ? 'default' : undefined;
  return withWriteScope(ctx, caller, write.label, (scope) => {
    const ops: UpdateOp[] = [];
    let existed = true; // the default graph always exists; so does "the dataset"
    if (target.kind !== 'dataset') {
      const key = target.kind === 'default' ? '' : termToKey(namedNode(target.iri));
      const g = target.kind === 'default' ? 0 : scope.view.lookup(namedNode(target.iri));
      const visible = g === undefined ? [] : [...scope.view.match({ g })];
      if (target.kind === 'graph') existed = visible.length > 0;
      if (method !== 'POST') {
        for (const q of visible) ops.push({ type: 'delete', quad: { s: scope.view.key(q.s), p: scope.view.key(q.p), o: scope.view.key(q.o), g: key } });
      }
    }
    // Thrown inside: a refused write rolls back instead of committing an empty transaction.
    if (method === 'DELETE' && !existed) throw new GraphServerError('NOT_FOUND', `no graph <${graphName}> in /${ds}`);
    for (const quad of quads) ops.push({ type: 'add', quad });
    scope.apply(ops);
    return { created: !existed && quads.length > 0 };
  }, extras);
}
