import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isFileSystemUnavailable, type MetadataStorage } from "@cellar/core";
import type { Database } from "better-sqlite3";
import { createBufferedRateLimitStore } from "./buffered-rate-limit-store.js";
import { JWT_SECRET_FILE, loadJwtSecret } from "./jwt-secret-file.js";
import { openDatabase } from "./open-database.js";
import { createSqliteChangeFeed } from "./sqlite-change-feed.js";
import { createSqliteRateLimitStore } from "./sqlite-rate-limit-store.js";
import { createSqliteRepositories } from "./sqlite-repositories.js";

export interface SqliteStorageOptions {
  /** The folder the databases (`cellar.db`, `rate-limits.db`) and the generated JWT key go in; made 0700 if missing. */
  readonly dataDir: string;
}

/** Cellar's metadata in SQLite, and what a tool that moves it elsewhere reads. */
export interface SqliteStorage extends MetadataStorage {
  /** The connection to `cellar.db`, for tools and tests that read it directly. Writing through it bypasses the read cache. */
  readonly db: Database;
  /** The ids of every user, session, file or permission, in id order: for moving an install to another engine. */
  ids(table: "users" | "sessions" | "files" | "permissions"): string[];
  /** The generated JWT key kept beside the databases, if one was ever made. */
  keptJwtSecret(): string | undefined;
}

/**
 * SQLite's result codes that mean the database cannot serve for now rather than that the
 * statement is wrong: locked past the busy timeout, an I/O error, a full or read-only disk.
 * Extended codes (SQLITE_IOERR_WRITE, SQLITE_BUSY_SNAPSHOT…) share their base's prefix.
 */
const SQLITE_UNAVAILABLE = [
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_IOERR",
  "SQLITE_CANTOPEN",
  "SQLITE_FULL",
  "SQLITE_READONLY",
];

export function isSqliteUnavailable(error: unknown): boolean {
  if (isFileSystemUnavailable(error)) return true;
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  return typeof code === "string" && SQLITE_UNAVAILABLE.some((base) => code === base || code.startsWith(`${base}_`));
}

/** Whether `dataDir` holds an install of this adapter (its `cellar.db`). */
export function sqliteStorageExists(options: SqliteStorageOptions): boolean {
  return existsSync(join(options.dataDir, "cellar.db"));
}

/**
 * Opens (creating and migrating) the embedded default's metadata under `dataDir`.
 *
 * - `cellar.db`: users, sessions, access tokens, sign-in links, files and sheet indexes, permissions,
 *   activity and comments, in WAL mode, fsynced at every commit. Sessions, users, and files read by id
 *   with the caller's role, are kept in memory while the database is unchanged
 *   (`ReadCache`: other processes on the same folder are noticed through SQLite's
 *   data_version, before every read of a role), so a repeated read costs no query.
 * - `rate-limits.db`: rate-limit windows, without fsync (losing them in a power cut only
 *   forgives a few requests), counted in memory and written every 100 ms, so a request
 *   costs no write. Several servers on one folder see each other's counts within 100 ms.
 * - `jwt-secret`: the generated JWT key (0600), when none is configured.
 *
 * Its change feed reaches every server on the folder (`createSqliteChangeFeed`).
 */
export async function openSqliteStorage(options: SqliteStorageOptions): Promise<SqliteStorage> {
  const { dataDir } = options;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(dataDir, "cellar.db"));
  let rateDb: Database | undefined;
  try {
    rateDb = openDatabase(join(dataDir, "rate-limits.db"), { durability: "off" });
    const rateLimits = createBufferedRateLimitStore(createSqliteRateLimitStore(rateDb), { flushMs: 100 });
    const repositories = createSqliteRepositories(db, { cacheReads: true });
    const openedRateDb = rateDb;
    const changeFeed = createSqliteChangeFeed(db);
    return {
      db,
      changeFeed,
      files: repositories.files,
      sheetIndexes: repositories.files,
      users: repositories.users,
      sessions: repositories.sessions,
      accessTokens: repositories.accessTokens,
      magicLinks: repositories.magicLinks,
      permissions: repositories.permissions,
      activity: repositories.activity,
      versions: repositories.versions,
      streamLeases: repositories.streamLeases,
      comments: repositories.comments,
      webhooks: repositories.webhooks,
      rateLimits,
      async ping() {
        db.prepare("SELECT 1").get();
      },
      isUnavailable: isSqliteUnavailable,
      async sharedJwtSecret(proposed) {
        return loadJwtSecret(dataDir, proposed);
      },
      ids: (table) => db.prepare(`SELECT id FROM ${table} ORDER BY id`).pluck().all() as string[],
      keptJwtSecret() {
        const path = join(dataDir, JWT_SECRET_FILE);
        return existsSync(path) ? readFileSync(path, "utf8").trim() : undefined;
      },
      async close() {
        changeFeed.stop();
        rateLimits.stop();
        db.close();
        openedRateDb.close();
      },
    };
  } catch (error) {
    db.close();
    rateDb?.close();
    throw error;
  }
}
