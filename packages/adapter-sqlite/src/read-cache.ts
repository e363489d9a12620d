import type { Database } from "better-sqlite3";

/**
 * Rows read by id through one connection, kept while the database is unchanged.
 *
 * Why: an authenticated request reads its session and often a file with the caller's role
 * on it (the profile its user), each by id, and each read is a SQLite read transaction of
 * its own, with its file-lock system calls. Served from memory, the request costs none of
 * them.
 *
 * When a kept row is trusted:
 * - Writes through this connection: the repository that writes a row forgets it in the
 *   same call (`forget`, or `clear` for writes that touch many rows), so the next read
 *   sees the write.
 * - Commits by any other connection (another server on the same `DATA_DIR`, a script):
 *   `PRAGMA data_version` changes, and every kept row is dropped. That check is itself a
 *   read transaction, so it is made on the first read of each event-loop turn and again
 *   whenever the last one is more than `maxStaleMs` old. An idle server therefore sees
 *   every commit that happened before a request arrived; a busy one sees it within
 *   `maxStaleMs` (1 ms by default).
 * - A write that takes something away (a role removed or lowered, a file trashed or made
 *   private, a session revoked) awaits `settled()` before it is answered: by then every
 *   server on the `DATA_DIR` has looked at the commits since, so from the answer on, none
 *   serves the old row. Only those writes wait, about 2 ms; nothing else does.
 *
 * Only rows that exist are kept (a miss is read again every time), at most `maxRows` per
 * table, oldest first out. Rows are frozen, so a reader cannot reassign a field of the
 * copy the next reader gets; their `Date` fields are shared too and must never be changed
 * in place (nothing in Cellar does).
 *
 * What this cannot see, because `data_version` does not change for this connection's own
 * doings: raw SQL writes on the same `db`, a transaction on `db` that rolls back after a
 * repository wrote and read a row inside it, and a second cache on the same connection.
 * Call `clear()` after any of those, or do not enable the cache.
 */
export interface ReadCache {
  /** A table's kept rows. Every call with one name gives the same rows, under the options of the first. */
  table<T extends object>(name: string): CachedTable<T>;
  /** Drops every kept row of every table. */
  clear(): void;
  /**
   * Resolves once no cache on this database can still trust a row read before the call:
   * `maxStaleMs` and a millisecond later, since each looks at other connections' commits
   * at most `maxStaleMs` before any read it serves from memory. Every server on one
   * `DATA_DIR` must run with the same `maxStaleMs` (they do: it is not a setting).
   */
  settled(): Promise<void>;
}

export interface CachedTable<T extends object> {
  /** The row with `id`: the kept one while it can be trusted, else `load()`'s (kept unless null). */
  get(id: string, load: () => T | null): T | null;
  /** Drops the row with `id`: call it when writing that row. */
  forget(id: string): void;
  /** Drops every row of the table: call it when a write may touch rows not named by id. */
  clear(): void;
}

export interface ReadCacheOptions {
  /** Rows kept per table. Default 10,000. */
  readonly maxRows?: number;
  /** How old the last look at other connections' commits may be within one busy turn. Default 1 ms; for tests. */
  readonly maxStaleMs?: number;
}

/** Every server's `maxStaleMs`: how old a look at other connections' commits may be within a busy turn. */
const MAX_STALE_MS = 1;

/** Waits out every cache's `maxStaleMs`; timers fire no earlier than asked, and a millisecond more covers their rounding. */
const settledAfter = (maxStaleMs: number) => () =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.ceil(maxStaleMs) + 1));

/**
 * A cache that is never used: every read goes to the database. Its `settled()` still
 * waits, for the caches of other servers on the same database.
 */
export const NO_READ_CACHE: ReadCache = {
  table: <T extends object>(): CachedTable<T> => ({
    get: (_id, load) => load(),
    forget() {},
    clear() {},
  }),
  clear() {},
  settled: settledAfter(MAX_STALE_MS),
};

export function createReadCache(db: Database, options: ReadCacheOptions = {}): ReadCache {
  const maxRows = options.maxRows ?? 10_000;
  const maxStaleMs = options.maxStaleMs ?? MAX_STALE_MS;
  const dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
  const tables = new Map<string, Map<string, object>>();
  let seenVersion: number | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let checkedThisTurn = false;

  const clear = () => {
    for (const rows of tables.values()) rows.clear();
  };

  /** Drops everything if another connection has committed since the last look. */
  const revalidate = () => {
    const now = performance.now();
    if (checkedThisTurn && now - checkedAt < maxStaleMs) return;
    const version = dataVersion.get();
    if (version !== seenVersion) {
      clear();
      seenVersion = version;
    }
    checkedAt = now;
    if (!checkedThisTurn) {
      checkedThisTurn = true;
      setImmediate(() => {
        checkedThisTurn = false;
      }).unref();
    }
  };

  return {
    table<T extends object>(name: string): CachedTable<T> {
      let kept = tables.get(name) as Map<string, T> | undefined;
      if (kept === undefined) {
        kept = new Map<string, T>();
        tables.set(name, kept);
      }
      const rows = kept;
      return {
        get(id, load) {
          revalidate();
          const hit = rows.get(id);
          if (hit !== undefined) return hit;
          const row = load();
          if (row !== null) {
            if (rows.size >= maxRows) rows.delete(rows.keys().next().value as string);
            rows.set(id, Object.freeze(row));
          }
          return row;
        },
        forget(id) {
          rows.delete(id);
        },
        clear() {
          rows.clear();
        },
      };
    },
    clear,
    settled: settledAfter(maxStaleMs),
  };
}
