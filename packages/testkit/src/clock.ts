/**
 * Fake clocks, so no test asserts on the wall clock: code under test takes `now`/`clock`
 * (milliseconds, like Date.now) and the test decides what time it is.
 */

/** A clock that stands still until the test moves it. */
export interface ManualClock {
  /** The current reading (ms); tests may also set it directly. */
  t: number;
  now(): number;
  advance(ms: number): void;
}

export function manualClock(start = 0): ManualClock {
  const clock: ManualClock = {
    t: start,
    now: () => clock.t,
    advance: (ms) => {
      clock.t += ms;
    },
  };
  return clock;
}

/** A clock for deadlines: each reading advances it by `step` ms, so a deadline of n ms is passed
 * after about n/step readings, however fast or loaded the machine is. */
export interface TickingClock {
  /** Reads the clock (and advances it). */
  clock: () => number;
  /** How far it has advanced: the number of readings times `step`, plus `start`. */
  readings: () => number;
}

export function tickingClock(start = 0, step = 1): TickingClock {
  let t = start;
  return {
    clock: () => {
      const now = t;
      t += step;
      return now;
    },
    readings: () => t,
  };
}
