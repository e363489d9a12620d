import type { Pool } from "pg";
import { createPostgresMagicLinkRepository, createPostgresSessionRepository } from "./pg-auth-repositories.js";
import { createPostgresFileRepository } from "./pg-file-repository.js";
import { createPostgresUserRepository } from "./pg-user-repository.js";
import { NO_SHARED_ROW_CACHE, type SharedRowCache } from "./shared-row-cache.js";

/** The pg connection pool type, for code that holds one without importing the driver. */
export type { Pool } from "pg";
export { MIGRATIONS, migrate, SchemaTooNewError } from "./migrations.js";
export { createPostgresMagicLinkRepository, createPostgresSessionRepository } from "./pg-auth-repositories.js";
export { createPostgresFileRepository } from "./pg-file-repository.js";
export { createPostgresRateLimitStore } from "./pg-rate-limit-store.js";
export { createPostgresUserRepository } from "./pg-user-repository.js";
export { createPostgresPool, type PostgresPoolOptions } from "./pool.js";
export {
  type CachedTableName,
  createSharedRowCache,
  NO_SHARED_ROW_CACHE,
  type SharedRowCache,
  type SharedRowCacheOptions,
} from "./shared-row-cache.js";
export { sharedSetting } from "./shared-settings.js";

/**
 * Every metadata repository of core on one pool (after `migrate`). With a `cache`
 * (`createSharedRowCache`, one per pool), sessions, users and files read by id are kept
 * in memory, exactly, and writes to them wait for every instance to drop the old row.
 */
export function createPostgresRepositories(pool: Pool, cache: SharedRowCache = NO_SHARED_ROW_CACHE) {
  return {
    files: createPostgresFileRepository(pool, cache),
    users: createPostgresUserRepository(pool, cache),
    sessions: createPostgresSessionRepository(pool, cache),
    magicLinks: createPostgresMagicLinkRepository(pool),
  };
}
