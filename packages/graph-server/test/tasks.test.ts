/**
 * The task registry (../src/tasks.ts): random ids, states and progress, results and errors, and
 * finished tasks kept for a bounded time and number, on an injected clock.
 */
import { describe, expect, it } from 'vitest';
import { Tasks } from '../src/tasks.js';

/** A promise settled from outside. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('Tasks', () => {
  it('a task runs, reports progress and ends with its result, on the injected clock', async () => {
    let clock = Date.UTC(2026, 0, 2, 3, 4, 5);
    const tasks = new Tasks({ now: () => clock });
    const gate = deferred<void>();
    let report!: (done: number, total?: number) => void;
    const started = tasks.start('backup', 'ds', async (progress) => {
      report = progress;
      await gate.promise;
      return { quads: 7 };
    });
    expect(started).toMatchObject({ kind: 'backup', dataset: 'ds', state: 'running', startedAt: '2026-01-02T03:04:05.000Z', progress: { done: 0 } });
    expect(started.finishedAt).toBeUndefined();
    report(3, 10);
    expect(tasks.get(started.id)?.progress).toEqual({ done: 3, total: 10 });
    expect(started.progress).toEqual({ done: 0 }); // what was returned is a copy
    expect(tasks.running('backup', 'ds')?.id).toBe(started.id);
    expect(tasks.running('backup', 'other')).toBeUndefined();
    clock += 1500;
    gate.resolve();
    const done = await tasks.settled(started.id);
    expect(done).toMatchObject({ state: 'succeeded', finishedAt: '2026-01-02T03:04:06.500Z', result: { quads: 7 } });
    expect(done?.error).toBeUndefined();
    expect(tasks.running('backup', 'ds')).toBeUndefined();
    report(9, 10); // late progress of a finished task changes nothing
    expect(tasks.get(started.id)?.progress).toEqual({ done: 3, total: 10 });
  });

  it('a failure keeps its code and message; a synchronous throw is a failure too; onFailure hears of it', async () => {
    const failures: string[] = [];
    const tasks = new Tasks({ now: () => 0, onFailure: (task, error) => failures.push(`${task.id} ${(error as Error).message}`) });
    const a = tasks.start('backup', 'ds', async () => {
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    });
    const b = tasks.start('backup', 'ds', () => {
      throw new Error('broken');
    });
    expect((await tasks.settled(a.id))?.error).toEqual({ code: 'ENOSPC', message: 'no space left on device' });
    expect(await tasks.settled(b.id)).toMatchObject({ state: 'failed', error: { code: 'INTERNAL', message: 'broken' } });
    expect(failures).toEqual([`${a.id} no space left on device`, `${b.id} broken`]);
  });

  it('ids are random UUIDs, not sequential; unknown ids are undefined; list is newest first', async () => {
    const tasks = new Tasks({ now: () => 0 });
    const ids = Array.from({ length: 20 }, () => tasks.start('backup', 'ds', async () => ({})).id);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(20);
    expect(tasks.list().map((t) => t.id)).toEqual([...ids].reverse());
    expect(tasks.get('00000000-0000-4000-8000-000000000000')).toBeUndefined();
    expect(await tasks.settled('nope')).toBeUndefined();
    await tasks.idle();
    expect(tasks.list().every((t) => t.state === 'succeeded')).toBe(true);
  });

  it('finished tasks are forgotten after keepMs and past keep; running ones never', async () => {
    let clock = 0;
    const tasks = new Tasks({ now: () => clock, keep: 2, keepMs: 1000 });
    const gate = deferred<void>();
    const long = tasks.start('backup', 'slow', async () => {
      await gate.promise;
      return {};
    });
    const quick = [];
    for (let i = 0; i < 3; i++) {
      const t = tasks.start('backup', `ds${i}`, async () => ({ i }));
      await tasks.settled(t.id);
      quick.push(t.id);
      clock += 100;
    }
    // Three finished, two kept (the newest), and the running one.
    expect(tasks.list().map((t) => t.id)).toEqual([quick[2], quick[1], long.id]);
    clock += 1000; // every finished one is now past keepMs
    expect(tasks.list().map((t) => t.id)).toEqual([long.id]);
    clock += 10_000_000;
    expect(tasks.get(long.id)?.state).toBe('running');
    gate.resolve();
    await tasks.settled(long.id);
    expect(tasks.get(long.id)?.state).toBe('succeeded');
    clock += 1001;
    expect(tasks.get(long.id)).toBeUndefined();
  });

  it('bad options are TypeErrors', () => {
    expect(() => new Tasks({ keep: -1 })).toThrow(TypeError);
    expect(() => new Tasks({ keepMs: Number.NaN })).toThrow(/keepMs/);
  });
});
