import { type FieldProblem, invalidFields } from "../shared/errors.js";
import { type PageRequest, readPageRequest } from "../shared/pagination.js";
import { hasForbiddenCharacters } from "../shared/text-rules.js";
import type { FileRecord } from "./file.entity.js";
import { compareCodePoints, fileNameKey } from "./file-name-key.js";
import { type FileSort, type FileSortField, NEWEST_FIRST } from "./file-repository.port.js";

/**
 * The `sort` values a listing accepts, as clients write them: a field, ascending, or with
 * a leading `-`, descending.
 */
export const FILE_SORTS = [
  "created_at",
  "-created_at",
  "updated_at",
  "-updated_at",
  "name",
  "-name",
  "size",
  "-size",
] as const;

export type FileSortName = (typeof FILE_SORTS)[number];

/** What a listing is sorted by when it names nothing: newest first. */
export const DEFAULT_FILE_SORT: FileSortName = "-created_at";

/** The longest search text, in characters (code points). */
export const MAX_SEARCH_LENGTH = 100;

const SORT_FIELDS: Readonly<Record<string, FileSortField>> = {
  created_at: "createdAt",
  updated_at: "updatedAt",
  name: "name",
  size: "size",
};

/** A listing request after validation: the page, the search text if any, the order. */
export interface FileListRequest {
  readonly page: PageRequest;
  readonly nameContains: string | undefined;
  readonly sort: FileSort;
}

/**
 * Validates what a client asked of a listing, every field at once: `page` and `per_page`
 * (see `readPageRequest`), `q` (1–100 characters, no control characters: a name holds
 * none, so such a search could never find anything) and `sort` (one of `FILE_SORTS`).
 * Throws one `validation_error` naming every wrong field.
 */
export function toFileListRequest(input: {
  page?: unknown;
  perPage?: unknown;
  q?: unknown;
  sort?: unknown;
}): FileListRequest {
  const problems: FieldProblem[] = [];
  const page = readPageRequest(input, problems);
  const { q } = input;
  if (q !== undefined) {
    const length = typeof q === "string" ? [...q].length : -1;
    if (typeof q !== "string") problems.push({ field: "q", message: "must be a string" });
    else if (length === 0) problems.push({ field: "q", message: "must not be empty" });
    else if (length > MAX_SEARCH_LENGTH) {
      problems.push({ field: "q", message: `must be at most ${MAX_SEARCH_LENGTH} characters` });
    } else if (hasForbiddenCharacters(q)) {
      problems.push({ field: "q", message: "must not contain control characters" });
    }
  }
  const sortName = input.sort ?? DEFAULT_FILE_SORT;
  if (!(FILE_SORTS as readonly unknown[]).includes(sortName)) {
    problems.push({ field: "sort", message: `must be one of ${FILE_SORTS.map((s) => `'${s}'`).join(", ")}` });
  }
  if (problems.length > 0) throw invalidFields(problems);
  return { page, nameContains: q as string | undefined, sort: parseFileSort(sortName as FileSortName) };
}

/** The order a `sort` value names. */
export function parseFileSort(name: FileSortName): FileSort {
  const descending = name.startsWith("-");
  const field = SORT_FIELDS[descending ? name.slice(1) : name];
  if (field === undefined) throw new RangeError(`Not a file sort: ${name}`);
  return { field, descending };
}

/**
 * A listing's order as a comparator of records: by the sort's field, then by `id`, both
 * in the sort's direction. Names compare by key, code point by code point. Stores that
 * sort in a database give the same order; the in-memory one sorts with this.
 */
export function fileListOrder(sort: FileSort = NEWEST_FIRST): (a: FileRecord, b: FileRecord) => number {
  const byField = FIELD_ORDERS[sort.field];
  const sign = sort.descending ? -1 : 1;
  return (a, b) => sign * (byField(a, b) || compareCodePoints(a.id, b.id));
}

const FIELD_ORDERS: Readonly<Record<FileSortField, (a: FileRecord, b: FileRecord) => number>> = {
  createdAt: (a, b) => a.createdAt.getTime() - b.createdAt.getTime(),
  updatedAt: (a, b) => a.updatedAt.getTime() - b.updatedAt.getTime(),
  size: (a, b) => a.size - b.size,
  name: (a, b) => compareCodePoints(fileNameKey(a.name), fileNameKey(b.name)),
};
