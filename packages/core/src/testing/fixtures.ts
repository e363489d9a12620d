import type { ActivityEntry } from "../activity/activity.entity.js";
import type { MagicLinkRecord } from "../auth/magic-link.entity.js";
import type { SessionRecord } from "../auth/session.entity.js";
import type { CommentRecord } from "../comments/comment.entity.js";
import type { FileRecord } from "../files/file.entity.js";
import type { PermissionRecord } from "../people/permission.entity.js";
import { base32 } from "../shared/ids.js";
import { cryptoRandom } from "../shared/random.port.js";
import { type AccessTokenRecord, hashAccessToken } from "../tokens/access-token.entity.js";
import type { UserRecord } from "../users/user.entity.js";

/** A unique id suffix of the shape Cellar issues: 24 base32 characters. */
export function uniqueSuffix(): string {
  return base32(cryptoRandom.bytes(15));
}

export const T0 = new Date("2026-03-01T12:00:00.000Z");

export function at(offsetMs: number, from: Date = T0): Date {
  return new Date(from.getTime() + offsetMs);
}

export function aUser(overrides: Partial<UserRecord> = {}): UserRecord {
  const id = overrides.id ?? `user_${uniqueSuffix()}`;
  return {
    id,
    email: `${id}@example.com`,
    name: "Ada",
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

export function aFile(ownerId: string, overrides: Partial<FileRecord> = {}): FileRecord {
  const id = overrides.id ?? `file_${uniqueSuffix()}`;
  return {
    id,
    ownerId,
    name: "Budget.csv",
    visibility: "private",
    state: "active",
    kind: "csv",
    contentType: "text/csv",
    size: 42,
    sha256: "a".repeat(64),
    blobKey: id,
    createdAt: T0,
    updatedAt: T0,
    trashedAt: null,
    purgeAt: null,
    version: 1,
    ...overrides,
  };
}

export function aTrashedFile(ownerId: string, purgeAt: Date, overrides: Partial<FileRecord> = {}): FileRecord {
  return aFile(ownerId, { state: "trashed", trashedAt: T0, purgeAt, ...overrides });
}

export function aSession(userId: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: `ses_${uniqueSuffix()}`,
    userId,
    createdAt: T0,
    expiresAt: at(3_600_000),
    revokedAt: null,
    userAgent: null,
    lastUsedAt: null,
    ...overrides,
  };
}

/** An access token of `userId`, stored by the hash of a random value. */
export function anAccessToken(userId: string, overrides: Partial<AccessTokenRecord> = {}): AccessTokenRecord {
  return {
    id: `tok_${uniqueSuffix()}`,
    userId,
    name: "nightly import",
    scope: "read",
    tokenHash: hashAccessToken(`cellar_pat_${uniqueSuffix()}`),
    createdAt: T0,
    expiresAt: null,
    lastUsedAt: null,
    ...overrides,
  };
}

export function aMagicLink(overrides: Partial<MagicLinkRecord> = {}): MagicLinkRecord {
  return {
    tokenHash: Buffer.from(cryptoRandom.bytes(32)).toString("hex"),
    email: "ada@example.com",
    createdAt: T0,
    expiresAt: at(600_000),
    ...overrides,
  };
}

/** A permission waiting for its address's account (`userId: null`), as a viewer, unless told otherwise. */
export function aPermission(fileId: string, overrides: Partial<PermissionRecord> = {}): PermissionRecord {
  const id = overrides.id ?? `perm_${uniqueSuffix()}`;
  return {
    id,
    fileId,
    email: `${id}@example.com`,
    userId: null,
    role: "viewer",
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

/** An activity entry; a rename unless told otherwise. */
export function anActivityEntry(
  fileId: string,
  actorId: string,
  overrides: { id?: string; at?: Date } & Partial<Pick<ActivityEntry, "action" | "details">> = {},
): ActivityEntry {
  return {
    id: `act_${uniqueSuffix()}`,
    fileId,
    actorId,
    at: T0,
    action: "renamed",
    details: { name: "Renamed.csv" },
    ...overrides,
  } as ActivityEntry;
}

/** A comment that starts a thread about the whole file, unless told otherwise. */
export function aComment(fileId: string, authorId: string, overrides: Partial<CommentRecord> = {}): CommentRecord {
  return {
    id: `cmt_${uniqueSuffix()}`,
    fileId,
    authorId,
    text: "Is this total right?",
    range: null,
    parentId: null,
    resolved: false,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}
