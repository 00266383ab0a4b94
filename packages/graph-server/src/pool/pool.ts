/**
 * The query worker pool: SPARQL queries and GraphQL requests run on `worker_threads` (./worker.ts),
 * so no query — however it is built, however long its regex or deep its nesting — can hold up the
 * main thread, which does HTTP, authentication, writes and the streaming of answers; and queries
 * use every core.
 *
 * - Workers read the store's latest committed state through shared memory (@ianode/store
 *   shared-state.ts): a job carries the state only when the worker's copy is older, and then only
 *   the descriptors (the arrays are SharedArrayBuffers), never the data.
 * - One job per worker at a time; more wait in a bounded queue (503 past it). The wait counts
 *   against the query's deadline.
 * - Deadlines are enforced for real: the engine checks its deadline as it goes, and a job still
 *   running `killGraceMs` after its deadline — a regex, a parse, a loop without a check — has its
 *   worker terminated (the client gets 503 QUERY_TIMEOUT, or a cut connection once the answer has
 *   started) and a new worker takes its place.
 * - Answers stream with back-pressure: a worker sends at most CHUNK_WINDOW chunks ahead of what the
 *   HTTP response has taken, so a slow client holds back the evaluation, not memory.
 * - A worker that dies (crash, out of memory) fails its job with 500 and is replaced; workers that
 *   cannot start at all make queries answer 503, never something unfiltered.
 */
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { SparqlError } from '@ianode/sparql';
import type { SharedStoreState } from '@ianode/store';
import { ForwardedError, GraphServerError } from '../errors.js';
import { type FromWorker, type Grant, type GraphJob, type GraphqlJob, type Job, type LabelsJob, type ShaclJob, type SparqlJob, type ToWorker } from './protocol.js';

/** Where the pool gets the store state from (the store; only these two calls). */
export interface StateSource {
  readonly stateVersion: number;
  readonly storeId: number;
  shareState(labelsFrom?: number): SharedStoreState;
}

export interface PoolTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface QueryPoolOptions {
  /** Queries that run at once, one per worker (at least 1). */
  size: number;
  /** When workers start (default 'eager'):
   * - 'eager': every worker and the spares at once (`warm()`, called when a dataset opens), so the
   *   first queries never wait for a thread to start (which loads the whole engine);
   * - 'lazy': a worker starts when a job finds none idle, up to `size`, and no spare unless
   *   `spare` says so (a server that is never queried starts no thread: the test suites' servers). */
  start?: 'eager' | 'lazy';
  /** Started workers kept idle beyond `size` (default 1 when eager, 0 when lazy): a worker
   * terminated at a deadline is replaced at once by a ready one, not after a thread start. */
  spare?: number;
  /** Jobs that may wait for a worker; one more is refused with 503. */
  queueLimit: number;
  /** How long past its deadline a job may run before its worker is terminated. */
  killGraceMs: number;
  state: StateSource;
  log: (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string) => void;
  timers?: PoolTimers;
  /** The worker script (default: ./worker.js next to this module's compiled form). */
  workerUrl?: URL;
}

/** Who asks: their grant (undefined in open mode only), see ./protocol.ts Grant. */
export interface JobCaller {
  open: boolean;
  grant: Grant | undefined;
}

export interface SparqlAnswer {
  mediaType: string;
  body: Readable;
  /** Set when the answer failed after it started (the body then ends early; the route cuts the
   * response, ../routes/respond.ts). */
  failure(): Error | undefined;
}

export interface GraphqlAnswer {
  status: number;
  body: string;
  ok: boolean;
  scans: number;
}

export interface PoolStats {
  size: number;
  /** Workers started and ready (spares included). */
  ready: number;
  /** Workers started and not ready yet (loading the engine). */
  starting: number;
  busy: number;
  queued: number;
  /** Workers terminated at a deadline or after a client left, since the start. */
  killed: number;
  /** Workers that died by themselves (crash, out of memory), since the start. */
  crashed: number;
}

const SYSTEM_TIMERS: PoolTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** After a client leaves mid-answer, how long a worker may take to notice before it is ended. */
const CANCEL_GRACE_MS = 250;
/** Workers in a row that die before they are ready: then the pool stops trying (503). */
const MAX_START_FAILURES = 3;

interface Pending {
  id: number;
  job: Job;
  caller: JobCaller;
  /** Resolves with the answer's start (SPARQL: head; GraphQL: the whole answer). */
  resolve: (value: SparqlAnswer | GraphqlAnswer) => void;
  reject: (error: Error) => void;
  deadlineTimer: unknown;
  slot: Slot | undefined;
  stream: ChunkStream | undefined;
  settled: boolean;
  ended: boolean;
  cancelTimer: unknown;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Store, state version and label count the worker holds. */
  storeId: number;
  version: number;
  labels: number;
  job: Pending | undefined;
  dead: boolean;
}

class ChunkStream extends Readable {
  pushed = 0;
  credited = 0;
  /** Why the answer stopped short, once it has (no chunk is pushed after that). */
  failure: Error | undefined;
  /** No more chunks: ended or failed. */
  over = false;

  constructor(
    private readonly pull: (stream: ChunkStream) => void,
    private readonly abort: () => void,
  ) {
    super({ highWaterMark: 64 * 1024 });
  }

  override _read(): void {
    this.pull(this);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.over = true;
    this.abort();
    callback(error);
  }

  /** The last chunk has come. */
  finish(): void {
    if (this.over) return;
    this.over = true;
    this.push(null);
  }

  /** The answer stops short: what was sent so far still reaches the reader, then the end, and
   * `failure` says why (the route then cuts the response instead of ending it). */
  failWith(error: Error): void {
    if (this.over || this.destroyed) return;
    this.failure = error;
    this.finish();
  }
}

export class QueryPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private readonly timers: PoolTimers;
  private readonly workerUrl: URL;
  private seq = 0;
  private killed = 0;
  private crashed = 0;
  private startFailures = 0;
  private closed = false;
  private readyWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];

  constructor(private readonly options: QueryPoolOptions) {
    if (!(Number.isInteger(options.size) && options.size >= 1)) throw new TypeError(`query pool size must be a positive integer, got ${options.size}`);
    this.timers = options.timers ?? SYSTEM_TIMERS;
    this.workerUrl = options.workerUrl ?? defaultWorkerUrl();
  }

  /** Start every worker now (the first queries then do not wait for a thread to start). */
  warm(): void {
    while (this.canSpawn()) this.spawn();
  }

  private get lazy(): boolean {
    return this.options.start === 'lazy';
  }

  /** Workers to keep started: the pool size and the spares. */
  private get workers(): number {
    return this.options.size + (this.options.spare ?? (this.lazy ? 0 : 1));
  }

  private canSpawn(): boolean {
    return !this.closed && this.startFailures < MAX_START_FAILURES && this.slots.length < this.workers;
  }

  /** Workers started but not ready yet. */
  private starting(): number {
    let n = 0;
    for (const s of this.slots) if (!s.ready && !s.dead) n++;
    return n;
  }

  /** Lazy start: one more worker for each waiting job that no idle or starting worker will take. */
  private grow(): void {
    let idle = 0;
    for (const s of this.slots) if (s.ready && s.job === undefined && !s.dead) idle++;
    let wanted = this.queue.length - idle - this.starting();
    while (wanted-- > 0 && this.canSpawn()) this.spawn();
  }

  /** Keep the pool started as its mode wants it: all of it (eager), or as the queue needs (lazy). */
  private topUp(): void {
    if (this.lazy) this.grow();
    else this.warm();
  }

  private busy(): number {
    let n = 0;
    for (const s of this.slots) if (s.job !== undefined) n++;
    return n;
  }

  /** Start the workers and wait until one is ready to take a query (rejects when none can start).
   * A lazy pool starts nothing and is ready at once: its first job starts a worker. */
  ready(): Promise<void> {
    if (this.lazy) return Promise.resolve();
    this.warm();
    if (this.slots.some((s) => s.ready)) return Promise.resolve();
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  stats(): PoolStats {
    return {
      size: this.options.size,
      ready: this.slots.filter((s) => s.ready).length,
      starting: this.starting(),
      busy: this.busy(),
      queued: this.queue.length,
      killed: this.killed,
      crashed: this.crashed,
    };
  }

  /** Run a SPARQL query: resolves when the answer starts (its media type and body stream). */
  sparql(job: SparqlJob, caller: JobCaller): Promise<SparqlAnswer> {
    return this.submit(job, caller) as Promise<SparqlAnswer>;
  }

  /** A Graph Store read: resolves when the answer starts. */
  graph(job: GraphJob, caller: JobCaller): Promise<SparqlAnswer> {
    return this.submit(job, caller) as Promise<SparqlAnswer>;
  }

  /** The labels of the caller's view (`GET /{ds}/labels`): resolves when the answer starts. */
  labels(job: LabelsJob, caller: JobCaller): Promise<SparqlAnswer> {
    return this.submit(job, caller) as Promise<SparqlAnswer>;
  }

  /** A SHACL validation over the caller's view: resolves when the report starts. */
  shacl(job: ShaclJob, caller: JobCaller): Promise<SparqlAnswer> {
    return this.submit(job, caller) as Promise<SparqlAnswer>;
  }

  graphql(job: GraphqlJob, caller: JobCaller): Promise<GraphqlAnswer> {
    return this.submit(job, caller) as Promise<GraphqlAnswer>;
  }

  /** Stop every worker; jobs still waiting or running fail with 503. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.readyWaiters.splice(0)) waiter.reject(new Error('the query pool was closed'));
    const stopping = new GraphServerError('SHUTTING_DOWN', 'the server is stopping: the query was not answered; retry against a running server');
    for (const pending of this.queue.splice(0)) this.fail(pending, stopping);
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      slot.dead = true;
      if (slot.job) this.fail(slot.job, stopping);
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate().catch(() => undefined)));
  }

  private submit(job: Job, caller: JobCaller): Promise<SparqlAnswer | GraphqlAnswer> {
    if (!caller.open && caller.grant === undefined) {
      // Fail closed: a secure-mode caller without a grant would otherwise be judged on nothing.
      return Promise.reject(new GraphServerError('INTERNAL', 'query job without the caller grant'));
    }
    if (this.closed) return Promise.reject(new GraphServerError('SHUTTING_DOWN', 'the server is stopping: retry against a running server'));
    if (this.startFailures >= MAX_START_FAILURES) {
      return Promise.reject(new GraphServerError('UNAVAILABLE', 'query workers cannot start: see the server log'));
    }
    return new Promise((resolve, reject) => {
      const pending: Pending = {
        id: ++this.seq, job, caller, resolve, reject,
        deadlineTimer: undefined, slot: undefined, stream: undefined, settled: false, ended: false, cancelTimer: undefined,
      };
      const deadline = 'deadline' in job ? job.deadline : undefined;
      if (deadline !== undefined) {
        const wait = Math.max(0, deadline - this.timers.now()) + this.options.killGraceMs;
        pending.deadlineTimer = this.timers.setTimeout(() => this.overDeadline(pending), wait);
      }
      const slot = this.idleSlot();
      if (slot !== undefined) this.dispatch(slot, pending);
      else if (this.queue.length >= this.options.queueLimit + (this.lazy ? this.options.size - this.busy() : 0)) {
        // (In a lazy pool, jobs that workers still starting or still to start will take do not
        // count against the bound: only those that wait for a busy worker to be free.)
        this.finish(pending);
        reject(new GraphServerError('UNAVAILABLE', `every query worker is busy and ${this.queue.length} queries are waiting: retry shortly`, { headers: { 'retry-after': '1' } }));
      } else {
        this.queue.push(pending);
        if (this.lazy) this.grow();
      }
    });
  }

  /** A ready worker with no job. An eager pool's first job starts the whole pool (so a second
   * query, or the one after a worker was replaced, finds a ready worker). */
  private idleSlot(): Slot | undefined {
    if (!this.lazy) this.warm();
    if (this.busy() >= this.options.size) return undefined;
    return this.slots.find((s) => s.ready && s.job === undefined && !s.dead);
  }

  private spawn(): Slot {
    // The stack of the main thread (about 1 MiB), which the query shape limits are set against
    // (../query-shape.ts): a deeper query overflows early and answers 400, not slowly.
    const worker = new Worker(this.workerUrl, { resourceLimits: { stackSizeMb: 1 } });
    // The HTTP server keeps the process alive; an idle worker must not.
    worker.unref();
    const slot: Slot = { worker, ready: false, storeId: -1, version: -1, labels: 1, job: undefined, dead: false };
    this.slots.push(slot);
    worker.on('message', (message: FromWorker) => this.onMessage(slot, message));
    worker.on('error', (error) => this.onDeath(slot, error));
    worker.on('exit', (code) => this.onDeath(slot, new Error(`query worker exited with code ${code}`)));
    return slot;
  }

  private dispatch(slot: Slot, pending: Pending): void {
    slot.job = pending;
    pending.slot = slot;
    const state = this.stateFor(slot);
    const message: ToWorker = { type: 'run', id: pending.id, job: pending.job, grant: pending.caller.grant, open: pending.caller.open, state };
    slot.worker.postMessage(message);
    if (state !== undefined) {
      // The state changed: idle workers take it now too, so none keeps an old state's memory
      // (columns and runs replaced by a compaction or a growth) alive until its next job.
      for (const other of this.slots) {
        if (other === slot || other.job !== undefined || !other.ready || other.dead) continue;
        const newer = this.stateFor(other);
        if (newer !== undefined) other.worker.postMessage({ type: 'state', state: newer } satisfies ToWorker);
      }
    }
  }

  /** The store's latest state for a worker that does not hold it yet (else undefined). */
  private stateFor(slot: Slot): SharedStoreState | undefined {
    const source = this.options.state;
    if (slot.version === source.stateVersion && slot.storeId === source.storeId) return undefined;
    const state = source.shareState(slot.storeId === source.storeId ? slot.labels : 1);
    slot.storeId = state.storeId;
    slot.version = state.version;
    slot.labels = state.labelCount;
    return state;
  }

  /** The next waiting job for a worker that has become free. */
  private next(slot: Slot): void {
    if (slot.dead || slot.job !== undefined || !slot.ready || this.busy() >= this.options.size) return;
    const pending = this.queue.shift();
    if (pending !== undefined) this.dispatch(slot, pending);
  }

  private onMessage(slot: Slot, message: FromWorker): void {
    if (message.type === 'ready') {
      slot.ready = true;
      this.startFailures = 0;
      for (const waiter of this.readyWaiters.splice(0)) waiter.resolve();
      this.next(slot);
      return;
    }
    const pending = slot.job;
    if (pending === undefined || pending.id !== message.id) return; // a job that was given up on
    switch (message.type) {
      case 'head': {
        const stream = new ChunkStream((s) => this.credit(pending, s), () => this.cancel(pending));
        pending.stream = stream;
        this.settle(pending, { mediaType: message.mediaType, body: stream, failure: () => stream.failure });
        return;
      }
      case 'chunk': {
        const stream = pending.stream;
        if (stream !== undefined && !stream.destroyed && !stream.over) {
          stream.pushed++;
          stream.push(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
        }
        return;
      }
      case 'end':
        pending.stream?.finish();
        this.release(slot, pending);
        return;
      case 'graphql':
        this.settle(pending, { status: message.status, body: message.body, ok: message.ok, scans: message.scans });
        this.release(slot, pending);
        return;
      case 'error': {
        const error = new ForwardedError(message.reply, message.fault);
        if (message.fault !== undefined) this.options.log('error', { code: message.reply.body.code, cause: message.fault.message }, 'query failed in its worker');
        this.fail(pending, error);
        this.release(slot, pending);
        return;
      }
    }
  }

  /** The job is over on its worker: the worker takes the next one. */
  private release(slot: Slot, pending: Pending): void {
    pending.ended = true;
    this.finish(pending);
    if (slot.job === pending) slot.job = undefined;
    this.next(slot);
  }

  private credit(pending: Pending, stream: ChunkStream): void {
    const slot = pending.slot;
    if (pending.ended || slot === undefined || slot.dead || stream.pushed === stream.credited) return;
    const n = stream.pushed - stream.credited;
    stream.credited = stream.pushed;
    slot.worker.postMessage({ type: 'credit', id: pending.id, n } satisfies ToWorker);
  }

  /** The response stream went away before the end (the client left): stop the job. */
  private cancel(pending: Pending): void {
    const slot = pending.slot;
    if (pending.ended || slot === undefined || slot.dead) return;
    slot.worker.postMessage({ type: 'cancel', id: pending.id } satisfies ToWorker);
    pending.cancelTimer = this.timers.setTimeout(() => {
      if (!pending.ended && slot.job === pending) this.kill(slot, 'the client left and the query did not stop');
    }, CANCEL_GRACE_MS);
  }

  private overDeadline(pending: Pending): void {
    pending.deadlineTimer = undefined;
    if (pending.ended) return;
    const index = this.queue.indexOf(pending);
    if (index >= 0) this.queue.splice(index, 1);
    this.fail(pending, new SparqlError('QUERY_TIMEOUT', pending.slot === undefined ? 'no query worker became free before the deadline' : 'stopped at the deadline'));
    const slot = pending.slot;
    if (slot !== undefined && slot.job === pending) this.kill(slot, 'the query ran past its deadline');
  }

  /** Terminate a worker in the middle of its job and start another in its place. */
  private kill(slot: Slot, reason: string): void {
    if (slot.dead) return;
    this.killed++;
    this.options.log('warn', { reason }, 'query worker terminated');
    this.retire(slot);
    void slot.worker.terminate();
  }

  private onDeath(slot: Slot, error: Error): void {
    if (slot.dead) return;
    if (!slot.ready) this.startFailures++;
    else this.crashed++;
    this.options.log('error', { err: error, ready: slot.ready }, 'query worker died');
    const pending = slot.job;
    this.retire(slot);
    if (pending !== undefined) this.fail(pending, new GraphServerError('INTERNAL', 'the query worker stopped while answering', { cause: error }));
    if (this.startFailures >= MAX_START_FAILURES) {
      const cannot = new Error(`query workers cannot start (${this.startFailures} failed in a row): ${error.message}`);
      for (const waiter of this.readyWaiters.splice(0)) waiter.reject(cannot);
      for (const waiting of this.queue.splice(0)) this.fail(waiting, new GraphServerError('UNAVAILABLE', 'query workers cannot start: see the server log'));
    }
  }

  /** Take a slot out of the pool (its job ended for good) and start a replacement when needed. */
  private retire(slot: Slot): void {
    slot.dead = true;
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    const pending = slot.job;
    slot.job = undefined;
    if (pending !== undefined) {
      pending.ended = true;
      this.finish(pending);
      pending.stream?.failWith(new Error('the query stopped in the middle of its answer'));
    }
    this.topUp();
    // A ready spare takes the next waiting job now.
    const idle = this.slots.find((s) => s.ready && s.job === undefined && !s.dead);
    if (idle !== undefined) this.next(idle);
  }

  private settle(pending: Pending, value: SparqlAnswer | GraphqlAnswer): void {
    if (pending.settled) return;
    pending.settled = true;
    pending.resolve(value);
  }

  private fail(pending: Pending, error: Error): void {
    if (pending.settled) {
      // The answer had started: all that can be done is to cut it after what was sent (the client
      // sees a broken response, never a complete-looking partial one; ../routes/respond.ts).
      pending.stream?.failWith(error);
      return;
    }
    pending.settled = true;
    this.finish(pending);
    pending.reject(error);
  }

  private finish(pending: Pending): void {
    if (pending.deadlineTimer !== undefined) this.timers.clearTimeout(pending.deadlineTimer);
    if (pending.cancelTimer !== undefined) this.timers.clearTimeout(pending.cancelTimer);
    pending.deadlineTimer = undefined;
    pending.cancelTimer = undefined;
  }
}

/** ./worker.js beside the compiled pool; from the TypeScript sources (tests), the compiled one in
 * dist (`npm test` builds first). */
function defaultWorkerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL(here.replace(/\/src\/pool\/pool\.ts$/, '/dist/pool/worker.js'));
  return new URL('./worker.js', here);
}
