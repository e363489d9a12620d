import { type components, unwrap } from "@cellar/client";
import { computed, signal } from "@preact/signals";
import { messageOf } from "../messages.js";
import { client } from "../session.js";

export type Comment = components["schemas"]["Comment"];

/** A thread: the comment that starts it (its range and state are the thread's) and its replies, oldest first. */
export interface Thread {
  readonly root: Comment;
  readonly replies: readonly Comment[];
}

/** What a `comment` event of a file's stream says (docs/api.md, "GET /files/:id/events"). */
export interface CommentEvent {
  readonly action: "created" | "edited" | "resolved" | "reopened" | "deleted";
  readonly comment_id: string;
  readonly parent_id: string | null;
  readonly comment: Comment | null;
}

/** Comments a page: the API's most, so that a file's comments come in few requests. */
const PER_PAGE = 100;

const order = (a: Comment, b: Comment) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * A file's comments, read once (every page) and then kept current from its stream's
 * `comment` events and from this page's own changes; both may tell the same change, which
 * does no harm, since each tells a comment as it is.
 */
export function createComments(fileId: string) {
  const all = signal<readonly Comment[]>([]);
  const loaded = signal(false);
  const error = signal<string | null>(null);

  const threads = computed<readonly Thread[]>(() => {
    const replies = new Map<string, Comment[]>();
    for (const comment of all.value) {
      if (comment.parent_id === null) continue;
      const list = replies.get(comment.parent_id);
      if (list === undefined) replies.set(comment.parent_id, [comment]);
      else list.push(comment);
    }
    return all.value
      .filter((comment) => comment.parent_id === null)
      .map((root) => ({ root, replies: replies.get(root.id) ?? [] }));
  });

  async function load(): Promise<void> {
    try {
      const read: Comment[] = [];
      for (let page = 1; ; page++) {
        const answer = client.value.api.GET("/files/{id}/comments", {
          params: { path: { id: fileId }, query: { page: String(page), per_page: String(PER_PAGE) } },
        });
        const got = await unwrap(answer);
        read.push(...got);
        const pages = Number((await answer).response.headers.get("x-total-pages") ?? "1");
        if (got.length === 0 || page >= pages) break;
      }
      all.value = read.sort(order);
      error.value = null;
    } catch (caught) {
      error.value = messageOf(caught);
    } finally {
      loaded.value = true;
    }
  }

  /** A comment as it is now: added, or put in place of the one with its id. */
  function keep(comment: Comment): void {
    const others = all.value.filter((each) => each.id !== comment.id);
    // A thread's state shows on its replies too.
    const next =
      comment.parent_id === null
        ? others.map((each) => (each.parent_id === comment.id ? { ...each, resolved: comment.resolved } : each))
        : others;
    all.value = [...next, comment].sort(order);
  }

  /** A comment gone, with its replies when it started a thread. */
  function drop(id: string): void {
    all.value = all.value.filter((each) => each.id !== id && each.parent_id !== id);
  }

  /** A `comment` event of the file's stream. */
  function apply(event: CommentEvent): void {
    if (event.action === "deleted" || event.comment === null) drop(event.comment_id);
    else keep(event.comment);
  }

  return { all, threads, loaded, error, load, keep, drop, apply };
}

export type Comments = ReturnType<typeof createComments>;
