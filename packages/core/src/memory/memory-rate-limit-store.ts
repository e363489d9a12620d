import type { RateLimitStore, RateWindow } from "../rate-limit/rate-limit-store.port.js";

export function createMemoryRateLimitStore(): RateLimitStore {
  const windows = new Map<string, RateWindow>();
  const live = (key: string, now: Date) => {
    const window = windows.get(key);
    return window !== undefined && window.resetAt.getTime() > now.getTime() ? window : undefined;
  };
  return {
    async hit({ key, windowMs, now, hits = 1 }) {
      const current = live(key, now);
      const next: RateWindow =
        current === undefined
          ? { count: hits, resetAt: new Date(now.getTime() + windowMs) }
          : { count: current.count + hits, resetAt: current.resetAt };
      windows.set(key, next);
      return next;
    },
    async peek({ key, now }) {
      return live(key, now) ?? null;
    },
    async deleteExpired(now) {
      let removed = 0;
      for (const [key, window] of windows) {
        if (window.resetAt.getTime() <= now.getTime()) {
          windows.delete(key);
          removed++;
        }
      }
      return removed;
    },
  };
}
