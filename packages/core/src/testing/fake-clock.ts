import type { Clock } from "../shared/clock.port.js";

export interface FakeClock extends Clock {
  /** Moves time on by `ms` (never back). */
  advance(ms: number): void;
  set(date: Date): void;
}

/** A clock that stands still until told to move. */
export function createFakeClock(start: Date = new Date("2026-01-01T00:00:00.000Z")): FakeClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance(ms) {
      if (ms < 0) throw new RangeError("A fake clock never goes backwards.");
      current += ms;
    },
    set(date) {
      current = date.getTime();
    },
  };
}
