/**
 * What a listing shows, as its page's address says it: `/files?q=bud&sort=name`. The
 * address holds it so that a reload, a bookmark and Back all come to the same list; the
 * server does the searching and sorting (`q` and `sort` on `GET /v1/files`).
 */

import type { operations } from "@cellar/client";

/** The orders the API sorts by: a field, ascending, or descending with a leading `-`. */
export type FileSort = NonNullable<NonNullable<operations["listFiles"]["parameters"]["query"]>["sort"]>;
/** The API's own default: newest first. Left out of the address. */
export const DEFAULT_SORT: FileSort = "-created_at";

/** Each order as the sort menu words it, in the menu's order. Keyed by the API's document: an order it adds fails the type check until it has words here. */
export const SORT_LABELS: Readonly<Record<FileSort, string>> = {
  "-created_at": "Newest first",
  created_at: "Oldest first",
  "-updated_at": "Recently updated",
  updated_at: "Least recently updated",
  name: "Name, A to Z",
  "-name": "Name, Z to A",
  "-size": "Largest first",
  size: "Smallest first",
};
export const FILE_SORTS = Object.keys(SORT_LABELS) as readonly FileSort[];

export interface ListQuery {
  /** Text the names must contain, any case; "" for every file. */
  readonly q: string;
  readonly sort: FileSort;
}

/** The query an address holds; an unknown `sort` (an old or edited link) falls back to the default. */
export function readQuery(url: URL): ListQuery {
  const sort = url.searchParams.get("sort");
  return {
    q: url.searchParams.get("q") ?? "",
    sort: (FILE_SORTS as readonly string[]).includes(sort ?? "") ? (sort as FileSort) : DEFAULT_SORT,
  };
}

/** The address of `path` showing `query`, with defaults left out: `/files` rather than `/files?q=&sort=-created_at`. */
export function addressOf(path: string, query: ListQuery): string {
  const params = new URLSearchParams();
  if (query.q !== "") params.set("q", query.q);
  if (query.sort !== DEFAULT_SORT) params.set("sort", query.sort);
  const search = params.toString();
  return search === "" ? path : `${path}?${search}`;
}

/** A sortable column's field, and the direction it sorts in first: names A to Z, the biggest and latest first. */
export const COLUMN_SORTS = {
  name: { ascending: "name", descending: "-name", first: "name" },
  size: { ascending: "size", descending: "-size", first: "-size" },
  updated_at: { ascending: "updated_at", descending: "-updated_at", first: "-updated_at" },
} as const satisfies Record<string, { ascending: FileSort; descending: FileSort; first: FileSort }>;
export type SortColumn = keyof typeof COLUMN_SORTS;

/** How a column is sorted now: for its header's `aria-sort`. */
export function sortedBy(sort: FileSort, column: SortColumn): "ascending" | "descending" | undefined {
  const { ascending, descending } = COLUMN_SORTS[column];
  return sort === ascending ? "ascending" : sort === descending ? "descending" : undefined;
}

/** A header's click: the other direction when the column is sorted already, else its first direction. */
export function nextSort(sort: FileSort, column: SortColumn): FileSort {
  const { ascending, descending, first } = COLUMN_SORTS[column];
  return sort === ascending ? descending : sort === descending ? ascending : first;
}
