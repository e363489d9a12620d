import type { ActivityEntry } from "../activity/activity.entity.js";
import type { Comment, CommentRecord } from "./comment.entity.js";

/** What `insert` did. */
export type InsertCommentResult =
  | { readonly outcome: "created"; readonly comment: Comment }
  /** The file already holds `limit` comments: nothing was written. */
  | { readonly outcome: "limit_reached" }
  /** `parentId` names no comment of this file that starts a thread: nothing was written. */
  | { readonly outcome: "no_parent" };

/** One slice of a file's comments, and how many it has in all. */
export interface CommentPage {
  readonly items: Comment[];
  readonly total: number;
}

/**
 * Stores the comments on files (`CommentRecord`). Every write takes the activity entry
 * recording it and writes both in one atomic step, or neither, numbering the entry in the
 * file's event log as `ActivityRepository` describes.
 *
 * Guarantees an implementation owes (checked by `commentRepositoryContract`):
 * - `insert` stores `comment` as given with `activity`, and returns it as `findById`
 *   would, unless the file already holds `limit` comments (replies included): then it
 *   writes nothing and reports `limit_reached`. Of concurrent inserts on one file, no more
 *   than the room left are made (a store serialises them per file, e.g. by locking the
 *   file's row). A comment whose `parentId` is not the id of a comment of the same file
 *   that has no parent itself is not stored either (`no_parent`), also when that comment
 *   is deleted concurrently. It throws, writing nothing, for a file that does not exist;
 * - `findById` returns the comment with `id` on `fileId` (null for one on another file,
 *   or none), with `author`: the current id, email and name of the account `authorId`
 *   names, or null when there is none; a reply with its thread's `range` and `resolved`;
 * - `listByFile` returns a file's comments oldest first (`createdAt`, then `id`), each as
 *   `findById` gives it, the slice `offset`/`limit` names, with `total` counting them all;
 * - `update` sets, of the comment with `id` on `fileId`, `text` and `resolved` when given
 *   and `updatedAt`, writes `activity` with them, and returns it as `findById` would then;
 *   null, writing nothing, when there is no such comment;
 * - `remove` deletes the comment with `id` on `fileId` and, when it starts a thread, every
 *   reply in it, and writes `activity` with them, returning the record it deleted; null,
 *   writing nothing, when there is no such comment;
 * - `insertCopy` stores `comment` exactly as given and writes no activity (for copying an
 *   install into another store, whose file rows bring their activity); it stores nothing
 *   and returns false when a comment with its id is there already, and throws for a file,
 *   or a parent, that does not exist (copy a thread's first comment before its replies);
 * - a file's comments go when the file is removed (purge);
 * - records come back equal to what was stored, dates to the millisecond.
 */
export interface CommentRepository {
  insert(input: { comment: CommentRecord; limit: number; activity: ActivityEntry }): Promise<InsertCommentResult>;
  findById(query: { fileId: string; id: string }): Promise<Comment | null>;
  listByFile(query: { fileId: string; offset: number; limit: number }): Promise<CommentPage>;
  update(input: {
    fileId: string;
    id: string;
    text?: string;
    resolved?: boolean;
    updatedAt: Date;
    activity: readonly ActivityEntry[];
  }): Promise<Comment | null>;
  remove(input: { fileId: string; id: string; activity: ActivityEntry }): Promise<CommentRecord | null>;
  insertCopy(comment: CommentRecord): Promise<boolean>;
}
