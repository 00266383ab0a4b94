/**
 * The supervisor of `ianode up`: each service is a child process (its own entry point), so a slow
 * graph query can never delay a sign-in. Started in order, each waited for by its health URL;
 * restarted after a crash with capped exponential back-off; stopped in reverse order on request.
 *
 * Decisions:
 * - A service that does not come up on the FIRST start (exits, or is not healthy within
 *   `startTimeoutMs`) is not retried: that is a port in use, a bad configuration or a damaged
 *   folder, which a retry does not fix. `start()` stops what it started and rejects.
 * - After that, a crash restarts the service after min(initialDelayMs · 2^(n-1), maxDelayMs), n the
 *   crashes in a row. A run that stayed healthy for `resetAfterMs` clears the count. A restart that
 *   exits before it is healthy, or is not healthy within `startTimeoutMs` (then it is killed), is
 *   another crash. Crash number `maxRestarts + 1` in a row gives up: everything is stopped and
 *   `done` resolves with exit code 1.
 * - Children run in their own process groups: a Ctrl-C reaches them once, forwarded by the
 *   supervisor, never twice (once from the terminal's group, once forwarded).
 * - Every line a child writes goes out tagged with its name: `[graph] text`, or for a JSON log line
 *   `{"service":"graph",…}` (the rest of the line byte for byte).
 * - Back-off, start and stop deadlines run on injected `Timers` (tests fire them; no real sleeps).
 *   Only the pause between two health probes is a real timer, and nothing depends on its length.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { request } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ServiceSpec {
  /** Tag of its lines and messages: `idp`, `access`, `graph`. */
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Answers 2xx to a GET once the service serves. */
  healthUrl: string;
  /** What the start messages call it (`identity provider on :9229`); default its name. */
  description?: string;
  /** How long a stop waits for it before SIGKILL (default: the supervisor's `stopTimeoutMs`). */
  stopTimeoutMs?: number;
}

export interface Timers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface RestartPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  /** A run healthy this long clears the count of crashes in a row. */
  resetAfterMs: number;
  /** Restarts in a row before giving up (the next crash stops everything). */
  maxRestarts: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { initialDelayMs: 1_000, maxDelayMs: 30_000, resetAfterMs: 60_000, maxRestarts: 5 };

export interface SupervisorOptions {
  timers?: Timers;
  restart?: Partial<RestartPolicy>;
  /** A (re)started service must answer its health URL within this (default 60 s). */
  startTimeoutMs?: number;
  /** Default wait for a stopping child before SIGKILL (10 s). */
  stopTimeoutMs?: number;
  /** Pause between two health probes (100 ms). */
  pollIntervalMs?: number;
  /** Where tagged lines and the supervisor's own messages go (default: this process's stdout/stderr). */
  write?: (stream: 'stdout' | 'stderr', text: string) => void;
  /** Health check (default: GET, 2xx = healthy, 2 s bound). */
  probe?: (url: string) => Promise<boolean>;
}

/** The delay before restart number `crashes` (1, 2, …) in a row. */
export function backoffDelay(policy: RestartPolicy, crashes: number): number {
  return Math.min(policy.initialDelayMs * 2 ** Math.max(0, crashes - 1), policy.maxDelayMs);
}

/** One line of a child, tagged: JSON objects get `"service"` as their first field, others `[name] `. */
export function tagLine(name: string, line: string): string {
  if (line.startsWith('{') && line.trimEnd().endsWith('}')) {
    try {
      const value: unknown = JSON.parse(line);
      if (value !== null && typeof value === 'object' && !Array.isArray(value) && !Object.hasOwn(value, 'service')) {
        const rest = line.slice(1).trimStart();
        return `{"service":${JSON.stringify(name)}${rest.startsWith('}') ? '' : ','}${rest}`;
      }
    } catch {
      // not JSON after all: tagged as text
    }
  }
  return `[${name}] ${line}`;
}

/** Longest pending text without a newline before it goes out as a line of its own. */
const MAX_LINE = 64 * 1024;

/** Cuts a byte stream into lines (UTF-8 safe across chunks); `end()` flushes a last partial line. */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  constructor(private readonly emit: (line: string) => void) {}

  push(chunk: Buffer | string): void {
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    let newline: number;
    while ((newline = this.pending.indexOf('\n')) >= 0) {
      this.emit(this.pending.slice(0, newline).replace(/\r$/, ''));
      this.pending = this.pending.slice(newline + 1);
    }
    while (this.pending.length > MAX_LINE) {
      this.emit(this.pending.slice(0, MAX_LINE));
      this.pending = this.pending.slice(MAX_LINE);
    }
  }

  end(): void {
    this.pending += this.decoder.end();
    if (this.pending !== '') this.emit(this.pending);
    this.pending = '';
  }
}

function httpProbe(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

interface Run {
  child: ChildProcess;
  pid: number | undefined;
  exit: Exit | undefined;
  exited: Promise<Exit>;
  healthySince: number | undefined;
}

interface Service {
  spec: ServiceSpec;
  run: Run | undefined;
  /** Up once: from then on a crash restarts it. */
  supervised: boolean;
  crashes: number;
  restartTimer: unknown;
}

function describeExit(exit: Exit): string {
  if (exit.error) return `could not run: ${exit.error.message}`;
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

export class SupervisorError extends Error {}

/**
 * Events: `running` (name, pid) once a (re)started child is healthy; `exit` (name, Exit);
 * `restart` (name, delayMs, crashes) when a restart is scheduled; `gave-up` (name).
 */
export class Supervisor extends EventEmitter {
  private readonly services: Service[];
  private readonly timers: Timers;
  private readonly policy: RestartPolicy;
  private readonly startTimeoutMs: number;
  private readonly stopTimeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly write: (stream: 'stdout' | 'stderr', text: string) => void;
  private readonly probe: (url: string) => Promise<boolean>;
  private stopping: Promise<void> | undefined;
  private exitCode = 0;
  private resolveDone!: (code: number) => void;
  /** The exit code once everything has stopped: 0 after `stop()`, 1 after giving up on a service. */
  readonly done: Promise<number>;

  constructor(specs: ServiceSpec[], options: SupervisorOptions = {}) {
    super();
    const names = new Set(specs.map((s) => s.name));
    if (names.size !== specs.length) throw new TypeError('service names must be distinct');
    this.services = specs.map((spec) => ({ spec, run: undefined, supervised: false, crashes: 0, restartTimer: undefined }));
    this.timers = options.timers ?? realTimers;
    this.policy = { ...DEFAULT_RESTART_POLICY, ...options.restart };
    this.startTimeoutMs = options.startTimeoutMs ?? 60_000;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.write = options.write ?? ((stream, text) => void process[stream].write(text));
    this.probe = options.probe ?? httpProbe;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  /** The pid of each service's current child (undefined while it is down). */
  pids(): Record<string, number | undefined> {
    return Object.fromEntries(this.services.map((s) => [s.spec.name, s.run?.exit === undefined ? s.run?.pid : undefined]));
  }

  /** Starts the services in order, each healthy before the next; rejects if one does not come up. */
  async start(): Promise<void> {
    for (const service of this.services) {
      if (this.stopping) throw new SupervisorError('stopped while starting');
      this.message('stdout', `starting ${service.spec.description ?? service.spec.name}…`);
      const run = this.launch(service);
      const healthy = await this.waitHealthy(run, service.spec);
      if (this.stopping) throw new SupervisorError('stopped while starting');
      if (!healthy) {
        const why = run.exit ? describeExit(run.exit) : `not healthy at ${service.spec.healthUrl} within ${this.startTimeoutMs} ms`;
        this.message('stderr', `${service.spec.name} did not start (${why}); stopping`);
        this.exitCode = 1;
        await this.stop('SIGTERM');
        throw new SupervisorError(`${service.spec.name} did not start (${why})`);
      }
      service.supervised = true;
      this.healthy(service, run, false);
    }
  }

  /** Forwards `signal` to each child in reverse order (graph, access, IdP), each waited for (bounded, then SIGKILL). */
  stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.stopping ??= (async () => {
      for (const service of this.services) {
        if (service.restartTimer !== undefined) this.timers.clearTimeout(service.restartTimer);
        service.restartTimer = undefined;
      }
      for (const service of [...this.services].reverse()) {
        const run = service.run;
        if (run === undefined || run.exit !== undefined) continue;
        run.child.kill(signal);
        const killTimer = this.timers.setTimeout(() => {
          if (run.exit !== undefined) return;
          this.message('stderr', `${service.spec.name} did not stop in time: SIGKILL`);
          run.child.kill('SIGKILL');
        }, service.spec.stopTimeoutMs ?? this.stopTimeoutMs);
        await run.exited;
        this.timers.clearTimeout(killTimer);
      }
      this.resolveDone(this.exitCode);
    })();
    return this.stopping;
  }

  /** Last resort when this process exits without a stop: SIGKILL every child still running. */
  killAll(): void {
    for (const service of this.services) {
      const run = service.run;
      if (run !== undefined && run.exit === undefined) run.child.kill('SIGKILL');
    }
  }

  private message(stream: 'stdout' | 'stderr', text: string): void {
    this.write(stream, `ianode: ${text}\n`);
  }

  private launch(service: Service): Run {
    const { spec } = service;
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let resolveExit!: (exit: Exit) => void;
    const run: Run = { child, pid: child.pid, exit: undefined, exited: new Promise((resolve) => (resolveExit = resolve)), healthySince: undefined };
    service.run = run;
    for (const stream of ['stdout', 'stderr'] as const) {
      const lines = new LineSplitter((line) => this.write(stream, `${tagLine(spec.name, line)}\n`));
      child[stream]!.on('data', (chunk: Buffer) => lines.push(chunk));
      child[stream]!.on('end', () => lines.end());
    }
    const finish = (exit: Exit) => {
      if (run.exit !== undefined) return;
      run.exit = exit;
      resolveExit(exit);
      this.emit('exit', spec.name, exit);
      this.exited(service, run);
    };
    child.on('error', (error) => {
      // A failed spawn may never emit 'close'; a failed kill of a live child changes nothing.
      if (child.pid === undefined) finish({ code: null, signal: null, error });
    });
    // 'close': the child has exited and its last lines have been written out.
    child.on('close', (code, signal) => finish({ code, signal }));
    return run;
  }

  private async waitHealthy(run: Run, spec: ServiceSpec): Promise<boolean> {
    let timedOut = false;
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const deadline = this.timers.setTimeout(() => {
      timedOut = true;
      wake();
    }, this.startTimeoutMs);
    const pause = new AbortController();
    try {
      for (;;) {
        if (run.exit !== undefined || timedOut || this.stopping) return false;
        if (await this.probe(spec.healthUrl)) return run.exit === undefined && !this.stopping;
        if (run.exit !== undefined || timedOut || this.stopping) return false;
        await Promise.race([sleep(this.pollIntervalMs, undefined, { signal: pause.signal }).catch(() => {}), run.exited, woken]);
      }
    } finally {
      pause.abort();
      this.timers.clearTimeout(deadline);
    }
  }

  private healthy(service: Service, run: Run, restarted: boolean): void {
    run.healthySince = this.timers.now();
    this.message('stdout', `${service.spec.name} ${restarted ? 'running again' : 'running'} (pid ${run.pid})`);
    this.emit('running', service.spec.name, run.pid);
  }

  private exited(service: Service, run: Run): void {
    if (service.run === run) service.run = undefined;
    if (this.stopping || !service.supervised) return;
    const exit = run.exit!;
    if (run.healthySince !== undefined && this.timers.now() - run.healthySince >= this.policy.resetAfterMs) service.crashes = 0;
    service.crashes += 1;
    const name = service.spec.name;
    if (service.crashes > this.policy.maxRestarts) {
      this.message('stderr', `${name} stopped (${describeExit(exit)}) ${service.crashes} times in a row without running healthy for ${this.policy.resetAfterMs} ms; giving up, stopping everything`);
      this.exitCode = 1;
      this.emit('gave-up', name);
      void this.stop('SIGTERM');
      return;
    }
    const delay = backoffDelay(this.policy, service.crashes);
    this.message('stderr', `${name} stopped (${describeExit(exit)}); restarting in ${delay} ms (${service.crashes} of at most ${this.policy.maxRestarts} restarts in a row)`);
    service.restartTimer = this.timers.setTimeout(() => {
      service.restartTimer = undefined;
      void this.restart(service);
    }, delay);
    this.emit('restart', name, delay, service.crashes);
  }

  private async restart(service: Service): Promise<void> {
    if (this.stopping) return;
    const run = this.launch(service);
    const healthy = await this.waitHealthy(run, service.spec);
    if (this.stopping || run.exit !== undefined) return; // an exit was counted as a crash already
    if (healthy) {
      this.healthy(service, run, true);
      return;
    }
    this.message('stderr', `${service.spec.name} not healthy at ${service.spec.healthUrl} within ${this.startTimeoutMs} ms: SIGKILL`);
    run.child.kill('SIGKILL'); // its exit counts as a crash
  }
}

/**
 * Ctrl-C, SIGTERM and SIGHUP stop the supervisor (SIGHUP is forwarded as SIGTERM); `onFirst` runs on
 * the first one, a repeated signal changes nothing. An exit of this process without a stop (an
 * uncaught error) SIGKILLs the children, which would otherwise outlive it in their own groups.
 */
export function stopOnSignals(supervisor: Supervisor, onFirst: (signal: NodeJS.Signals) => void): { readonly signalled: boolean } {
  const state = { signalled: false };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (!state.signalled) onFirst(signal);
      state.signalled = true;
      void supervisor.stop(signal === 'SIGHUP' ? 'SIGTERM' : signal);
    });
  }
  process.on('exit', () => supervisor.killAll());
  return state;
}
