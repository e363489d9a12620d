import { type Clock, type RateLimitStore, type RateWindow, systemClock } from "@cellar/core";

export interface BufferedRateLimitStore extends RateLimitStore {
  /** Writes the hits counted since the last flush to the shared store. */
  flush(): Promise<void>;
  /** Stops the flush timer. Hits not yet flushed are dropped: windows are disposable. */
  stop(): void;
}

interface LocalWindow {
  /** Hits of this window as far as this process knows: the shared count plus its own since. */
  count: number;
  resetAt: Date;
  windowMs: number;
  /** Hits counted here and not yet written to the shared store. */
  pending: number;
}

/**
 * Counts rate-limit hits in memory and writes them to a shared store in batches, so a
 * request costs no write. A window's first hit in this process goes to the shared store
 * at once, so counting starts from what every process has counted; later hits are added
 * there every `flushMs`.
 *
 * In one process the counts are exact. Processes sharing the store see each other's hits
 * at most `flushMs` late, so together they may let a few more requests through in that
 * time than the limit allows.
 */
export function createBufferedRateLimitStore(
  shared: RateLimitStore,
  options: { flushMs?: number; clock?: Clock } = {},
): BufferedRateLimitStore {
  const clock = options.clock ?? systemClock;
  const windows = new Map<string, LocalWindow>();
  const opening = new Map<string, Promise<LocalWindow>>();
  let flushing: Promise<void> | undefined;

  const add = (window: LocalWindow, hits: number): RateWindow => {
    window.count += hits;
    window.pending += hits;
    return { count: window.count, resetAt: window.resetAt };
  };

  async function flushPending(): Promise<void> {
    const now = clock.now();
    for (const [key, window] of windows) {
      if (window.resetAt.getTime() <= now.getTime()) {
        windows.delete(key);
        continue;
      }
      if (window.pending === 0) continue;
      const sent = window.pending;
      const counted = await shared.hit({ key, windowMs: window.windowMs, now, hits: sent });
      // Hits counted here while the write was under way stay pending.
      window.pending -= sent;
      window.count = counted.count + window.pending;
      window.resetAt = counted.resetAt;
    }
  }

  const store: BufferedRateLimitStore = {
    async hit({ key, windowMs, now, hits = 1 }) {
      const known = windows.get(key);
      if (known !== undefined && known.resetAt.getTime() > now.getTime()) return add(known, hits);
      const inFlight = opening.get(key);
      if (inFlight !== undefined) return add(await inFlight, hits);
      // Hits of an ended window are dropped with it; the new window starts in the shared store.
      windows.delete(key);
      const start = shared.hit({ key, windowMs, now, hits }).then((counted) => {
        const window = { count: counted.count, resetAt: counted.resetAt, windowMs, pending: 0 };
        windows.set(key, window);
        return window;
      });
      opening.set(key, start);
      try {
        const counted = await start;
        return { count: counted.count - counted.pending, resetAt: counted.resetAt };
      } finally {
        opening.delete(key);
      }
    },

    async peek({ key, now }) {
      const known = windows.get(key);
      if (known !== undefined && known.resetAt.getTime() > now.getTime()) {
        return { count: known.count, resetAt: known.resetAt };
      }
      return shared.peek({ key, now });
    },

    async deleteExpired(now) {
      for (const [key, window] of windows) {
        if (window.resetAt.getTime() <= now.getTime()) windows.delete(key);
      }
      return shared.deleteExpired(now);
    },

    flush() {
      // `.finally` runs after the assignment, even when nothing was pending and the
      // flush finished at once; clearing inside the async body would run before it.
      flushing ??= flushPending().finally(() => {
        flushing = undefined;
      });
      return flushing;
    },

    stop() {
      clearInterval(timer);
    },
  };

  const timer = setInterval(() => {
    store.flush().catch(() => {
      // The next flush tries again; a lost batch only forgives a few requests.
    });
  }, options.flushMs ?? 100);
  timer.unref();
  return store;
}
