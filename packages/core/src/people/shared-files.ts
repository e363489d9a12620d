import type { FileRecord } from "../files/file.entity.js";
import { fileListOrder } from "../files/file-listing.js";
import { compareCodePoints } from "../files/file-name-key.js";
import type { FileListQuery, FileSort, FileSortField } from "../files/file-repository.port.js";
import type { Role } from "./role.js";

/** A file someone shared with the caller: the file, the role they gave, and when they first gave one. */
export interface SharedFile {
  readonly file: FileRecord;
  readonly role: Role;
  /** When the permission was made (a later change of role does not move it). */
  readonly sharedAt: Date;
}

/** One slice of the files shared with someone, and how many there are in all. */
export interface SharedFilePage {
  readonly items: SharedFile[];
  readonly total: number;
}

/** What the files shared with someone are ordered by: any file order, or when each was shared. */
export interface SharedFileSort {
  readonly field: FileSortField | "sharedAt";
  readonly descending: boolean;
}

/** The order of a listing of shared files that names none: newest share first. */
export const NEWEST_SHARE_FIRST: SharedFileSort = Object.freeze({ field: "sharedAt", descending: true });

/** A listing of the files shared with someone: a listing of files, ordered by share by default. */
export type SharedFileListQuery = Omit<FileListQuery, "sort"> & {
  /** Default `NEWEST_SHARE_FIRST`. */
  readonly sort?: SharedFileSort;
};

/**
 * A shared listing's order as a comparator: by share time, or as `fileListOrder` orders
 * files; ties by the file's `id`, in the sort's direction. Stores that sort in a database
 * give the same order; the in-memory one sorts with this.
 */
export function sharedFileOrder(sort: SharedFileSort = NEWEST_SHARE_FIRST): (a: SharedFile, b: SharedFile) => number {
  if (sort.field !== "sharedAt") {
    const byFile = fileListOrder(sort as FileSort);
    return (a, b) => byFile(a.file, b.file);
  }
  const sign = sort.descending ? -1 : 1;
  return (a, b) => sign * (a.sharedAt.getTime() - b.sharedAt.getTime() || compareCodePoints(a.file.id, b.file.id));
}
