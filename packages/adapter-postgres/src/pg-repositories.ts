import type { Pool } from "pg";
import { createPostgresActivityRepository } from "./pg-activity-repository.js";
import {
  createPostgresAccessTokenRepository,
  createPostgresMagicLinkRepository,
  createPostgresSessionRepository,
} from "./pg-auth-repositories.js";
import { createPostgresCommentRepository } from "./pg-comment-repository.js";
import { createPostgresFileRepository } from "./pg-file-repository.js";
import { createPostgresPermissionRepository } from "./pg-permission-repository.js";
import { createPostgresStreamLeaseRepository } from "./pg-stream-lease-repository.js";
import { createPostgresUserRepository } from "./pg-user-repository.js";
import { createPostgresVersionRepository } from "./pg-version-repository.js";
import { createPostgresWebhookRepository } from "./pg-webhook-repository.js";

/** Where the repositories that announce their writes send the notices. */
export interface PostgresWriteNotices {
  /**
   * The change feed's channel (`changeChannel`): each write that changes a file's log
   * (and each session revoked, each access token deleted) sends its notice on it inside
   * its own transaction. Default: none sent.
   */
  readonly channel?: string;
}

/** Every metadata repository of core on one pool (after `migrate`). */
export function createPostgresRepositories(pool: Pool, notices: PostgresWriteNotices = {}) {
  const files = createPostgresFileRepository(pool, notices);
  return {
    files,
    sheetIndexes: files,
    users: createPostgresUserRepository(pool),
    sessions: createPostgresSessionRepository(pool, notices),
    accessTokens: createPostgresAccessTokenRepository(pool, notices),
    magicLinks: createPostgresMagicLinkRepository(pool),
    permissions: createPostgresPermissionRepository(pool, notices),
    activity: createPostgresActivityRepository(pool),
    versions: createPostgresVersionRepository(pool),
    streamLeases: createPostgresStreamLeaseRepository(pool),
    comments: createPostgresCommentRepository(pool, notices),
    webhooks: createPostgresWebhookRepository(pool),
  };
}
