import type { FileRecord, FileState } from "./file.entity.js";

/** The fields of a file that change after upload. */
export type FileChanges = Partial<Pick<FileRecord, "name" | "visibility" | "state" | "trashedAt" | "purgeAt">> & {
  readonly updatedAt: Date;
};

/**
 * Stores file metadata. Blob bytes are not its business: see `BlobStore`.
 *
 * Guarantees an implementation owes (checked by `fileRepositoryContract`):
 * - `insert` refuses a second record with the same `id` (it throws) and stores nothing;
 * - `listByOwner` returns only that owner's records in the given state, newest first
 *   (`createdAt` descending, then `id` descending), with `total` counting all of them
 *   regardless of `offset`/`limit`;
 * - `update` applies `changes` to one record in one atomic step, only while the record
 *   is in `onlyIfState` (when given), and returns the updated record; it returns null
 *   and changes nothing when there is no such record or its state differs. It never
 *   creates a record. Fields not named in `changes` keep their stored values, so two
 *   concurrent updates of different fields both land;
 * - `removeDueForPurge` atomically deletes and returns up to `limit` `trashed` records
 *   whose `purgeAt` is at or before `now`, earliest `purgeAt` first. A record restored
 *   in the meantime is not due and so is never removed;
 * - records come back equal to what was stored, dates included to the millisecond.
 *
 * What a reader found in a file's cells is kept beside it by a `SheetIndexRepository`.
 */
export interface FileRepository {
  insert(file: FileRecord): Promise<void>;
  findById(id: string): Promise<FileRecord | null>;
  listByOwner(query: {
    ownerId: string;
    state: FileState;
    offset: number;
    limit: number;
  }): Promise<{ items: FileRecord[]; total: number }>;
  update(input: { id: string; changes: FileChanges; onlyIfState?: FileState }): Promise<FileRecord | null>;
  removeDueForPurge(query: { now: Date; limit: number }): Promise<FileRecord[]>;
  /** Which of these blob keys some record (in any state) refers to. */
  findReferencedBlobKeys(keys: readonly string[]): Promise<Set<string>>;
}
