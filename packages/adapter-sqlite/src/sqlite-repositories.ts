import type { Database } from "better-sqlite3";
import { createReadCache, NO_READ_CACHE, type ReadCacheOptions } from "./read-cache.js";
import { createSqliteActivityRepository } from "./sqlite-activity-repository.js";
import {
  createSqliteAccessTokenRepository,
  createSqliteMagicLinkRepository,
  createSqliteSessionRepository,
} from "./sqlite-auth-repositories.js";
import { createSqliteCommentRepository } from "./sqlite-comment-repository.js";
import { createSqliteFileRepository } from "./sqlite-file-repository.js";
import { createSqlitePermissionRepository } from "./sqlite-permission-repository.js";
import { createSqliteStreamLeaseRepository } from "./sqlite-stream-lease-repository.js";
import { createSqliteUserRepository } from "./sqlite-user-repository.js";
import { createSqliteVersionRepository } from "./sqlite-version-repository.js";
import { createSqliteWebhookRepository } from "./sqlite-webhook-repository.js";

export interface SqliteRepositoriesOptions {
  /**
   * Keep sessions and users read by id, access tokens by hash, and files read by id or with a caller's role, in
   * memory while the database is unchanged (see `ReadCache`): `true`, or the cache's options. Off by default. Turn it on only if
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
  const files = createSqliteFileRepository(db, cache);
  return {
    files,
    sheetIndexes: files,
    users: createSqliteUserRepository(db, cache),
    sessions: createSqliteSessionRepository(db, cache),
    accessTokens: createSqliteAccessTokenRepository(db, cache),
    magicLinks: createSqliteMagicLinkRepository(db),
    permissions: createSqlitePermissionRepository(db, cache),
    activity: createSqliteActivityRepository(db),
    versions: createSqliteVersionRepository(db),
    streamLeases: createSqliteStreamLeaseRepository(db),
    comments: createSqliteCommentRepository(db),
    webhooks: createSqliteWebhookRepository(db),
    /** Drops every kept row: call it after writing through `db` directly. */
    forgetCachedReads: () => cache.clear(),
  };
}
