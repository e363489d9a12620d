import type { Database } from "better-sqlite3";

/** The better-sqlite3 connection type, for code that holds one without importing the driver. */
export type { Database } from "better-sqlite3";

import { createReadCache, NO_READ_CACHE, type ReadCacheOptions } from "./read-cache.js";
import { createSqliteMagicLinkRepository, createSqliteSessionRepository } from "./sqlite-auth-repositories.js";
import { createSqliteFileRepository } from "./sqlite-file-repository.js";
import { createSqliteUserRepository } from "./sqlite-user-repository.js";

export { MIGRATIONS, migrate, SchemaTooNewError } from "./migrations.js";
export { type OpenDatabaseOptions, openDatabase } from "./open-database.js";
export {
  type CachedTable,
  createReadCache,
  NO_READ_CACHE,
  type ReadCache,
  type ReadCacheOptions,
} from "./read-cache.js";
export { createSqliteMagicLinkRepository, createSqliteSessionRepository } from "./sqlite-auth-repositories.js";
export { createSqliteFileRepository } from "./sqlite-file-repository.js";
export { createSqliteRateLimitStore } from "./sqlite-rate-limit-store.js";
export { createSqliteUserRepository } from "./sqlite-user-repository.js";

export interface SqliteRepositoriesOptions {
  /**
   * Keep sessions, users and files read by id in memory while the database is unchanged
   * (see `ReadCache`): `true`, or the cache's options. Off by default. Turn it on only if
   * nothing writes through `db` except these repositories, no transaction on `db` that
   * writes through them rolls back, and there is one such set of repositories per
   * connection (other connections and other processes may write freely). Otherwise call
   * `forgetCachedReads()` after the write or the rollback.
   */
  readonly cacheReads?: boolean | ReadCacheOptions;
}

/** Every metadata repository of core on one database opened with `openDatabase`. */
export function createSqliteRepositories(db: Database, options: SqliteRepositoriesOptions = {}) {
  const { cacheReads = false } = options;
  const cache = cacheReads === false ? NO_READ_CACHE : createReadCache(db, cacheReads === true ? {} : cacheReads);
  return {
    files: createSqliteFileRepository(db, cache),
    users: createSqliteUserRepository(db, cache),
    sessions: createSqliteSessionRepository(db, cache),
    magicLinks: createSqliteMagicLinkRepository(db),
    /** Drops every kept row: call it after writing through `db` directly. */
    forgetCachedReads: () => cache.clear(),
  };
}
