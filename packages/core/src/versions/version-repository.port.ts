import type { VersionItem, VersionRecord } from "./version.entity.js";

/**
 * Stores every version of every file's content (`VersionRecord`). Versions are written
 * by the `FileRepository`, with the change of content they record (its `insert` stores
 * the upload's version, `replaceContent` each next one), and go with their file when it
 * is purged; this port reads them, marks them kept, and applies retention.
 *
 * Guarantees an implementation owes (checked by `versionRepositoryContract`):
 * - `listByFile` returns a file's versions newest first (by `number`), each with
 *   `author`: the current id, email and name of the account `authorId` names, or null
 *   when there is none; the slice `offset`/`limit` names, with `total` counting all;
 * - `find` returns the version `number` of `fileId`, or null;
 * - `setKeep` sets `keep` on that version and returns it with its `author`, or null when
 *   there is none;
 * - `removeExpired` thins each file's versions: it deletes, and returns, up to `limit`
 *   versions that are neither their file's current one (`number` equal to the file's
 *   `version`) nor kept, not among their file's `keepNewest` newest (by `number`, of the
 *   versions it has), and neither the last of their hour within the last day nor the
 *   last of their day within `retentionDays`; oldest first (by `createdAt`, then `number`).
 *   A version is the last of its hour (its day) when no version of its file with a higher
 *   `number` was created in the same UTC hour (UTC day), whether current, kept or not. It
 *   is within the last day when created after `now` − 24 h, within `retentionDays` when
 *   created after `now` − `retentionDays` × 24 h: at exactly the cut it is out. Whether a
 *   version stays depends on its own file's versions only. A version's blob is the
 *   caller's to delete, after: a crash in between leaves an orphan blob (the sweep's),
 *   never a version without its bytes;
 * - `copyIn` stores a version exactly as given (a move from another store), over the row
 *   of that number if there is one, and only for a file that exists; it says whether it did;
 * - records come back equal to what was stored, dates to the millisecond.
 */
export interface VersionRepository {
  listByFile(query: {
    fileId: string;
    offset: number;
    limit: number;
  }): Promise<{ items: VersionItem[]; total: number }>;
  find(query: { fileId: string; number: number }): Promise<VersionRecord | null>;
  setKeep(input: { fileId: string; number: number; keep: boolean }): Promise<VersionItem | null>;
  removeExpired(input: {
    now: Date;
    retentionDays: number;
    keepNewest: number;
    limit: number;
  }): Promise<VersionRecord[]>;
  copyIn(version: VersionRecord): Promise<boolean>;
}
