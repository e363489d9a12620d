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
    db.pragma("journal_mode = WAL");
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    db.pragma("foreign_keys = ON");
    db.pragma(`synchronous = ${options.durability === "off" ? "OFF" : "FULL"}`);
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
