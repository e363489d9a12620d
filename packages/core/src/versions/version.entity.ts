import type { ContentPiece } from "../files/content-pieces.js";
import type { UserSummary } from "../users/user.entity.js";

/**
 * One version of a file's content: its bytes (under `blobKey`), who made it and when.
 * Version 1 is the upload; each change of content adds the next. The file's record holds
 * its current version's number, bytes, size and SHA-256; its versions hold every one,
 * the current one included.
 */
export interface VersionRecord {
  readonly fileId: string;
  /** 1 for the upload, then one more for each change of content. */
  readonly number: number;
  readonly blobKey: string;
  /** As `FileRecord.pieces`: absent when the bytes are blob `blobKey`'s alone. */
  readonly pieces?: readonly ContentPiece[];
  readonly size: number;
  /** Lowercase hex SHA-256 of the bytes. */
  readonly sha256: string;
  readonly createdAt: Date;
  /** Who made it: the uploader, or the editor who changed the content. */
  readonly authorId: string;
  /** Kept whatever its age: retention never removes it. */
  readonly keep: boolean;
}

/** A version as listed: with its author's id, email and name (null once the account is gone). */
export type VersionItem = VersionRecord & { readonly author: UserSummary | null };

/**
 * For how many days the last version of each UTC day is kept (the last of each UTC hour
 * is kept for one day); every other version that is neither current, kept nor among its
 * file's newest `VERSION_RETENTION_COUNT` goes.
 */
export const VERSION_RETENTION_DAYS = 30;

/** How many of a file's newest versions are kept whatever their age. */
export const VERSION_RETENTION_COUNT = 100;
