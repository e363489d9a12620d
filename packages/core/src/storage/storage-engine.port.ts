import type { ActivityRepository } from "../activity/activity-repository.port.js";
import type { MagicLinkRepository } from "../auth/magic-link-repository.port.js";
import type { SessionRepository } from "../auth/session-repository.port.js";
import type { CommentRepository } from "../comments/comment-repository.port.js";
import type { BlobStore } from "../files/blob-store.port.js";
import type { FileRepository } from "../files/file-repository.port.js";
import type { ChangeFeed } from "../live/change-feed.port.js";
import type { StreamLeaseRepository } from "../live/stream-lease-repository.port.js";
import type { PermissionRepository } from "../people/permission-repository.port.js";
import type { RateLimitStore } from "../rate-limit/rate-limit-store.port.js";
import type { SheetIndexRepository } from "../sheets/sheet-index-repository.port.js";
import type { AccessTokenRepository } from "../tokens/access-token-repository.port.js";
import type { UserRepository } from "../users/user-repository.port.js";
import type { VersionRepository } from "../versions/version-repository.port.js";
import type { WebhookRepository } from "../webhooks/webhook-repository.port.js";

/**
 * What an adapter that owns an engine (a database, a bucket, a folder) hands back besides
 * the ports it implements, so that whoever composes Cellar needs to know nothing of it:
 * how to tell that it answers, which of its errors mean "unavailable for now", and how to
 * let go of it. Each adapter opens itself from plain settings (`openSqliteStorage`,
 * `openPostgresStorage`, `openFsBlobStore`, `openS3BlobStore`).
 */
export interface StorageEngine {
  /** Resolves once the engine answers; rejects with its error otherwise. Readiness checks call it. */
  ping(): Promise<void>;
  /**
   * Whether an error this engine raised means it cannot serve for now (locked, busy,
   * unreachable, out of space), not that the request or Cellar is wrong: the API answers
   * those 503 with `Retry-After` instead of 500.
   */
  isUnavailable(error: unknown): boolean;
  /** Lets go of every connection, handle and timer it holds. */
  close(): Promise<void>;
}

/** Where metadata lives: every repository core needs, on one engine. */
export interface MetadataStorage extends StorageEngine {
  readonly files: FileRepository;
  readonly sheetIndexes: SheetIndexRepository;
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly accessTokens: AccessTokenRepository;
  readonly magicLinks: MagicLinkRepository;
  readonly permissions: PermissionRepository;
  readonly activity: ActivityRepository;
  readonly versions: VersionRepository;
  readonly streamLeases: StreamLeaseRepository;
  readonly comments: CommentRepository;
  readonly webhooks: WebhookRepository;
  readonly rateLimits: RateLimitStore;
  /**
   * The JWT key every instance on this storage shares when none is configured: the one
   * kept, or else `proposed` (by default a new random key), kept from now on. Two
   * instances starting together agree on one key.
   */
  sharedJwtSecret(proposed?: string): Promise<string>;
  /**
   * Tells every instance on this storage which files' event logs grew (`ChangeFeed`),
   * including instances in other processes: PostgreSQL's LISTEN/NOTIFY, or SQLite's
   * watch on writes by other processes sharing its file. Ended by `close`.
   */
  readonly changeFeed: ChangeFeed;
}

/** Where file bytes live. */
export interface BlobStorage extends StorageEngine {
  readonly blobs: BlobStore;
}

/** An engine could not be used when it was opened: the message says which and why, in one line. */
export class StorageUnreachableError extends Error {
  override readonly name = "StorageUnreachableError";
}

/** What went wrong, in a few words, for the one line a failed start-up prints. */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  // Errors for a bare HTTP status (an object store's NotFound, Forbidden) carry only a name.
  if (error instanceof Error) return error.message || ("code" in error ? String(error.code) : error.name);
  return String(error);
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;
}

/** Node's errors of a disk that cannot take more or cannot be read, or of too many open files. */
const FILE_SYSTEM_UNAVAILABLE = new Set(["EIO", "ENOSPC", "EDQUOT", "EROFS", "EMFILE", "ENFILE"]);
/** Node's errors of a peer that cannot be reached or went away. */
const NETWORK_UNAVAILABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** Whether Node reported a local disk that cannot serve for now: for the adapters on a file system. */
export function isFileSystemUnavailable(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && FILE_SYSTEM_UNAVAILABLE.has(code);
}

/** Whether Node reported a network peer that cannot be reached: for the adapters on a server. */
export function isNetworkUnavailable(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && NETWORK_UNAVAILABLE.has(code);
}
