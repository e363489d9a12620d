import type { RateLimitStore, RateWindow } from "@cellar/core";
import type { Pool } from "pg";
import { statementBatches } from "./statement-batches.js";

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
 * counts hits or opens a new window, under the row's lock, so concurrent hits from any
 * number of instances each count once.
 *
 * Hits made while an upsert is under way go together in the next one
 * (`statementBatches`): each key appears once in it, with the sum of its hits, and each
 * call gets the count it would have had alone — the window's count before the statement
 * plus its own hits and those of the calls on that key made before it.
 */
export function createPostgresRateLimitStore(pool: Pool, options: PostgresRateLimitStoreOptions = {}): RateLimitStore {
  const databaseClock = (options.clock ?? "database") === "database";
  // The caller's time is the last parameter of each statement; with the database's clock
  // it is not sent.
  const timeOf = (parameter: number) => (databaseClock ? "now()" : `$${parameter}::timestamptz`);
  const withTime = (values: unknown[], now: Date) => (databaseClock ? values : [...values, now]);
  const toWindow = (row: WindowRow) => ({ count: Number(row.count), resetAt: row.reset_at });
  const hitNow = timeOf(4);
  // Both CASEs read the row as it was before this statement.
  const hit = `
    INSERT INTO rate_windows AS w (key, count, reset_at)
    SELECT key, hits, ${hitNow} + window_ms * interval '1 millisecond'
    FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS t(key, window_ms, hits, n)
    ORDER BY n
    ON CONFLICT (key) DO UPDATE SET
      count    = CASE WHEN w.reset_at <= ${hitNow} THEN excluded.count ELSE w.count + excluded.count END,
      reset_at = CASE WHEN w.reset_at <= ${hitNow} THEN excluded.reset_at ELSE w.reset_at END
    RETURNING key, count, reset_at`;
  const peek = `SELECT count, reset_at FROM rate_windows WHERE key = $1 AND reset_at > ${timeOf(2)}`;
  const deleteExpired = `DELETE FROM rate_windows WHERE reset_at <= ${timeOf(1)}`;

  /**
   * One upsert for keys that each appear once, at one time. The rows are locked in the
   * keys' order, the same in every statement of every instance: two upserts sharing keys
   * would otherwise each hold a row the other waits for, a deadlock PostgreSQL breaks by
   * failing one of them.
   */
  async function upsert(unordered: readonly KeyHits[], now: Date): Promise<Map<string, WindowRow>> {
    const keys = [...unordered].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const { rows } = await pool.query<WindowRow & { key: string }>(
      hit,
      withTime([keys.map((k) => k.key), keys.map((k) => k.windowMs), keys.map((k) => k.hits)], now),
    );
    return new Map(rows.map((row) => [row.key, row]));
  }

  const hitBatched = statementBatches<HitCall, RateWindow>(async (calls) => {
    const answers: RateWindow[] = [];
    // A key appears once per upsert (PostgreSQL refuses to update one row twice in a
    // statement). With the caller's clock, hits on one key at different times need
    // upserts of their own, in the order they were made; with the database's, one does.
    for (const round of rounds(calls, databaseClock)) {
      const windows = await upsert([...round.keys.values()], round.now);
      for (const { index, key, before } of round.calls) {
        const total = round.keys.get(key) as KeyHits;
        const window = toWindow(windows.get(key) as WindowRow);
        const own = (calls[index] as HitCall).hits;
        answers[index] = { count: window.count - total.hits + before + own, resetAt: window.resetAt };
      }
    }
    return answers;
  });

  return {
    hit: ({ key, windowMs, now, hits = 1 }) => hitBatched({ key, windowMs, now, hits }),
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

interface HitCall {
  readonly key: string;
  readonly windowMs: number;
  readonly now: Date;
  readonly hits: number;
}

interface KeyHits {
  readonly key: string;
  /** The window length of the key's first call in the upsert: the one that may open it. */
  readonly windowMs: number;
  hits: number;
}

interface UpsertRound {
  readonly now: Date;
  readonly keys: Map<string, KeyHits>;
  /** Which calls this upsert answers, and the hits of earlier calls on the same key in it. */
  readonly calls: { index: number; key: string; before: number }[];
}

/**
 * The calls of a batch as upserts run one after another. A key's calls keep the order
 * they were made in: each joins its key's latest round when that round is at the same
 * time (always, on the database's clock), otherwise a later round at its time.
 */
function rounds(calls: readonly HitCall[], oneTime: boolean): UpsertRound[] {
  const result: UpsertRound[] = [];
  const latestRoundOf = new Map<string, number>();
  calls.forEach((call, index) => {
    const atCallTime = (round: UpsertRound) => oneTime || round.now.getTime() === call.now.getTime();
    const latest = latestRoundOf.get(call.key);
    let at = latest ?? 0;
    while (at < result.length && !atCallTime(result[at] as UpsertRound)) at++;
    let round = result[at];
    if (round === undefined) {
      round = { now: call.now, keys: new Map(), calls: [] };
      result.push(round);
      at = result.length - 1;
    }
    latestRoundOf.set(call.key, at);
    const counted = round.keys.get(call.key);
    round.calls.push({ index, key: call.key, before: counted?.hits ?? 0 });
    if (counted === undefined) round.keys.set(call.key, { key: call.key, windowMs: call.windowMs, hits: call.hits });
    else counted.hits += call.hits;
  });
  return result;
}
