import { apiError, type CellarFile } from "@cellar/client";
import { signal } from "@preact/signals";
import { client } from "../session.js";

/** One page of a listing, as the API counted it. */
export interface Page {
  readonly files: readonly CellarFile[];
  readonly total: number;
  readonly pages: number;
}

/** The files or the trash, a page at a time; `reload()` after any change. */
export function createListing(trashed: boolean) {
  const page = signal(1);
  // 50 a page, not the API's 25: a screen holds that many rows, and one request costs the same.
  const perPage = signal(50);
  const current = signal<Page | null>(null);
  const error = signal<string | null>(null);

  async function reload(): Promise<void> {
    const {
      data,
      error: body,
      response,
    } = await client.value.api.GET("/files", {
      params: {
        query: {
          page: String(page.value),
          per_page: String(perPage.value),
          ...(trashed ? { trashed: "true" } : {}),
        },
      },
    });
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
  }

  return { page, perPage, current, error, reload };
}

export type Listing = ReturnType<typeof createListing>;

/** A date as the reader's locale writes it, with the time. */
export function when(iso: string | null): string {
  return iso === null ? "" : new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}
