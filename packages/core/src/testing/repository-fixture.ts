import type { ActivityRepository } from "../activity/activity-repository.port.js";
import type { MagicLinkRepository } from "../auth/magic-link-repository.port.js";
import type { SessionRepository } from "../auth/session-repository.port.js";
import type { CommentRecord } from "../comments/comment.entity.js";
import type { CommentRepository, InsertCommentResult } from "../comments/comment-repository.port.js";
import type { FileRecord } from "../files/file.entity.js";
import type { FileRepository } from "../files/file-repository.port.js";
import type { StreamLeaseRepository } from "../live/stream-lease-repository.port.js";
import type { PermissionRecord } from "../people/permission.entity.js";
import type { PermissionRepository, UpsertPermissionResult } from "../people/permission-repository.port.js";
import type { SheetIndexRepository } from "../sheets/sheet-index-repository.port.js";
import type { AccessTokenRepository } from "../tokens/access-token-repository.port.js";
import type { UserRecord } from "../users/user.entity.js";
import type { UserRepository } from "../users/user-repository.port.js";
import type { VersionRepository } from "../versions/version-repository.port.js";
import type { Closable } from "./contract-api.js";
import { aFile, anActivityEntry, aUser } from "./fixtures.js";

/**
 * The metadata repositories of one store, fresh and empty. They come together because a
 * real store relates them (a file's owner must exist; a file is read with the caller's
 * role; a purged file's permissions, activity and comments go with it).
 */
export interface RepositoryFixture extends Closable {
  /** Files, and the sheet index kept beside each. */
  readonly files: FileRepository & SheetIndexRepository;
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly accessTokens: AccessTokenRepository;
  readonly magicLinks: MagicLinkRepository;
  readonly permissions: PermissionRepository;
  readonly activity: ActivityRepository;
  readonly versions: VersionRepository;
  readonly streamLeases: StreamLeaseRepository;
  readonly comments: CommentRepository;
}

/** A user, stored. */
export async function storedUser(repos: RepositoryFixture, overrides: Partial<UserRecord> = {}): Promise<UserRecord> {
  return repos.users.insertIfAbsent(aUser(overrides));
}

/** A file of `ownerId` (a new user's when not given), stored without activity. */
export async function storedFile(
  repos: RepositoryFixture,
  ownerId?: string,
  overrides: Partial<FileRecord> = {},
): Promise<FileRecord> {
  const file = aFile(ownerId ?? (await storedUser(repos)).id, overrides);
  await repos.files.insert({ file, activity: [] });
  return file;
}

/** Gives a permission as its file's owner (`actorId`) shares it: with its entries, and room for 100 people. */
export async function givePermission(
  repos: RepositoryFixture,
  actorId: string,
  permission: PermissionRecord,
  limit = 100,
): Promise<UpsertPermissionResult> {
  const entry = (action: "shared" | "role_changed") =>
    anActivityEntry(permission.fileId, actorId, {
      at: permission.updatedAt,
      action,
      details: { email: permission.email, role: permission.role },
    });
  return repos.permissions.upsert({
    permission,
    limit,
    activity: { shared: entry("shared"), roleChanged: entry("role_changed") },
  });
}

/** Writes a comment as its author does: with its `created` entry, and room for 10,000 on the file. */
export async function writeComment(
  repos: RepositoryFixture,
  comment: CommentRecord,
  limit = 10_000,
): Promise<InsertCommentResult> {
  return repos.comments.insert({
    comment,
    limit,
    activity: anActivityEntry(comment.fileId, comment.authorId, {
      at: comment.createdAt,
      action: "commented",
      details: { comment_id: comment.id, action: "created", parent_id: comment.parentId, range: comment.range },
    }),
  });
}
