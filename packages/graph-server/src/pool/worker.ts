/**
 * A query worker (a `worker_threads` thread of ./pool.ts): runs one query at a time — parse, plan,
 * evaluate, serialise — over the store state the main thread shares with it, narrowed to the
 * caller's view, and sends the answer back in chunks as the main thread asks for them.
 *
 * Nothing here can hold up the main thread: a query that runs past its deadline is ended by the
 * engine's own checks, or else the main thread terminates this thread (./pool.ts).
 */
import { parentPort } from 'node:worker_threads';
import { visibilityOf } from '../grant.js';
import { executeQuery, SparqlError, type QueryResult } from '@ianode/sparql';
import { openStore, SharedStateReader, type SnapshotDataset } from '@ianode/store';
import { errorReply, GraphServerError, statusOf } from '../errors.js';
import { mediaTypesFor, negotiateResultType, serialiseResult } from '../sparql-results.js';
import { askedFor, readGraph } from './graph-read.js';
import { readLabelAdmin, readLabels } from './labels-read.js';
import { runShacl } from './shacl-run.js';
import { CHUNK_WINDOW, type FromWorker, type Grant, type GraphqlJob, type SparqlJob, type ToWorker } from './protocol.js';

const port = parentPort;
if (port === null) throw new Error('pool/worker.js runs as a worker thread of the graph server');

const reader = new SharedStateReader();
const encoder = new TextEncoder();

/** The job under way (one at a time). */
interface Current {
  id: number;
  cancelled: boolean;
  /** Chunks sent and not yet passed on by the main thread. */
  inFlight: number;
  wake: (() => void) | undefined;
}
let current: Current | undefined;

function post(message: FromWorker, transfer?: ArrayBuffer[]): void {
  port!.postMessage(message, transfer);
}

/** The caller's view: every label judged by the same evaluator the main thread would build. */
function viewOf(dataset: SnapshotDataset, grant: Grant | undefined, open: boolean): SnapshotDataset {
  if (open) return dataset;
  // Fail closed: a secure-mode job without a grant sees nothing, and says so as a server fault.
  if (grant === undefined) throw new Error('a query job in secure mode came without the caller grant');
  return dataset.view(visibilityOf(grant.attributes, grant.hierarchies).visible);
}

/** What a client is told when a result is over the row limit. */
export function overRowLimit(cap: number): GraphServerError {
  return new GraphServerError('RESULT_TOO_LARGE', `the result has more than ${cap} rows (limits.resultRows): add LIMIT to the query, or ask the administrator to raise the limit`);
}

/** The result with at most `cap` solutions (or quads); one more is a 413 RESULT_TOO_LARGE (SPEC §4
 * result size limit) — before the first byte when it comes within the first chunk (the head
 * waits for it), else the answer is cut (../routes/respond.ts). */
function capRows(result: QueryResult, cap: number): QueryResult {
  function* limited<T>(items: Iterable<T>): Generator<T> {
    let n = 0;
    for (const item of items) {
      if (++n > cap) throw overRowLimit(cap);
      yield item;
    }
  }
  if (result.type === 'bindings') return { ...result, solutions: limited(result.solutions) };
  if (result.type === 'quads') return { ...result, quads: limited(result.quads) };
  return result;
}

async function runSparql(job: SparqlJob, view: SnapshotDataset, me: Current): Promise<void> {
  const result = executeQuery(view, job.query, {
    deadline: job.deadline,
    rowBudget: job.rowBudget,
    baseIRI: job.baseIRI,
    defaultGraphs: job.defaultGraphs,
    namedGraphs: job.namedGraphs,
  });
  const mediaType = negotiateResultType(job.accept, result.type);
  if (mediaType === undefined) {
    throw new GraphServerError('NOT_ACCEPTABLE', `cannot answer a ${result.type === 'quads' ? 'graph (CONSTRUCT, DESCRIBE)' : 'results (SELECT, ASK)'} query in ${askedFor(job.accept, job.format)}: offered ${mediaTypesFor(result.type).join(', ')}`);
  }
  try {
    await stream(mediaType, serialiseResult(job.resultRows > 0 ? capRows(result, job.resultRows) : result, mediaType), me);
  } catch (error) {
    // An operator (sort, group, join) holding more rows than the budget, which is the result row
    // limit: say how to get an answer.
    if (error instanceof SparqlError && error.code === 'ROW_BUDGET' && job.resultRows > 0) {
      throw new SparqlError('ROW_BUDGET', `${error.message}: the result or an intermediate step is over the limit of ${job.resultRows} rows (limits.resultRows); add LIMIT or narrow the query, or ask the administrator to raise the limit`);
    }
    throw error;
  }
}

/** The client left: the job is over here (the pool frees this worker instead of ending it). */
function cancelled(me: Current, rows: number): void {
  post({ type: 'end', id: me.id, rows });
}

/** Send an answer's chunks as the main thread takes them (at most CHUNK_WINDOW ahead). */
async function stream(mediaType: string, chunks: AsyncIterable<string>, me: Current): Promise<void> {
  let started = false;
  let rows = 0;
  for await (const text of chunks) {
    // The first chunk is produced before the status goes out, so errors found early (timeouts,
    // row budgets, most evaluation errors) still get a proper error reply.
    if (!started) {
      post({ type: 'head', id: me.id, mediaType });
      started = true;
    }
    if (me.cancelled) return cancelled(me, rows);
    const bytes = encoder.encode(text);
    post({ type: 'chunk', id: me.id, bytes }, [bytes.buffer as ArrayBuffer]);
    rows++;
    me.inFlight++;
    while (me.inFlight >= CHUNK_WINDOW && !me.cancelled) await new Promise<void>((resolve) => (me.wake = resolve));
    if (me.cancelled) return cancelled(me, rows);
  }
  if (!started) post({ type: 'head', id: me.id, mediaType });
  post({ type: 'end', id: me.id, rows });
}

/** graphql-js is loaded on the first GraphQL job: it is a large part of a worker's start-up, and
 * many nodes never serve GraphQL. */
let graphqlModule: Promise<typeof import('@ianode/graphql')> | undefined;

async function runGraphql(job: GraphqlJob, view: SnapshotDataset, me: Current): Promise<void> {
  const { executeGraphql } = await (graphqlModule ??= import('@ianode/graphql'));
  const outcome = executeGraphql(view, job.request, { deadline: job.deadline, schema: job.schema });
  const status = outcome.timedOut === true ? statusOf('QUERY_TIMEOUT') : outcome.hasData ? 200 : 400;
  post({ type: 'graphql', id: me.id, status, body: JSON.stringify(outcome.body), ok: outcome.hasData && outcome.body.errors === undefined, scans: outcome.scans });
}

async function run(message: Extract<ToWorker, { type: 'run' }>): Promise<void> {
  const me: Current = { id: message.id, cancelled: false, inFlight: 0, wake: undefined };
  current = me;
  try {
    if (message.state !== undefined) reader.update(message.state);
    const view = viewOf(reader.dataset(), message.grant, message.open);
    const job = message.job;
    if (job.type === 'sparql') await runSparql(job, view, me);
    else if (job.type === 'graph') {
      const { mediaType, chunks } = readGraph(view, job.target, job.accept, job.datasetName, job.format);
      await stream(mediaType, chunks, me);
    } else if (job.type === 'labels') {
      const { mediaType, chunks } = job.mode === 'stats' || job.mode === 'quads'
        ? readLabelAdmin(view, { mode: job.mode, defaultLabel: job.defaultLabel ?? '', label: job.label, limit: job.limit, accept: job.accept })
        : readLabels(view, job.accept, job.format);
      await stream(mediaType, chunks, me);
    } else if (job.type === 'shacl') {
      const { mediaType, chunks } = await runShacl(view, job);
      await stream(mediaType, chunks, me);
    } else await runGraphql(job, view, me);
  } catch (error) {
    const reply = errorReply(error);
    const fault = reply.status >= 500 && reply.body.code === 'INTERNAL'
      ? { message: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined }
      : undefined;
    post({ type: 'error', id: me.id, reply, fault });
  } finally {
    if (current === me) current = undefined;
  }
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'run') {
    void run(message);
    return;
  }
  if (message.type === 'state') {
    reader.update(message.state);
    return;
  }
  const me = current;
  if (me === undefined || me.id !== message.id) return; // about a job that has ended
  if (message.type === 'credit') me.inFlight = Math.max(0, me.inFlight - message.n);
  else me.cancelled = true;
  const wake = me.wake;
  me.wake = undefined;
  wake?.();
});

/**
 * Run the engine once before saying ready: the first query of a fresh thread pays for compiling
 * the parser, planner and writers (tens to hundreds of milliseconds), which would otherwise come
 * out of a real query's time limit.
 */
async function warmUp(): Promise<void> {
  const store = await openStore();
  try {
    await store.load('<urn:x:s> <urn:x:p> "1"^^<http://www.w3.org/2001/XMLSchema#decimal> .', { format: 'application/n-triples', label: 'warm' });
    const view = store.snapshot().view(() => true);
    const query = 'SELECT ?s (COUNT(*) AS ?n) WHERE { ?s ?p ?o OPTIONAL { ?o ?q ?r } FILTER(?o > 0 || REGEX(STR(?s), "x")) } GROUP BY ?s ORDER BY ?s LIMIT 5';
    for (const mediaType of ['application/sparql-results+json', 'application/sparql-results+xml', 'text/csv', 'text/tab-separated-values']) {
      for await (const chunk of serialiseResult(executeQuery(view, query, {}), mediaType)) void chunk;
    }
    for await (const chunk of serialiseResult(executeQuery(view, 'CONSTRUCT WHERE { ?s ?p ?o }', {}), 'application/n-triples')) void chunk;
  } finally {
    await store.close();
  }
}

await warmUp().catch(() => undefined); // a failed warm-up only means a slower first query
post({ type: 'ready' });
