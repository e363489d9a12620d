import type { RateLimitStore } from "@cellar/core";
import type { Pool } from "pg";

interface WindowRow {
  count: string;
  reset_at: Date;
}

/**
 * Rate-limit windows in PostgreSQL, shared by every instance on the database: one upsert
 * counts a hit or opens a new window, under the row's lock, so concurrent hits from any
 * number of instances each count once.
 */
export function createPostgresRateLimitStore(pool: Pool): RateLimitStore {
  const toWindow = (row: WindowRow) => ({ count: Number(row.count), resetAt: row.reset_at });
  return {
    async hit({ key, windowMs, now, hits = 1 }) {
      const resetAt = new Date(now.getTime() + windowMs);
      // Both CASEs read the row as it was before this statement.
      const { rows } = await pool.query<WindowRow>(
        `INSERT INTO rate_windows AS w (key, count, reset_at) VALUES ($1, $4, $3)
         ON CONFLICT (key) DO UPDATE SET
           count    = CASE WHEN w.reset_at <= $2 THEN $4 ELSE w.count + $4 END,
           reset_at = CASE WHEN w.reset_at <= $2 THEN $3 ELSE w.reset_at END
         RETURNING count, reset_at`,
        [key, now, resetAt, hits],
      );
      return toWindow(rows[0] as WindowRow);
    },
    async peek({ key, now }) {
      const { rows } = await pool.query<WindowRow>(
        "SELECT count, reset_at FROM rate_windows WHERE key = $1 AND reset_at > $2",
        [key, now],
      );
      return rows[0] === undefined ? null : toWindow(rows[0]);
    },
    async deleteExpired(now) {
      const { rowCount } = await pool.query("DELETE FROM rate_windows WHERE reset_at <= $1", [now]);
      return rowCount ?? 0;
    },
  };
}
