import type { RateLimitStore } from "@cellar/core";
import type { Pool } from "pg";

interface WindowRow {
  count: string;
  reset_at: Date;
}

export interface PostgresRateLimitStoreOptions {
  /**
   * Whose time opens and closes windows. `"database"` (the default): PostgreSQL's
   * `now()`, one clock for every instance, so instances whose clocks disagree still count
   * in the same windows and a window never ends early on one of them; the `now` a caller
   * passes is then ignored. `"caller"`: the `now` passed in, as core's contract suite and
   * tests with a fake clock need.
   */
  readonly clock?: "database" | "caller";
}

/**
 * Rate-limit windows in PostgreSQL, shared by every instance on the database: one upsert
 * counts a hit or opens a new window, under the row's lock, so concurrent hits from any
 * number of instances each count once.
 */
export function createPostgresRateLimitStore(pool: Pool, options: PostgresRateLimitStoreOptions = {}): RateLimitStore {
  const databaseClock = (options.clock ?? "database") === "database";
  // The caller's time is the last parameter of each statement; with the database's clock
  // it is not sent.
  const timeOf = (parameter: number) => (databaseClock ? "now()" : `$${parameter}::timestamptz`);
  const withTime = (values: unknown[], now: Date) => (databaseClock ? values : [...values, now]);
  const toWindow = (row: WindowRow) => ({ count: Number(row.count), resetAt: row.reset_at });
  const hitNow = timeOf(4);
  const hit = `
    INSERT INTO rate_windows AS w (key, count, reset_at)
    VALUES ($1, $3, ${hitNow} + $2 * interval '1 millisecond')
    ON CONFLICT (key) DO UPDATE SET
      count    = CASE WHEN w.reset_at <= ${hitNow} THEN $3 ELSE w.count + $3 END,
      reset_at = CASE WHEN w.reset_at <= ${hitNow} THEN ${hitNow} + $2 * interval '1 millisecond' ELSE w.reset_at END
    RETURNING count, reset_at`;
  const peek = `SELECT count, reset_at FROM rate_windows WHERE key = $1 AND reset_at > ${timeOf(2)}`;
  const deleteExpired = `DELETE FROM rate_windows WHERE reset_at <= ${timeOf(1)}`;
  return {
    async hit({ key, windowMs, now, hits = 1 }) {
      // Both CASEs read the row as it was before this statement.
      const { rows } = await pool.query<WindowRow>(hit, withTime([key, windowMs, hits], now));
      return toWindow(rows[0] as WindowRow);
    },
    async peek({ key, now }) {
      const { rows } = await pool.query<WindowRow>(peek, withTime([key], now));
      return rows[0] === undefined ? null : toWindow(rows[0]);
    },
    async deleteExpired(now) {
      const { rowCount } = await pool.query(deleteExpired, withTime([], now));
      return rowCount ?? 0;
    },
  };
}
