import type { ActivityEntry, ActivityItem } from "./activity.entity.js";

/** An entry with its number among its file's entries: 1 for the first ever written, then one more each. */
export type NumberedActivity = ActivityItem & { readonly seq: number };

/** A file's entries after a number, and the number of its latest entry. */
export interface ActivitySince {
  readonly entries: NumberedActivity[];
  /** The number of the file's latest entry ever written (0 when none, or no such file). */
  readonly head: number;
}

/** An entry with where it stands among every file's entries, in the order they committed. */
export type PlacedActivity = NumberedActivity & { readonly position: string };

/** Entries of every file after a position, in the order they committed. */
export interface CommittedActivity {
  readonly entries: PlacedActivity[];
  /**
   * Where a reader that has these goes on from: every entry that commits later comes after
   * it. Past the last entry given, or at it when `complete` is false.
   */
  readonly position: string;
  /** False when more entries came after `after` than `limit` allows, or `after` is no position of this store. */
  readonly complete: boolean;
}

/** One slice of a file's activity, and how many entries it has in all. */
export interface ActivityPage {
  readonly items: ActivityItem[];
  readonly total: number;
}

/**
 * Reads what happened to files. Entries are not written here: each is written by the
 * port that makes the change it records (`FileRepository.insert` and `update`, the
 * writes of `PermissionRepository`), in the same atomic step as that change, so that no
 * change is ever without its entry and no entry without its change.
 *
 * Guarantees an implementation owes (checked by `activityRepositoryContract`):
 * - `listByFile` returns that file's entries only, newest first (`at` descending, then
 *   `id` descending), the slice `offset`/`limit` names, with `total` counting them all;
 * - each entry comes back as written, `at` to the millisecond and `details` equal
 *   (JSON), with `actor`: the current id, email and name of the user `actorId` names,
 *   or null when there is no such user;
 * - `prune` deletes up to `limit` entries whose `at` is before `before` (of any file),
 *   oldest first, and says how many it deleted; an entry at `before` or later stays;
 * - every entry written gets the next number of its file (`seq`: 1 for a file's first
 *   entry, then one more for each, in the order they were written within one change),
 *   and the numbers follow the order in which the changes committed, also when several
 *   instances change one file at once (a database numbers them under the file's row
 *   lock, in the step that writes them). A number is never given twice, also after
 *   entries are pruned; so the numbers are a file's event log, which readers follow
 *   (`listSince`) and reconnecting ones resume from;
 * - `listSince` returns the file's entries numbered above `afterSeq`, in number order, at
 *   most `limit`, each with its actor as `listByFile` has it, and the file's `head`;
 * - `listCommitted` returns the entries of every file after `after`, in the order in which
 *   they committed, each with its `position` (a decimal string; the entries of one change
 *   may share one, and are then never split between calls), at most `limit` of them
 *   (more only when one change wrote more); none, with
 *   the position of now, when `after` is null. An entry that commits after a call
 *   returned never has a position at or before the `position` it returned, whichever
 *   instance writes it; so a reader that goes on from it misses nothing. An `after` that
 *   is not a position this store gave (or one past the last it gave) reads as incomplete;
 * - `insertCopy` stores entries of the file `fileId` exactly as given, each with the
 *   number it had in the store they are copied from (for moving an install to another
 *   store: a reader that reconnects after the move names those numbers), leaving any whose
 *   id, or whose number on that file, is there already; it raises the file's counter to
 *   `head` (the latest number the other store gave it) when it is lower, so no number that
 *   store gave is given again; and says how many it stored. It stores nothing, and says
 *   0, when there is no such file;
 * - a file's entries go when the file is removed (purge).
 */
export interface ActivityRepository {
  listByFile(query: { fileId: string; offset: number; limit: number }): Promise<ActivityPage>;
  prune(input: { before: Date; limit: number }): Promise<number>;
  listSince(query: { fileId: string; afterSeq: number; limit: number }): Promise<ActivitySince>;
  listCommitted(query: { after: string | null; limit: number }): Promise<CommittedActivity>;
  insertCopy(input: {
    fileId: string;
    entries: readonly (ActivityEntry & { readonly seq: number })[];
    head: number;
  }): Promise<number>;
}
