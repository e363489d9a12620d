import type { Pool } from "pg";
import { createPostgresMagicLinkRepository, createPostgresSessionRepository } from "./pg-auth-repositories.js";
import { createPostgresFileRepository } from "./pg-file-repository.js";
import { createPostgresUserRepository } from "./pg-user-repository.js";

/** The pg connection pool type, for code that holds one without importing the driver. */
export type { Pool } from "pg";
export { MIGRATIONS, migrate, SchemaTooNewError } from "./migrations.js";
export { createPostgresMagicLinkRepository, createPostgresSessionRepository } from "./pg-auth-repositories.js";
export { createPostgresFileRepository } from "./pg-file-repository.js";
export { createPostgresRateLimitStore } from "./pg-rate-limit-store.js";
export { createPostgresUserRepository } from "./pg-user-repository.js";
export { createPostgresPool, type PostgresPoolOptions } from "./pool.js";
export { sharedSetting } from "./shared-settings.js";

/** Every metadata repository of core on one pool (after `migrate`). */
export function createPostgresRepositories(pool: Pool) {
  return {
    files: createPostgresFileRepository(pool),
    users: createPostgresUserRepository(pool),
    sessions: createPostgresSessionRepository(pool),
    magicLinks: createPostgresMagicLinkRepository(pool),
  };
}
