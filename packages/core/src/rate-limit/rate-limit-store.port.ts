/** A fixed window of counted hits on one key. */
export interface RateWindow {
  readonly count: number;
  /** When the window ends and the count starts again from zero. */
  readonly resetAt: Date;
}

/**
 * Counts hits per key in fixed windows that start at a key's first hit.
 *
 * Guarantees an implementation owes (checked by `rateLimitStoreContract`):
 * - `hit` is atomic: N concurrent hits on one key raise its count by exactly N;
 * - `hit` counts `hits` (default 1) at once: a key with no window, or whose window's
 *   `resetAt` is at or before `now`, starts a new window with count `hits` ending at
 *   `now + windowMs`; otherwise the count goes up by `hits` and `resetAt` stays;
 * - `peek` returns the live window without counting, or null when there is none;
 * - keys are independent of one another;
 * - `deleteExpired` forgets windows that ended at or before `now` and says how many.
 */
export interface RateLimitStore {
  hit(input: { key: string; windowMs: number; now: Date; hits?: number }): Promise<RateWindow>;
  peek(input: { key: string; now: Date }): Promise<RateWindow | null>;
  deleteExpired(now: Date): Promise<number>;
}
