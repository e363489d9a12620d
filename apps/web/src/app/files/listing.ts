import { apiError, type CellarFile, type StreamEvent } from "@cellar/client";
import { signal } from "@preact/signals";
import { messageOf } from "../messages.js";
import { client, endIfRefused } from "../session.js";
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
        const refused = await apiError(response, body);
        // A session signed out from another device, or expired: the sign-in page, saying so.
        if (!endIfRefused(refused)) error.value = refused.message;
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

  /** A reload soon, for changes this page cannot place itself (a file new to the list): several make one. */
  let soon: ReturnType<typeof setTimeout> | undefined;
  function reloadSoon(): void {
    clearTimeout(soon);
    soon = setTimeout(() => void reload(), 250);
  }

  /** Whether a file, as an event tells it now, belongs in this list. */
  const belongs = (file: CellarFile) =>
    kind === "trash"
      ? file.trashed_at !== null && file.role === "owner"
      : file.trashed_at === null && (kind === "shared" ? file.role !== "owner" : file.role === "owner");

  /** Changes one file of the page shown, in place (`next` null: takes it off), keeping the rest as they are. */
  function patch(id: string, next: CellarFile | null): boolean {
    const now = current.value;
    if (now === null || !now.files.some((file) => file.id === id)) return false;
    const files =
      next === null
        ? now.files.filter((file) => file.id !== id)
        : now.files.map((file) => (file.id === id ? next : file));
    current.value = { ...now, files, total: now.total - (now.files.length - files.length) };
    return true;
  }

  /**
   * An event of the account's stream (`GET /events`, docs/api.md): a file shown changes
   * or leaves the list in place, without reading it again; one that is new to it (shared
   * with you, restored, uploaded elsewhere) is placed by a reload, as is everything
   * after a `reset`.
   */
  function apply(event: StreamEvent): void {
    if (event.event === "file" || event.event === "shared") {
      const file = event.data as CellarFile;
      if (belongs(file)) {
        if (!patch(file.id, file)) reloadSoon();
      } else patch(file.id, null);
    } else if (event.event === "unshared") {
      patch((event.data as { file_id: string }).file_id, null);
    } else if (event.event === "reset") {
      reloadSoon();
    }
  }

  return { page, perPage, query, current, error, loading, reload, show, apply };
}

export type Listing = ReturnType<typeof createListing>;
