import type { ActivityItem } from "./activity.entity.js";

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
 * - a file's entries go when the file is removed (purge).
 */
export interface ActivityRepository {
  listByFile(query: { fileId: string; offset: number; limit: number }): Promise<ActivityPage>;
  prune(input: { before: Date; limit: number }): Promise<number>;
}
