import type { ActivityEntry } from "../activity/activity.entity.js";
import type { Role } from "../people/role.js";
import type { ContentPiece, StoredContent } from "./content-pieces.js";
import type { FileRecord, FileState } from "./file.entity.js";

/** What a listing is ordered by. `name` compares names' keys (`fileNameKey`) by code point. */
export type FileSortField = "createdAt" | "updatedAt" | "name" | "size";

/** A listing's order: by `field`, then by `id`, both ascending or both descending. */
export interface FileSort {
  readonly field: FileSortField;
  readonly descending: boolean;
}

/** The order of a listing that names none: newest first. */
export const NEWEST_FIRST: FileSort = Object.freeze({ field: "createdAt", descending: true });

/**
 * Which files of a listing and which slice of them: what every listing of files takes,
 * whoever's files it lists.
 */
export interface FileListQuery {
  /** Keeps only files whose name contains this text, case-insensitively (see `fileNameKey`). */
  readonly nameContains?: string;
  /** Default `NEWEST_FIRST`. */
  readonly sort?: FileSort;
  readonly offset: number;
  readonly limit: number;
}

/** One slice of a listing, and how many files the whole listing holds. */
export interface FileListPage {
  readonly items: FileRecord[];
  readonly total: number;
}

/**
 * A file and the role a permission gives one user on it (`PermissionRepository`), or null
 * when none does. Ownership is no permission: the owner is the file's `ownerId`.
 */
export interface FileWithRole {
  readonly file: FileRecord;
  readonly role: Role | null;
}

/** The fields of a file that change after upload. */
export type FileChanges = Partial<Pick<FileRecord, "name" | "visibility" | "state" | "trashedAt" | "purgeAt">> & {
  readonly updatedAt: Date;
};

/** New bytes for a file, written to the blob store under `blobKey` (or as `pieces`) and checked. */
export interface NewContent extends StoredContent {
  readonly sha256: string;
}

/** What `replaceContent` did. */
export type ReplaceContentResult =
  | { readonly outcome: "replaced"; readonly file: FileRecord }
  /** The content is no longer the one expected: nothing was written; `file` is as it is now. */
  | { readonly outcome: "precondition_failed"; readonly file: FileRecord }
  /** No such file, or it is not active: nothing was written. */
  | { readonly outcome: "not_active" }
  /** `fromVersion` is gone (retention removed it): nothing was written. */
  | { readonly outcome: "version_gone" };

/** A purged file, and every blob key its versions held (its current bytes' included, and their pieces', `contentBlobKeys`). */
export interface PurgedFile {
  readonly file: FileRecord;
  readonly blobKeys: readonly string[];
}

/**
 * Stores file metadata. Blob bytes are not its business: see `BlobStore`.
 *
 * Guarantees an implementation owes (checked by `fileRepositoryContract`):
 * - `insert` stores the record, its `activity` entries and its version (number
 *   `file.version`, with the record's blob key, size and SHA-256, made at `createdAt` by
 *   `ownerId`, not kept; see `VersionRepository`) in one atomic step; it refuses a second
 *   record with the same `id` (it throws) and then stores nothing, entries included;
 * - `replaceContent` gives an `active` record new content in one atomic step, when its
 *   `sha256` is `expectedSha256` (or always, when that is null): the content's blob key,
 *   pieces (or none), size and SHA-256, `version` one more, `updatedAt` `at`; with the new version (made at
 *   `at` by `authorId`, not kept) and the `activity` entries. Otherwise it writes nothing
 *   and says why. Of concurrent calls expecting the same content, on one store or
 *   through several instances, exactly one replaces it. With `fromVersion` (a restore:
 *   the content is that version's, its blob shared), it replaces only while that version
 *   exists with that content's pieces (or none, when it has none), and holds it against
 *   `VersionRepository.removeExpired` until it commits, so that retention never deletes a
 *   blob a new version has just come to share. With `expectedPieces`, it replaces only
 *   while the record's pieces are those (`precondition_failed` otherwise): a change made
 *   from pieces a compaction has since let go never commits. With `moveCommentRanges` (a
 *   change of structure), each comment of the file that holds a range takes the one it
 *   gives for it, in the same step (a thread's cells moved with the content's);
 * - a version's pieces, and the blobs they refer to, are stored with it: `findReferencedBlobKeys`
 *   finds them, and the purge returns them;
 * - `compactContent` changes only the pieces of the record and of its current version,
 *   in one step, and only where they hold the run named; `listPieced` finds the records
 *   of more pieces than it is asked, and no others;
 * - `findWithRole` returns the record with `id` and the role a permission gives `userId`
 *   on it (null when none does), read together in one step (one query with a join, in a
 *   database): every read of a file by a caller comes here, so it must cost about what
 *   `findById` costs; null when there is no such record;
 * - `listByOwner` returns only that owner's records in the given state, with `total`
 *   counting all of them regardless of `offset`/`limit`;
 * - with `nameContains`, a listing keeps only the records whose `fileNameKey(name)`
 *   contains `fileNameKey(nameContains)` (so "ärger" finds "ÄRGER.csv"), and `total`
 *   counts only those;
 * - a listing is ordered by `sort` (default `NEWEST_FIRST`): `createdAt`, `updatedAt`
 *   and `size` as numbers, `name` by `fileNameKey(name)` compared by code point
 *   (`compareCodePoints`: UTF-8 byte order, not JavaScript's UTF-16 order); records equal
 *   in that are ordered by `id`, in the same direction. Every store thus pages a listing
 *   alike (`fileListOrder` is the order as a comparator). A store that keeps names' keys
 *   computes them with `fileNameKey` whenever it writes a name;
 * - `update` applies `changes` to one record in one atomic step, only while the record
 *   is in `onlyIfState` (when given), writes its `activity` entries in that same step,
 *   and returns the updated record; it returns null and writes nothing, entries
 *   included, when there is no such record or its state differs. It never creates a
 *   record. Fields not named in `changes` keep their stored values, so two concurrent
 *   updates of different fields both land;
 * - `removeDueForPurge` atomically deletes and returns up to `limit` `trashed` records
 *   whose `purgeAt` is at or before `now`, earliest `purgeAt` first, and with each record
 *   all that belongs to it: its sheet index, its permissions, its activity and its
 *   versions, whose blob keys (each version's `contentBlobKeys`) it returns with the record. A record
 *   restored in the meantime is not due and so is never removed;
 * - records come back equal to what was stored, dates included to the millisecond.
 *
 * What a reader found in a file's cells is kept beside it by a `SheetIndexRepository`;
 * who else holds a role on it, by a `PermissionRepository`; what happened to it, by an
 * `ActivityRepository`.
 */
export interface FileRepository {
  insert(input: { file: FileRecord; activity: readonly ActivityEntry[] }): Promise<void>;
  findById(id: string): Promise<FileRecord | null>;
  findWithRole(query: { id: string; userId: string }): Promise<FileWithRole | null>;
  listByOwner(query: { ownerId: string; state: FileState } & FileListQuery): Promise<FileListPage>;
  update(input: {
    id: string;
    changes: FileChanges;
    onlyIfState?: FileState;
    activity: readonly ActivityEntry[];
  }): Promise<FileRecord | null>;
  replaceContent(input: {
    id: string;
    expectedSha256: string | null;
    /**
     * The pieces the content it is made from has (null: none): given, it replaces only while
     * the file's content still has them, not compacted since (`compactContent`).
     */
    expectedPieces?: readonly ContentPiece[] | null;
    content: NewContent;
    fromVersion?: number;
    at: Date;
    authorId: string;
    activity: readonly ActivityEntry[];
    /** A comment's range after the change: the same, another, or null (about the whole file). */
    moveCommentRanges?: (range: string) => string | null;
  }): Promise<ReplaceContentResult>;
  removeDueForPurge(query: { now: Date; limit: number }): Promise<PurgedFile[]>;
  /** Up to `limit` files, in any state, whose current content has more than `morePiecesThan` pieces. */
  listPieced(query: { morePiecesThan: number; limit: number }): Promise<FileRecord[]>;
  /**
   * Replaces, in the pieces of the file's current content, the run of pieces `from` with
   * `to` (the same bytes in fewer pieces: `replacedRun`), on its record and its current
   * version in one atomic step, while those pieces hold that run (edits since may have
   * added pieces around it). Says whether it did.
   */
  compactContent(input: { id: string; from: readonly ContentPiece[]; to: readonly ContentPiece[] }): Promise<boolean>;
  /**
   * Which of these blob keys some record (in any state) or version refers to: as its
   * `blobKey` or in its `pieces`. Pieces are indexed by their blobs, as blob keys are.
   */
  findReferencedBlobKeys(keys: readonly string[]): Promise<Set<string>>;
}
