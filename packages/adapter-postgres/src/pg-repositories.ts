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

/** Every metadata repository of core on one pool (after `migrate`). */
export function createPostgresRepositories(pool: Pool) {
  const files = createPostgresFileRepository(pool);
  return {
    files,
    sheetIndexes: files,
    users: createPostgresUserRepository(pool),
    sessions: createPostgresSessionRepository(pool),
    accessTokens: createPostgresAccessTokenRepository(pool),
    magicLinks: createPostgresMagicLinkRepository(pool),
    permissions: createPostgresPermissionRepository(pool),
    activity: createPostgresActivityRepository(pool),
    versions: createPostgresVersionRepository(pool),
    streamLeases: createPostgresStreamLeaseRepository(pool),
    comments: createPostgresCommentRepository(pool),
    webhooks: createPostgresWebhookRepository(pool),
  };
}
