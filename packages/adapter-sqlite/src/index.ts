import type { Database } from "better-sqlite3";

/** The better-sqlite3 connection type, for code that holds one without importing the driver. */
export type { Database } from "better-sqlite3";

import { createSqliteMagicLinkRepository, createSqliteSessionRepository } from "./sqlite-auth-repositories.js";
import { createSqliteFileRepository } from "./sqlite-file-repository.js";
import { createSqliteUserRepository } from "./sqlite-user-repository.js";

export { MIGRATIONS, migrate, SchemaTooNewError } from "./migrations.js";
export { type OpenDatabaseOptions, openDatabase } from "./open-database.js";
export { createSqliteMagicLinkRepository, createSqliteSessionRepository } from "./sqlite-auth-repositories.js";
export { createSqliteFileRepository } from "./sqlite-file-repository.js";
export { createSqliteRateLimitStore } from "./sqlite-rate-limit-store.js";
export { createSqliteUserRepository } from "./sqlite-user-repository.js";

/** Every metadata repository of core on one database opened with `openDatabase`. */
export function createSqliteRepositories(db: Database) {
  return {
    files: createSqliteFileRepository(db),
    users: createSqliteUserRepository(db),
    sessions: createSqliteSessionRepository(db),
    magicLinks: createSqliteMagicLinkRepository(db),
  };
}
