import type { Pool } from "pg";

/** The tables whose rows are kept: what every authenticated request reads by id. */
export type CachedTableName = "sessions" | "users" | "files";

export interface SharedRowCacheOptions {
  /** How often this instance reads the changes every instance made, in ms. Default 25. */
  readonly pollMs?: number;
  /**
   * How long a kept row is trusted after the start of the last successful read of
   * changes, in ms; and how long a write waits after committing before it is answered.
   * Default 100. Must be longer than `pollMs`, with room for a read of changes to finish.
   */
  readonly leaseMs?: number;
  /** Rows kept per table, oldest out first. Default 10,000. */
  readonly maxRows?: number;
}

/**
 * Rows read by id, kept in this instance's memory while every instance's writes are
 * known to leave them as they are: exact across instances, without a statement per read.
 *
 * Why: an authenticated request reads its session, its user and often a file. Read from
 * PostgreSQL, each is a round trip that costs about as much as a whole bare request
 * (docs/performance.md); kept here, a busy instance reads almost none of them.
 *
 * How a kept row stays exact:
 * - Every UPDATE or DELETE of a session, user or file, by any instance or any SQL, notes
 *   the row's id in `cellar_changes`, by trigger, in the writing transaction, tagged with
 *   that transaction's id (`xid8`).
 * - Every `pollMs` each instance reads the changes noted since its last read: those of
 *   transactions at or after the oldest one still running then (its snapshot's `xmin`),
 *   so a transaction that commits late is never skipped. It drops those rows.
 * - A kept row is used only while the last successful read of changes *started* less
 *   than `leaseMs` ago. That read saw every write committed before it started; a write
 *   it missed committed after it started, so its rows stop being trusted at most
 *   `leaseMs` after that write committed.
 * - So every write that changes a kept table waits `leaseMs` after committing before it
 *   returns (`settleWrite`): once a revocation, rename or trash is answered, no instance
 *   serves the old row. When the database cannot be read, the lease runs out and every
 *   read goes to the database (and fails there, as it should).
 * - A read from the database that overlapped a change it may have missed is returned but
 *   not kept (an epoch count): a row is kept only if nothing was dropped while it was read.
 *
 * Only rows that exist are kept (a miss is read again every time). Rows are frozen, so a
 * reader cannot change the copy the next reader gets.
 */
export interface SharedRowCache {
  table<T extends object>(name: CachedTableName): CachedRows<T>;
  /** Resolves once changes have been read a first time (rows are kept from then on), or once stopped. */
  ready(): Promise<void>;
  /** Waits until no instance trusts a kept row older than a write that has committed. */
  settleWrite(): Promise<void>;
  /** Stops reading changes; kept rows are no longer used. */
  stop(): void;
}

export interface CachedRows<T extends object> {
  /** The row with `id`: the kept one while trusted, else `load`'s (kept when it can be). */
  get(id: string, load: (id: string) => Promise<T | null>): Promise<T | null>;
  /** Drops the row with `id`: this instance wrote it. */
  forget(id: string): void;
}

/**
 * Changes are kept at least this long after their transaction ended: each instance
 * deletes those of transactions below a horizon it read this long ago. Horizons only
 * grow, so an instance that has read changes since then asks for none of them.
 */
const CHANGES_KEPT_MS = 10 * 60_000;
/** An instance that has not read changes for this long may have missed some deleted since: it drops every row. */
const FORGET_ALL_AFTER_MS = CHANGES_KEPT_MS / 2;
/** How often an instance notes the horizon it read, for the deletion CHANGES_KEPT_MS later. */
const PRUNE_EVERY_MS = 60_000;
/**
 * An instance that has read no row for this long stops reading changes: an idle server
 * sends PostgreSQL nothing. Its next read goes to the database (the lease has run out)
 * and starts reading changes again, from where it left off.
 */
const IDLE_AFTER_MS = 1_000;

interface ChangesRow {
  /** The oldest transaction id still running when the changes were read: the next read's start. */
  horizon: string;
  /** [change id, transaction id, table, row id] of each change noted at or after the given horizon. */
  changes: [string, string, CachedTableName, string][];
}

const READ_CHANGES = `
  SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon,
         coalesce((SELECT json_agg(json_build_array(id::text, xid::text, table_name, row_id))
                   FROM cellar_changes WHERE $1::xid8 IS NOT NULL AND xid >= $1::xid8), '[]') AS changes`;

export function createSharedRowCache(pool: Pool, options: SharedRowCacheOptions = {}): SharedRowCache {
  const pollMs = options.pollMs ?? 25;
  const leaseMs = options.leaseMs ?? 100;
  const maxRows = options.maxRows ?? 10_000;
  if (!(pollMs > 0 && leaseMs > pollMs)) {
    throw new RangeError(`leaseMs (${leaseMs}) must be longer than pollMs (${pollMs}), and both above 0.`);
  }
  const tables = new Map<CachedTableName, Map<string, object>>();
  const rowsOf = (name: CachedTableName) => {
    let rows = tables.get(name);
    if (rows === undefined) {
      rows = new Map();
      tables.set(name, rows);
    }
    return rows;
  };
  // Bumped whenever a row may have been dropped: a read that spans a bump is not kept.
  let epoch = 0;
  let horizon: bigint | null = null;
  let lastReadStartedAt = Number.NEGATIVE_INFINITY;
  // Horizons read, one a PRUNE_EVERY_MS, oldest first: deletion's watermarks.
  const horizonsRead: { at: number; horizon: bigint }[] = [];
  // Changes already applied that the next read may return again (their transaction is at
  // or after the horizon), by change id, with their transaction id.
  const applied = new Map<string, bigint>();
  let stopped = false;
  let polling = false;
  let lastUsedAt = performance.now();
  let timer: NodeJS.Timeout | undefined;

  const forgetAll = () => {
    for (const rows of tables.values()) rows.clear();
    applied.clear();
    epoch++;
  };

  async function readChanges(): Promise<void> {
    const startedAt = performance.now();
    // After so long, changes may have been deleted unseen: start afresh, asking for none.
    const behind = startedAt - lastReadStartedAt > FORGET_ALL_AFTER_MS;
    const { rows } = await pool.query<ChangesRow>(READ_CHANGES, [behind ? null : (horizon?.toString() ?? null)]);
    const read = rows[0] as ChangesRow;
    const next = BigInt(read.horizon);
    if (horizon === null || next < horizon || behind) {
      // The first read; a database whose transaction ids went back (another database
      // behind the same address); or a read after so long that changes may have been
      // pruned unseen.
      forgetAll();
    } else {
      let dropped = false;
      for (const [changeId, xid, table, rowId] of read.changes) {
        if (applied.has(changeId)) continue;
        applied.set(changeId, BigInt(xid));
        tables.get(table)?.delete(rowId);
        dropped = true;
      }
      if (dropped) epoch++;
    }
    for (const [changeId, xid] of applied) if (xid < next) applied.delete(changeId);
    horizon = next;
    lastReadStartedAt = startedAt;
    markReady();
    const latest = horizonsRead.at(-1);
    if (latest === undefined || startedAt - latest.at >= PRUNE_EVERY_MS)
      horizonsRead.push({ at: startedAt, horizon: next });
    let watermark: bigint | undefined;
    while (horizonsRead[0] !== undefined && startedAt - horizonsRead[0].at >= CHANGES_KEPT_MS) {
      watermark = horizonsRead.shift()?.horizon;
    }
    if (watermark !== undefined) {
      // Not awaited: a slow deletion must not hold up the next read of changes.
      pool.query("DELETE FROM cellar_changes WHERE xid < $1::xid8", [watermark.toString()]).catch(() => {
        // The next watermark deletes these too.
      });
    }
  }

  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  /** Reads changes now, then every `pollMs` while rows are being read. */
  const poll = () => {
    polling = true;
    readChanges()
      .catch(() => {
        // The lease runs out and reads go to the database until a read of changes succeeds.
      })
      .finally(() => {
        if (stopped || performance.now() - lastUsedAt > IDLE_AFTER_MS) {
          polling = false;
          return;
        }
        timer = setTimeout(poll, pollMs);
        timer.unref();
      });
  };
  poll();

  return {
    table<T extends object>(name: CachedTableName): CachedRows<T> {
      const rows = rowsOf(name) as Map<string, T>;
      return {
        async get(id, load) {
          const now = performance.now();
          lastUsedAt = now;
          if (!polling && !stopped) poll();
          if (now - lastReadStartedAt < leaseMs && !stopped) {
            const kept = rows.get(id);
            if (kept !== undefined) return kept;
          }
          const epochAtLoad = epoch;
          const loaded = await load(id);
          if (loaded === null || epoch !== epochAtLoad || stopped) return loaded;
          const frozen = Object.freeze(loaded);
          if (rows.size >= maxRows) {
            const oldest = rows.keys().next().value;
            if (oldest !== undefined) rows.delete(oldest);
          }
          rows.set(id, frozen);
          return frozen;
        },
        forget(id) {
          rows.delete(id);
          epoch++;
        },
      };
    },
    ready: () => ready,
    // A little over the lease: timers count whole milliseconds and may fire a fraction early.
    settleWrite: () => new Promise((resolve) => setTimeout(resolve, leaseMs + 2)),
    stop() {
      stopped = true;
      markReady();
      clearTimeout(timer);
      forgetAll();
    },
  };
}

/** For a pool whose rows are not kept: every read goes to the database, writes do not wait. */
export const NO_SHARED_ROW_CACHE: SharedRowCache = {
  table: <T extends object>(): CachedRows<T> => ({ get: (id, load) => load(id), forget() {} }),
  ready: async () => {},
  settleWrite: async () => {},
  stop() {},
};
