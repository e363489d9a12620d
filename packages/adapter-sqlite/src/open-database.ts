import { closeSync, existsSync, openSync } from "node:fs";
import Database from "better-sqlite3";
import { migrate } from "./migrations.js";

export interface OpenDatabaseOptions {
  /** How long a writer waits for another connection's lock before failing, in ms. */
  readonly busyTimeoutMs?: number;
  /**
   * `full` (the default) fsyncs the write-ahead log at every commit: a committed write
   * survives a power cut. `off` is for data that may be lost, such as rate-limit windows.
   */
  readonly durability?: "full" | "off";
}

/**
 * Opens (creating if missing) a Cellar database and migrates it to the latest schema.
 * WAL lets readers run while one writer commits, including from other processes.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Database.Database {
  // A new database is created readable by its owner only; SQLite gives its -wal and -shm
  // files the same permissions.
  if (path !== ":memory:" && !existsSync(path)) closeSync(openSync(path, "a", 0o600));
  const db = new Database(path);
  try {
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // Switching a new file to WAL needs an exclusive lock. When another process opening
    // the same new database holds its write lock, SQLite answers BUSY at once rather than
    // risk a deadlock in its busy handler, so this step waits and retries itself.
    retryWhileBusy(() => db.pragma("journal_mode = WAL"), busyTimeoutMs);
    db.pragma("foreign_keys = ON");
    db.pragma(`synchronous = ${options.durability === "off" ? "OFF" : "FULL"}`);
    retryWhileBusy(() => migrate(db), busyTimeoutMs);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Runs `step`, retrying for up to `timeoutMs` while SQLite answers SQLITE_BUSY. */
function retryWhileBusy<T>(step: () => T, timeoutMs: number): T {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return step();
    } catch (error) {
      const busy = error instanceof Database.SqliteError && error.code.startsWith("SQLITE_BUSY");
      if (!busy || Date.now() >= deadline) throw error;
      // Opening happens once, at start-up: a short synchronous pause is fine here.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}
