import type { RateLimitStore } from "@cellar/core";
import type { Database } from "better-sqlite3";
import { fromMillis } from "./sqlite-time.js";

interface WindowRow {
  count: number;
  reset_at: number;
}

/**
 * Rate-limit windows on SQLite, shared by every process on the database. Windows are
 * cheap to lose, so they may live in a database opened with `durability: "off"`.
 */
export function createSqliteRateLimitStore(db: Database): RateLimitStore {
  // One upsert counts the hit or opens a new window: atomic under SQLite's write lock.
  // Both CASEs read the row as it was before this statement.
  const hit = db.prepare<{ key: string; now: number; reset_at: number; hits: number }, WindowRow>(`
    INSERT INTO rate_windows (key, count, reset_at) VALUES (@key, @hits, @reset_at)
    ON CONFLICT (key) DO UPDATE SET
      count    = CASE WHEN reset_at <= @now THEN @hits ELSE count + @hits END,
      reset_at = CASE WHEN reset_at <= @now THEN @reset_at ELSE reset_at END
    RETURNING count, reset_at`);
  const peek = db.prepare<[string, number], WindowRow>(
    "SELECT count, reset_at FROM rate_windows WHERE key = ? AND reset_at > ?",
  );
  const deleteExpired = db.prepare("DELETE FROM rate_windows WHERE reset_at <= ?");
  const toWindow = (row: WindowRow) => ({ count: row.count, resetAt: fromMillis(row.reset_at) });

  return {
    async hit({ key, windowMs, now, hits = 1 }) {
      return toWindow(hit.get({ key, now: now.getTime(), reset_at: now.getTime() + windowMs, hits }) as WindowRow);
    },
    async peek({ key, now }) {
      const row = peek.get(key, now.getTime());
      return row === undefined ? null : toWindow(row);
    },
    async deleteExpired(now) {
      return deleteExpired.run(now.getTime()).changes;
    },
  };
}
