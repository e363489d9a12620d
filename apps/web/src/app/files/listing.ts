import { apiError, type CellarFile } from "@cellar/client";
import { signal } from "@preact/signals";
import { messageOf } from "../messages.js";
import { client } from "../session.js";
import { DEFAULT_SORT, type ListQuery } from "./query.js";

/** One page of a listing, as the API counted it. */
export interface Page {
  readonly files: readonly CellarFile[];
  readonly total: number;
  readonly pages: number;
}

/** Which list: your files, your trash, or the files others share with you. */
export type ListKind = "files" | "trash" | "shared";

/** A list of files, a page at a time, searched and sorted by the server; `reload()` after any change. */
export function createListing(kind: ListKind) {
  const page = signal(1);
  // 50 a page, not the API's 25: a screen holds that many rows, and one request costs the same.
  const perPage = signal(50);
  const query = signal<ListQuery>({ q: "", sort: DEFAULT_SORT });
  const current = signal<Page | null>(null);
  const error = signal<string | null>(null);
  const loading = signal(false);
  // Answers can arrive out of order (a search typed fast): only the latest request's is shown.
  let latest = 0;

  async function reload(): Promise<void> {
    const ticket = ++latest;
    loading.value = true;
    try {
      const { q, sort } = query.value;
      const {
        data,
        error: body,
        response,
      } = await client.value.api.GET("/files", {
        params: {
          query: {
            page: String(page.value),
            per_page: String(perPage.value),
            ...(kind === "trash" ? { trashed: "true" } : kind === "shared" ? { shared: "true" } : {}),
            ...(q === "" ? {} : { q }),
            ...(sort === DEFAULT_SORT ? {} : { sort }),
          },
        },
      });
      if (ticket !== latest) return;
      if (!response.ok || data === undefined) {
        error.value = (await apiError(response, body)).message;
        return;
      }
      const pages = Number(response.headers.get("x-total-pages") ?? "1");
      // A page emptied by the last change: show the one before it.
      if (data.length === 0 && page.value > 1 && page.value > pages) {
        page.value = Math.max(1, pages);
        return reload();
      }
      error.value = null;
      current.value = { files: data, total: Number(response.headers.get("x-total-count") ?? data.length), pages };
    } catch (caught) {
      if (ticket === latest) error.value = messageOf(caught);
    } finally {
      if (ticket === latest) loading.value = false;
    }
  }

  /** Shows what `next` asks for, from its first page when it asks for something else than before. */
  function show(next: ListQuery): Promise<void> {
    if (next.q !== query.value.q || next.sort !== query.value.sort) {
      query.value = next;
      page.value = 1;
    }
    return reload();
  }

  return { page, perPage, query, current, error, loading, reload, show };
}

export type Listing = ReturnType<typeof createListing>;
