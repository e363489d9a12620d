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
 *   `maxStaleMs` (1 ms by default). A table made with `checkEveryRead` (roles) is checked
 *   before each of its reads instead: every commit answered before the read is seen.
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
  table<T extends object>(name: string, options?: CachedTableOptions): CachedTable<T>;
  /** Drops every kept row of every table. */
  clear(): void;
}

export interface CachedTable<T extends object> {
  /** The row with `id`: the kept one while it can be trusted, else `load()`'s (kept unless null). */
  get(id: string, load: () => T | null): T | null;
  /** Drops the row with `id`: call it when writing that row. */
  forget(id: string): void;
  /** Drops every row of the table: call it when a write may touch rows not named by id. */
  clear(): void;
}

export interface CachedTableOptions {
  /**
   * Look at other connections' commits before every read of this table, not once per
   * turn: for rows whose staleness would let someone do what they may no longer do (a
   * role taken away by another server is refused by the very next read). The look is one
   * `PRAGMA data_version`: a file read with a kept role still costs a tenth of the query
   * (`bench/storage.bench.ts`: 0.004 ms against 0.043 ms). Default false.
   */
  readonly checkEveryRead?: boolean;
}

export interface ReadCacheOptions {
  /** Rows kept per table. Default 10,000. */
  readonly maxRows?: number;
  /** How old the last look at other connections' commits may be within one busy turn. Default 1 ms. */
  readonly maxStaleMs?: number;
}

/** A cache that is never used: every read goes to the database. */
export const NO_READ_CACHE: ReadCache = {
  table: <T extends object>(): CachedTable<T> => ({
    get: (_id, load) => load(),
    forget() {},
    clear() {},
  }),
  clear() {},
};

export function createReadCache(db: Database, options: ReadCacheOptions = {}): ReadCache {
  const maxRows = options.maxRows ?? 10_000;
  const maxStaleMs = options.maxStaleMs ?? 1;
  const dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
  const tables = new Map<string, { rows: Map<string, object>; checkEveryRead: boolean }>();
  let seenVersion: number | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let checkedThisTurn = false;

  const clear = () => {
    for (const { rows } of tables.values()) rows.clear();
  };

  /** Drops everything if another connection has committed since the last look. */
  const revalidate = (always: boolean) => {
    const now = performance.now();
    if (!always && checkedThisTurn && now - checkedAt < maxStaleMs) return;
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
    table<T extends object>(name: string, tableOptions: CachedTableOptions = {}): CachedTable<T> {
      let table = tables.get(name) as { rows: Map<string, T>; checkEveryRead: boolean } | undefined;
      if (table === undefined) {
        table = { rows: new Map<string, T>(), checkEveryRead: tableOptions.checkEveryRead ?? false };
        tables.set(name, table);
      }
      const { rows: kept, checkEveryRead } = table;
      return {
        get(id, load) {
          revalidate(checkEveryRead);
          const hit = kept.get(id);
          if (hit !== undefined) return hit;
          const row = load();
          if (row !== null) {
            if (kept.size >= maxRows) kept.delete(kept.keys().next().value as string);
            kept.set(id, Object.freeze(row));
          }
          return row;
        },
        forget(id) {
          kept.delete(id);
        },
        clear() {
          kept.clear();
        },
      };
    },
    clear,
  };
}
