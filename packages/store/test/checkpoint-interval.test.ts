/**
 * Checkpoints by time (StoreOptions.checkpointIntervalMs): once the log holds something and the
 * interval has passed since the last checkpoint, one is written, by a timer when no commit comes.
 * The clock and timer are injected.
 */
import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { openStore, type KeyQuad, type QuadStore, type StoreClock } from '@ianode/store';
import { lines, quadsOf } from './support/quads.js';
import { tempDirs } from '@ianode/testkit';

const tempDir = tempDirs('interval');

/** A manual clock: `advance` moves time and runs the timers that fall due. */
class ManualClock implements StoreClock {
  private time = 1_000_000;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private nextId = 1;

  now(): number {
    return this.time;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  get pending(): number {
    return this.timers.size;
  }
  /** Move time without running timers (a timer that fires late). */
  skip(ms: number): void {
    this.time += ms;
  }
  advance(ms: number): void {
    this.time += ms;
    for (const [id, t] of [...this.timers]) {
      if (t.at <= this.time) {
        this.timers.delete(id);
        t.fn();
      }
    }
  }
}

function quad(n: number): KeyQuad {
  return { s: `<http://ex/s${n}`, p: '<http://ex/p', o: `"${n}"`, g: '' };
}

const checkpoints = async (dir: string) => (await readdir(dir)).filter((f) => f.endsWith('.ckpt'));

/** Let queued store work (the timer's checkpoint runs on the writer chain) finish. */
async function settle(store: QuadStore): Promise<void> {
  await store.transaction(() => undefined);
}

describe('checkpoint interval', () => {
  it('checkpoints a non-empty log once the interval has passed, by timer', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const store = await openStore({ dir, checkpointIntervalMs: 60_000, clock });
    expect(clock.pending).toBe(0); // an empty log needs no checkpoint
    await store.transaction((tx) => tx.add(quad(1)));
    expect(store.stats().logBytes).toBeGreaterThan(0);
    expect(clock.pending).toBe(1);
    clock.advance(59_999);
    await settle(store);
    expect(await checkpoints(dir)).toEqual([]);
    clock.advance(1);
    await settle(store);
    expect(await checkpoints(dir)).toEqual(['checkpoint-0000000001.ckpt']);
    expect(store.stats().logBytes).toBe(0);
    expect(clock.pending).toBe(0); // nothing to checkpoint until the next commit
    await store.close();
    const reopened = await openStore({ dir });
    expect(quadsOf(reopened)).toEqual(lines(quad(1)));
    await reopened.close();
  });

  it('counts from the last checkpoint, and a commit past the interval checkpoints at once', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const store = await openStore({ dir, checkpointIntervalMs: 60_000, clock });
    await store.transaction((tx) => tx.add(quad(1)));
    clock.advance(30_000);
    await store.checkpoint(); // by hand: the interval starts again here
    await store.transaction((tx) => tx.add(quad(2)));
    clock.advance(59_000);
    await settle(store);
    expect(store.stats().logBytes).toBeGreaterThan(0);
    expect(clock.pending).toBe(1);
    // A commit after the interval has passed (before the late timer fires) checkpoints itself.
    clock.skip(1_000);
    await store.transaction((tx) => tx.add(quad(3)));
    expect(store.stats().logBytes).toBe(0);
    expect(await checkpoints(dir)).toContain('checkpoint-0000000003.ckpt');
    await store.close();
    expect(clock.pending).toBe(0);
  });

  it('writes no checkpoint by time when the interval is 0 (the default)', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const store = await openStore({ dir, clock });
    await store.transaction((tx) => tx.add(quad(1)));
    expect(clock.pending).toBe(0);
    clock.advance(365 * 24 * 3600_000);
    await settle(store);
    expect(await checkpoints(dir)).toEqual([]);
    await store.close();
  });
});
