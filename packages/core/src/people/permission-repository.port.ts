import type { ActivityEntry } from "../activity/activity.entity.js";
import type { Permission, PermissionRecord } from "./permission.entity.js";
import type { Role } from "./role.js";
import type { SharedFileListQuery, SharedFilePage } from "./shared-files.js";

/** What `upsert` did. */
export type UpsertPermissionResult =
  | { readonly outcome: "created"; readonly permission: PermissionRecord }
  | { readonly outcome: "updated"; readonly permission: PermissionRecord; readonly previousRole: Role }
  /** The address already held that very role: nothing was written. */
  | { readonly outcome: "unchanged"; readonly permission: PermissionRecord }
  /** The file already has `limit` people: nothing was written. */
  | { readonly outcome: "limit_reached" };

/**
 * Stores who holds which role on which file (`PermissionRecord`). Every write that
 * changes a permission takes the activity entry recording it and writes both in one
 * atomic step, or neither.
 *
 * Guarantees an implementation owes (checked by `permissionRepositoryContract`):
 * - `upsert` is atomic per file and address. When `permission.email` holds no role on
 *   `permission.fileId`, it stores `permission` as given (id, userId, createdAt
 *   included) with `activity.shared`, unless the file already has `limit` permissions:
 *   then it writes nothing and reports `limit_reached`. Of any number of concurrent
 *   upserts of new addresses on one file, no more than the room left are created; the
 *   others report `limit_reached` (a store serialises them per file, e.g. by locking the
 *   file's row). When the address holds a role already, it changes only that role and
 *   `updatedAt` (to `permission`'s) and writes `activity.roleChanged`, reporting the
 *   previous role; when that role is the one asked for, it writes nothing (`unchanged`).
 *   It throws, writing nothing, for a file that does not exist;
 * - `listByFile` returns a file's permissions oldest first (`createdAt`, then `id`),
 *   each with `user`: the current id, email and name of the account `userId` names, or
 *   null while there is none;
 * - `findById` returns the permission with that id, or null;
 * - `findRole` returns the role a permission gives `userId` on `fileId`, or null;
 * - `changeRole` sets the role and `updatedAt` of the permission with `id` on `fileId`
 *   and writes `activity` with it; when the permission already has that role it writes
 *   nothing and returns it as it is; null, writing nothing, when there is no such
 *   permission on that file;
 * - `remove` deletes the permission with `id` on `fileId` and writes `activity` with it,
 *   returning what it deleted; null, writing nothing, when there is no such permission;
 * - `attachPending` sets `userId` on every permission of `email` that has none, on every
 *   file, and says how many it set; permissions already attached are left as they are;
 * - `listSharedWith` lists the `active` files on which `userId` holds a permission, each
 *   with that role and `sharedAt` (the permission's `createdAt`), filtered by
 *   `nameContains` and ordered by `sort` exactly as `FileRepository.listByOwner`
 *   filters and orders files, default `NEWEST_SHARE_FIRST` (`sharedAt` descending, ties
 *   by file `id` in the same direction; `sharedFileOrder` is the order as a comparator),
 *   the slice `offset`/`limit` names, with `total` counting every match;
 * - `insertCopy` stores `permission` exactly as given and writes no activity (for copying
 *   an install into another store, whose file rows bring their activity); it stores
 *   nothing and returns false when a permission with its id, or its file and email, is
 *   there already, and throws for a file that does not exist;
 * - a file's permissions go when the file is removed (purge);
 * - records come back equal to what was stored, dates to the millisecond.
 */
export interface PermissionRepository {
  upsert(input: {
    permission: PermissionRecord;
    limit: number;
    activity: { shared: ActivityEntry; roleChanged: ActivityEntry };
  }): Promise<UpsertPermissionResult>;
  insertCopy(permission: PermissionRecord): Promise<boolean>;
  listByFile(query: { fileId: string }): Promise<Permission[]>;
  findById(id: string): Promise<PermissionRecord | null>;
  findRole(query: { fileId: string; userId: string }): Promise<Role | null>;
  changeRole(input: {
    fileId: string;
    id: string;
    role: Role;
    updatedAt: Date;
    activity: ActivityEntry;
  }): Promise<PermissionRecord | null>;
  remove(input: { fileId: string; id: string; activity: ActivityEntry }): Promise<PermissionRecord | null>;
  attachPending(input: { email: string; userId: string }): Promise<number>;
  listSharedWith(query: { userId: string } & SharedFileListQuery): Promise<SharedFilePage>;
}
