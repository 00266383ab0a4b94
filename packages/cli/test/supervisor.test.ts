/**
 * The supervisor of `ianode up` (issue 14) over a fixture child (test/fixtures/service.mjs), never
 * the real services: start in order by health, tagged lines, restart with back-off on the injected
 * timers (no real sleeps: the test fires each timer), giving up, stop in reverse order, SIGKILL after
 * the stop deadline, and a process that stops all its children on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RESTART_POLICY, LineSplitter, Supervisor, SupervisorError, tagLine, type ServiceSpec, type Timers } from '../src/supervisor.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** Timers that only fire when the test says so; `now` moves only when the test moves it. */
class ManualTimers implements Timers {
  t = 1_000_000;
  private nextId = 1;
  readonly pending = new Map<number, { callback: () => void; ms: number }>();
  now(): number {
    return this.t;
  }
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.set(id, { callback, ms });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** Fires every pending timer set for exactly `ms`; fails if there is none. */
  fire(ms: number): void {
    const due = [...this.pending].filter(([, t]) => t.ms === ms);
    expect(due.length, `a pending timer of ${ms} ms (pending: ${[...this.pending.values()].map((t) => t.ms).join(', ')})`).toBeGreaterThan(0);
    for (const [id, t] of due) {
      this.pending.delete(id);
      t.callback();
    }
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
    server.on('error', reject);
  });
}

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const START_MS = 60_000;
const STOP_MS = 5_000;
const policy = { initialDelayMs: 100, maxDelayMs: 300, resetAfterMs: 10_000, maxRestarts: 3 };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fixture(name: string, mode: string, extra: NodeJS.ProcessEnv = {}): Promise<ServiceSpec> {
  const port = await freePort();
  return {
    name,
    command: process.execPath,
    args: [path.join(fixtures, 'service.mjs')],
    env: { ...process.env, FIXTURE_NAME: name, FIXTURE_MODE: mode, FIXTURE_PORT: String(port), ...extra },
    healthUrl: `http://127.0.0.1:${port}/health`,
  };
}

function supervise(specs: ServiceSpec[]) {
  const timers = new ManualTimers();
  const out: Array<{ stream: string; line: string }> = [];
  const supervisor = new Supervisor(specs, {
    timers,
    restart: policy,
    startTimeoutMs: START_MS,
    stopTimeoutMs: STOP_MS,
    pollIntervalMs: 10,
    write: (stream, text) => {
      for (const line of text.split('\n').slice(0, -1)) out.push({ stream, line });
    },
  });
  cleanups.push(async () => {
    supervisor.killAll();
    await Promise.race([supervisor.stop(), supervisor.done]);
  });
  const lines = (stream?: string) => out.filter((o) => stream === undefined || o.stream === stream).map((o) => o.line);
  return { supervisor, timers, lines };
}

/** Crashes the child as a real crash would (SIGKILL) and returns the restart the supervisor scheduled. */
async function crash(supervisor: Supervisor, name: string): Promise<{ delay: number; crashes: number }> {
  const scheduled = once(supervisor, 'restart');
  process.kill(supervisor.pids()[name]!, 'SIGKILL');
  const [, delay, crashes] = (await scheduled) as [string, number, number];
  return { delay, crashes };
}

describe('tagged lines', () => {
  it('prefixes text lines and puts "service" first in JSON lines, the rest byte for byte', () => {
    expect(tagLine('graph', 'hello')).toBe('[graph] hello');
    expect(tagLine('graph', '{"level":30,"msg":"x"}')).toBe('{"service":"graph","level":30,"msg":"x"}');
    expect(JSON.parse(tagLine('idp', '{"n":12345678901234567890}'))).toMatchObject({ service: 'idp' });
    expect(tagLine('idp', '{"n":12345678901234567890}')).toContain('12345678901234567890');
    expect(tagLine('idp', '{}')).toBe('{"service":"idp"}');
    expect(tagLine('idp', '{"service":"own"}')).toBe('[idp] {"service":"own"}');
    expect(tagLine('idp', '{not json}')).toBe('[idp] {not json}');
    expect(tagLine('idp', '[1,2]')).toBe('[idp] [1,2]');
  });

  it('cuts chunks into lines across chunk and UTF-8 boundaries; the last partial line on end', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    const bytes = Buffer.from('a\r\nbé', 'utf8');
    splitter.push(bytes.subarray(0, 5)); // 'a\r\nb' + the first byte of é
    splitter.push(bytes.subarray(5));
    splitter.push('c\nd');
    expect(lines).toEqual(['a', 'béc']);
    splitter.end();
    expect(lines).toEqual(['a', 'béc', 'd']);
  });
});

describe('back-off', () => {
  it('doubles from the initial delay and is capped', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(DEFAULT_RESTART_POLICY, n))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect([1, 2, 3, 4].map((n) => backoffDelay(policy, n))).toEqual([100, 200, 300, 300]);
  });
});

describe('Supervisor', () => {
  it('starts the services in order, each healthy before the next, and tags every line of each', async () => {
    const { supervisor, lines } = supervise([await fixture('one', 'serve'), await fixture('two', 'serve')]);
    const running: string[] = [];
    supervisor.on('running', (name: string) => running.push(name));
    await supervisor.start();
    expect(running).toEqual(['one', 'two']);
    const pids = supervisor.pids();
    expect(alive(pids.one) && alive(pids.two)).toBe(true);
    expect(pids.one).not.toBe(pids.two);
    expect(lines('stdout')).toEqual(expect.arrayContaining(['[one] one started', '{"service":"one","level":40,"msg":"one json"}', '[two] two started', `ianode: one running (pid ${pids.one})`]));
    // 'one' was healthy before 'two' was started; each start is announced before its first line.
    expect(lines().indexOf(`ianode: one running (pid ${pids.one})`)).toBeLessThan(lines().indexOf('[two] two started'));
    expect(lines('stdout').indexOf('ianode: starting one…')).toBeLessThan(lines('stdout').indexOf('[one] one started'));
    expect(lines('stdout').indexOf(`ianode: one running (pid ${pids.one})`)).toBeLessThan(lines('stdout').indexOf('ianode: starting two…'));
    await supervisor.stop();
    expect(lines('stderr')).toEqual(expect.arrayContaining(['[one] one to stderr', '[two] two to stderr']));
    expect(await supervisor.done).toBe(0);
  });

  it('restarts a crashed child after the back-off delay, doubling while it keeps crashing, reset after a healthy period', async () => {
    const { supervisor, timers, lines } = supervise([await fixture('idp', 'serve'), await fixture('graph', 'serve')]);
    await supervisor.start();
    const idp = supervisor.pids().idp;
    const first = supervisor.pids().graph;

    expect(await crash(supervisor, 'graph')).toEqual({ delay: 100, crashes: 1 });
    expect(supervisor.pids().graph).toBeUndefined();
    expect(lines('stderr')).toContain('ianode: graph stopped (killed by SIGKILL); restarting in 100 ms (1 of at most 3 restarts in a row)');
    const back = once(supervisor, 'running');
    timers.fire(100);
    const [, second] = (await back) as [string, number];
    expect(second).not.toBe(first);
    expect(supervisor.pids().graph).toBe(second);
    expect(lines('stdout')).toContain(`ianode: graph running again (pid ${second})`);

    // Crashing again soon after: the delay doubles.
    timers.t += 1_000;
    expect(await crash(supervisor, 'graph')).toEqual({ delay: 200, crashes: 2 });
    const again = once(supervisor, 'running');
    timers.fire(200);
    await again;

    // After running healthy for resetAfterMs, a crash starts again from the initial delay.
    timers.t += policy.resetAfterMs;
    expect(await crash(supervisor, 'graph')).toEqual({ delay: 100, crashes: 1 });
    const third = once(supervisor, 'running');
    timers.fire(100);
    await third;
    // The other service was never touched.
    expect(supervisor.pids().idp).toBe(idp);
    expect(alive(idp)).toBe(true);
    await supervisor.stop();
    expect(await supervisor.done).toBe(0);
  });

  it('gives up on a service that keeps crashing right at start: stops everything, exit code 1', async () => {
    const state = mkdtempSync(path.join(tmpdir(), 'ianode-supervisor-'));
    cleanups.push(() => rmSync(state, { recursive: true, force: true }));
    const { supervisor, timers, lines } = supervise([
      await fixture('idp', 'serve'),
      await fixture('graph', 'crash-on-restart', { FIXTURE_STATE: path.join(state, 'started') }),
    ]);
    await supervisor.start();
    const idp = supervisor.pids().idp;
    const gaveUp = once(supervisor, 'gave-up');
    const delays: number[] = [];
    supervisor.on('restart', (_name: string, delay: number) => {
      delays.push(delay);
      // Each restart exits at once (code 3): the next restart is scheduled from its exit.
      timers.fire(delay);
    });
    process.kill(supervisor.pids().graph!, 'SIGKILL');
    expect(await gaveUp).toEqual(['graph']);
    expect(delays).toEqual([100, 200, 300]);
    expect(await supervisor.done).toBe(1);
    expect(alive(idp)).toBe(false);
    expect(lines('stderr')).toContain('ianode: graph stopped (exit code 3) 4 times in a row without running healthy for 10000 ms; giving up, stopping everything');
    expect(lines('stderr').filter((l) => l.startsWith('ianode: graph stopped (exit code 3); restarting'))).toHaveLength(2);
  });

  it('a service that does not come up on the first start is not retried: start() rejects, the started ones are stopped', async () => {
    const { supervisor, timers, lines } = supervise([await fixture('idp', 'serve'), await fixture('access', 'crash')]);
    const started = once(supervisor, 'running');
    const starting = supervisor.start();
    const [, idp] = (await started) as [string, number];
    await expect(starting).rejects.toThrow(new SupervisorError('access did not start (exit code 3)'));
    expect(await supervisor.done).toBe(1);
    expect(alive(idp)).toBe(false);
    expect(lines('stdout')).toContain('[access] access started');
    expect(lines('stdout')).toContain('[idp] idp stopping on SIGTERM');
    expect([...timers.pending.values()]).toEqual([]);
  });

  it('a first start that never becomes healthy fails when the start deadline fires, and the child is stopped', async () => {
    const { supervisor, timers } = supervise([await fixture('graph', 'unhealthy')]);
    const launched = once(supervisor, 'exit');
    const starting = supervisor.start();
    // Wait until the child runs and the deadline is pending, then let the deadline pass.
    await expect.poll(() => supervisor.pids().graph !== undefined && [...timers.pending.values()].some((t) => t.ms === START_MS)).toBe(true);
    const pid = supervisor.pids().graph;
    timers.fire(START_MS);
    await expect(starting).rejects.toThrow(/graph did not start \(not healthy at http:\/\/127\.0\.0\.1:\d+\/health within 60000 ms\)/);
    // It ignores nothing: the SIGTERM of the stop ends it.
    await launched;
    expect(alive(pid)).toBe(false);
  });

  it('stop forwards the signal in reverse order and SIGKILLs a child that outlives the stop deadline', async () => {
    const { supervisor, timers, lines } = supervise([await fixture('idp', 'serve'), await fixture('access', 'serve'), await fixture('graph', 'stubborn')]);
    await supervisor.start();
    const pids = supervisor.pids();
    const stopped = supervisor.stop('SIGINT');
    // The graph child ignores SIGINT: the others wait behind it until its deadline fires.
    await expect.poll(() => [...timers.pending.values()].some((t) => t.ms === STOP_MS)).toBe(true);
    expect(alive(pids.graph) && alive(pids.access) && alive(pids.idp)).toBe(true);
    timers.fire(STOP_MS);
    await stopped;
    expect(await supervisor.done).toBe(0);
    expect([pids.idp, pids.access, pids.graph].filter(alive)).toEqual([]);
    expect(lines('stderr')).toContain('ianode: graph did not stop in time: SIGKILL');
    const order = ['[access] access stopping on SIGINT', '[idp] idp stopping on SIGINT'].map((l) => lines().indexOf(l));
    expect(order[0]).toBeGreaterThanOrEqual(0);
    expect(order[0]).toBeLessThan(order[1]!);
  });
});

describe('a supervising process', () => {
  it('stops all its children on SIGTERM and exits 0', async () => {
    const specs = [await fixture('idp', 'serve'), await fixture('graph', 'serve')];
    const child = spawn(process.execPath, [path.join(fixtures, 'supervise.mjs')], { env: { ...process.env, SPECS: JSON.stringify(specs) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = once(child, 'exit');
    cleanups.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    await expect.poll(() => output.includes('pids '), { timeout: 30_000 }).toBe(true);
    const pids = JSON.parse(/pids (.*)/.exec(output)![1]!) as Record<string, number>;
    cleanups.push(() => {
      for (const pid of Object.values(pids)) if (alive(pid)) process.kill(pid, 'SIGKILL');
    });
    expect(Object.values(pids).every(alive)).toBe(true);
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
    expect(output).toContain('got SIGTERM');
    expect(output).toContain('[graph] graph stopping on SIGTERM');
    expect(output).toContain('[idp] idp stopping on SIGTERM');
    expect(Object.values(pids).filter(alive)).toEqual([]);
  });
});
