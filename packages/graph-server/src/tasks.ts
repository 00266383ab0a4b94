/**
 * Long operations of the server (`/$/tasks`, as Fuseki's admin protocol): a backup runs as a task
 * and the request that started it answers at once with the task's id; the caller follows it with
 * `GET /$/tasks/{id}` (docs/operations.md "Backups").
 *
 * Ids are random UUIDs (not sequential, not guessable), so knowing one task says nothing of
 * another. Finished tasks are kept for a bounded time and number (the newest first), running ones
 * always. The clock is injected (`now`): tests need no wall clock.
 */
import { randomUUID } from 'node:crypto';

export type TaskState = 'running' | 'succeeded' | 'failed';

export interface TaskProgress {
  done: number;
  total?: number;
}

/** What `/$/tasks` shows of one task (a copy: changing it changes nothing). */
export interface TaskInfo {
  id: string;
  /** What it does, e.g. `backup`. */
  kind: string;
  /** The dataset it works on. */
  dataset: string;
  state: TaskState;
  /** ISO 8601 (UTC). */
  startedAt: string;
  finishedAt?: string;
  progress: TaskProgress;
  /** What a succeeded task returned. */
  result?: Record<string, unknown>;
  /** Why a failed task failed: the error's own code (a store or server code, or a system one such
   * as ENOSPC), else INTERNAL. Admin-only, so the message is the error's. */
  error?: { code: string; message: string };
}

export type TaskRun = (progress: (done: number, total?: number) => void) => Promise<Record<string, unknown>>;

export interface TasksOptions {
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /** Finished tasks kept at most (default 100). */
  keep?: number;
  /** Finished tasks are forgotten this long after they finished (default 24 h). */
  keepMs?: number;
  /** Told of each failure (for the log), with the error as thrown. */
  onFailure?: (task: TaskInfo, error: unknown) => void;
}

interface Entry {
  info: TaskInfo;
  finishedMs: number | undefined;
  settled: Promise<void>;
}

export class Tasks {
  private readonly now: () => number;
  private readonly keep: number;
  private readonly keepMs: number;
  private readonly onFailure: (task: TaskInfo, error: unknown) => void;
  /** In start order (a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>();

  constructor(options: TasksOptions = {}) {
    this.now = options.now ?? Date.now;
    this.keep = options.keep ?? 100;
    this.keepMs = options.keepMs ?? 24 * 3600_000;
    if (!Number.isInteger(this.keep) || this.keep < 0) throw new TypeError(`Tasks keep must be a whole number, got ${this.keep}`);
    if (!Number.isFinite(this.keepMs) || this.keepMs < 0) throw new TypeError(`Tasks keepMs must be a non-negative number, got ${this.keepMs}`);
    this.onFailure = options.onFailure ?? (() => undefined);
  }

  /** Starts `run` now (its first step runs before this returns) and returns the task as it is. */
  start(kind: string, dataset: string, run: TaskRun): TaskInfo {
    this.prune();
    const info: TaskInfo = { id: randomUUID(), kind, dataset, state: 'running', startedAt: iso(this.now()), progress: { done: 0 } };
    const entry: Entry = { info, finishedMs: undefined, settled: Promise.resolve() };
    this.entries.set(info.id, entry);
    const progress = (done: number, total?: number) => {
      if (info.state !== 'running') return;
      info.progress = total === undefined ? { done } : { done, total };
    };
    const finish = (state: TaskState, fields: Pick<TaskInfo, 'result' | 'error'>) => {
      const at = this.now();
      info.state = state;
      info.finishedAt = iso(at);
      Object.assign(info, fields);
      entry.finishedMs = at;
    };
    let body: Promise<Record<string, unknown>>;
    try {
      body = run(progress);
    } catch (error) {
      body = Promise.reject(error);
    }
    entry.settled = body.then(
      (result) => finish('succeeded', { result }),
      (error: unknown) => {
        finish('failed', { error: describe(error) });
        this.onFailure(copy(info), error);
      },
    );
    return copy(info);
  }

  get(id: string): TaskInfo | undefined {
    this.prune();
    const entry = this.entries.get(id);
    return entry === undefined ? undefined : copy(entry.info);
  }

  /** Every task kept, the newest first. */
  list(): TaskInfo[] {
    this.prune();
    return [...this.entries.values()].reverse().map((e) => copy(e.info));
  }

  /** A running task of this kind on this dataset, if there is one. */
  running(kind: string, dataset: string): TaskInfo | undefined {
    for (const e of this.entries.values()) if (e.info.state === 'running' && e.info.kind === kind && e.info.dataset === dataset) return copy(e.info);
    return undefined;
  }

  /** The task once it has finished (undefined for an unknown id). */
  async settled(id: string): Promise<TaskInfo | undefined> {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    await entry.settled;
    return copy(entry.info);
  }

  /** Waits for every running task (at shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.settled));
  }

  /** Forgets finished tasks past `keepMs`, then the oldest finished past `keep`. */
  private prune(): void {
    const now = this.now();
    const finished: string[] = [];
    for (const [id, e] of this.entries) {
      if (e.finishedMs === undefined) continue;
      if (now - e.finishedMs > this.keepMs) this.entries.delete(id);
      else finished.push(id);
    }
    for (let i = 0; i < finished.length - this.keep; i++) this.entries.delete(finished[i]!);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

function copy(info: TaskInfo): TaskInfo {
  return { ...info, progress: { ...info.progress } };
}

function describe(error: unknown): { code: string; message: string } {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return { code: typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : 'INTERNAL', message };
}
