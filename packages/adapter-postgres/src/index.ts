/**
 * `@cellar/adapter-postgres`: Cellar's metadata in PostgreSQL (pg). `openPostgresStorage`
 * opens it from a URL; the repositories are exported one by one for embedders who hold a
 * pool of their own.
 */

/** The pg connection pool type, for code that holds one without importing the driver. */
export type { Pool } from "pg";
export { MIGRATIONS, migrate, SchemaTooNewError } from "./migrations.js";
export { createPostgresActivityRepository } from "./pg-activity-repository.js";
export {
  createPostgresAccessTokenRepository,
  createPostgresMagicLinkRepository,
  createPostgresSessionRepository,
  type PostgresSessionOptions,
} from "./pg-auth-repositories.js";
export { changeChannel, openPgChangeFeed, type PgChangeFeed, type PgChangeFeedOptions } from "./pg-change-feed.js";
export { createPostgresCommentRepository } from "./pg-comment-repository.js";
export { createPostgresFileRepository } from "./pg-file-repository.js";
export { createPostgresPermissionRepository } from "./pg-permission-repository.js";
export { createPostgresRateLimitStore } from "./pg-rate-limit-store.js";
export { createPostgresRepositories, type PostgresWriteNotices } from "./pg-repositories.js";
export { createPostgresUserRepository } from "./pg-user-repository.js";
export { createPostgresVersionRepository } from "./pg-version-repository.js";
export { createPostgresWebhookRepository } from "./pg-webhook-repository.js";
export { createPostgresPool, type PostgresPoolOptions } from "./pool.js";
export {
  isPostgresUnavailable,
  openPostgresStorage,
  type PostgresStorage,
  type PostgresStorageOptions,
} from "./postgres-storage.js";
export { sharedSetting } from "./shared-settings.js";
