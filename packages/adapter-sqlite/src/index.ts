/**
 * `@cellar/adapter-sqlite`: Cellar's metadata in SQLite (better-sqlite3). `openSqliteStorage`
 * opens the embedded default from a folder; the repositories are exported one by one for
 * embedders who hold a database of their own.
 */

/** The better-sqlite3 connection type, for code that holds one without importing the driver. */
export type { Database } from "better-sqlite3";
export { type BufferedRateLimitStore, createBufferedRateLimitStore } from "./buffered-rate-limit-store.js";
export { MIGRATIONS, migrate, SchemaTooNewError } from "./migrations.js";
export { type OpenDatabaseOptions, openDatabase } from "./open-database.js";
export {
  type CachedTable,
  createReadCache,
  NO_READ_CACHE,
  type ReadCache,
  type ReadCacheOptions,
} from "./read-cache.js";
export { createSqliteActivityRepository } from "./sqlite-activity-repository.js";
export {
  createSqliteAccessTokenRepository,
  createSqliteMagicLinkRepository,
  createSqliteSessionRepository,
} from "./sqlite-auth-repositories.js";
export { createSqliteCommentRepository } from "./sqlite-comment-repository.js";
export { createSqliteFileRepository } from "./sqlite-file-repository.js";
export { createSqlitePermissionRepository } from "./sqlite-permission-repository.js";
export { createSqliteRateLimitStore } from "./sqlite-rate-limit-store.js";
export { createSqliteRepositories, type SqliteRepositoriesOptions } from "./sqlite-repositories.js";
export {
  isSqliteUnavailable,
  openSqliteStorage,
  type SqliteStorage,
  type SqliteStorageOptions,
  sqliteStorageExists,
} from "./sqlite-storage.js";
export { createSqliteUserRepository } from "./sqlite-user-repository.js";
export { createSqliteVersionRepository } from "./sqlite-version-repository.js";
export { createSqliteWebhookRepository } from "./sqlite-webhook-repository.js";
