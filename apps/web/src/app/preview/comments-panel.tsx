import { apiError, type CellarFile } from "@cellar/client";
import { useSignal } from "@preact/signals";
import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import { messageOf } from "../messages.js";
import { client } from "../session.js";
import { say } from "../toast.js";
import type { Comment, Comments, Thread } from "./comments.js";

/** Who may write comments: commenters, editors and the owner (decisions §7). */
export const mayComment = (role: CellarFile["role"]) => role === "owner" || role === "editor" || role === "commenter";

const authorName = (comment: Comment) => comment.author?.name || comment.author?.email || "Someone no longer here";
const where = (thread: Thread) => (thread.root.range === null ? "the whole file" : thread.root.range);

/**
 * A file's comments beside its grid: a new thread on the active cell or on the file, and
 * each thread with its replies; reply, resolve or reopen, edit and delete as the reader's
 * role allows (viewers read only; a thread is resolved by its author or an editor, a
 * comment deleted by its author or the owner). What others write arrives through the
 * file's stream.
 */
export function CommentsPanel(props: {
  file: CellarFile;
  comments: Comments;
  /** The reader's user id (null until known): whose comments are theirs. */
  me: string | null;
  /** The active cell, as a range of the sheet shown (`B2`, `Data!B2`), to write a new thread on. */
  cell: string | null;
  /** A thread to show and focus (a marked cell pressed), and a count that tells one request from the next. */
  focus: { readonly id: string; readonly seq: number } | null;
  onClose: () => void;
}) {
  const { file, comments, me } = props;
  const writes = mayComment(file.role);
  const onCell = useSignal(true);
  const busy = useSignal(false);
  const editingId = useSignal<string | null>(null);

  useEffect(() => {
    if (props.focus === null) return;
    const element = document.getElementById(`thread-${props.focus.id}`);
    element?.scrollIntoView({ block: "nearest" });
    element?.focus();
  }, [props.focus?.seq]);

  /** Sends one change; the panel shows the comment as the answer has it (its event may come before or after). */
  async function send(work: () => Promise<void>): Promise<boolean> {
    busy.value = true;
    try {
      await work();
      return true;
    } catch (error) {
      say(`Not done: ${messageOf(error)}`, "error");
      return false;
    } finally {
      busy.value = false;
    }
  }
  const api = () => client.value.api;

  async function write(text: string, more: { range?: string | null; parent_id?: string }): Promise<boolean> {
    return send(async () => {
      const { data, error, response } = await api().POST("/files/{id}/comments", {
        params: { path: { id: file.id } },
        body: { text, ...more },
      });
      if (data === undefined) throw await apiError(response, error);
      comments.keep(data);
    });
  }
  async function change(comment: Comment, body: { text?: string; resolved?: boolean }): Promise<boolean> {
    return send(async () => {
      const { data, error, response } = await api().PATCH("/files/{id}/comments/{cid}", {
        params: { path: { id: file.id, cid: comment.id } },
        body,
      });
      if (data === undefined) throw await apiError(response, error);
      comments.keep(data);
    });
  }
  async function remove(comment: Comment): Promise<void> {
    await send(async () => {
      const { error, response } = await api().DELETE("/files/{id}/comments/{cid}", {
        params: { path: { id: file.id, cid: comment.id } },
      });
      if (!response.ok) throw await apiError(response, error);
      comments.drop(comment.id);
    });
  }

  /** Sends a form's text, when it has any; the text is emptied once `done` says it was sent. */
  async function submitText(
    event: JSX.TargetedEvent<HTMLFormElement>,
    done: (text: string) => Promise<boolean>,
  ): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget;
    const text = String(new FormData(form).get("text") ?? "").trim();
    if (text === "") return;
    // Only the text is emptied: the form's other fields keep what the reader chose.
    const field = form.elements.namedItem("text");
    if ((await done(text)) && field instanceof HTMLTextAreaElement) field.value = "";
  }

  const threads = comments.threads.value;
  return (
    <aside class="comments-panel" aria-labelledby="comments-title">
      <div class="comments-head">
        <h2 id="comments-title">Comments</h2>
        <button type="button" class="quiet" onClick={props.onClose}>
          Close
        </button>
      </div>
      {writes ? (
        <form class="comment-form" onSubmit={(event) => submitText(event, (text) => write(text, newRange()))}>
          <label for="new-comment">New comment</label>
          <textarea id="new-comment" name="text" rows={3} required />
          {props.cell !== null && (
            <label class="check">
              <input
                type="checkbox"
                checked={onCell.value}
                onChange={(event) => (onCell.value = event.currentTarget.checked)}
              />
              About cell {props.cell}
            </label>
          )}
          <button type="submit" class="primary" disabled={busy.value}>
            Comment
          </button>
        </form>
      ) : (
        <p class="muted">You can read the comments; commenters, editors and the owner write them.</p>
      )}
      {comments.error.value !== null && (
        <p role="alert" class="notice error">
          {comments.error.value}
        </p>
      )}
      {comments.loaded.value && threads.length === 0 && <p class="muted">No comments yet.</p>}
      <ol class="threads">
        {threads.map((thread) => (
          <li key={thread.root.id}>{threadView(thread)}</li>
        ))}
      </ol>
    </aside>
  );

  function newRange(): { range?: string } {
    return onCell.value && props.cell !== null ? { range: props.cell } : {};
  }

  /** May the reader change this comment's text (its author, while they may comment)? */
  function mayChangeText(comment: Comment) {
    return writes && me !== null && comment.author?.id === me;
  }

  function commentView(comment: Comment): JSX.Element {
    const editing = editingId.value === comment.id;
    const deletes = mayChangeText(comment) || file.role === "owner";
    return (
      <li key={comment.id} class="comment">
        <p class="comment-meta">
          <strong>{authorName(comment)}</strong>{" "}
          <time dateTime={comment.created_at}>{new Date(comment.created_at).toLocaleString()}</time>
          {comment.updated_at !== comment.created_at && comment.parent_id !== null && " (edited)"}
        </p>
        {editing ? (
          <form
            class="comment-form"
            onSubmit={(event) =>
              submitText(event, async (text) => {
                const done = await change(comment, { text });
                if (done) editingId.value = null;
                return done;
              })
            }
          >
            <label for={`edit-${comment.id}`}>Edit your comment</label>
            <textarea id={`edit-${comment.id}`} name="text" rows={3} required defaultValue={comment.text} />
            <span class="actions">
              <button type="submit" class="primary" disabled={busy.value}>
                Save
              </button>
              <button type="button" onClick={() => (editingId.value = null)}>
                Cancel
              </button>
            </span>
          </form>
        ) : (
          <p class="comment-text">{comment.text}</p>
        )}
        {!editing && (mayChangeText(comment) || deletes) && (
          <span class="actions">
            {mayChangeText(comment) && (
              <button type="button" class="quiet small" onClick={() => (editingId.value = comment.id)}>
                Edit
              </button>
            )}
            {deletes && (
              <button type="button" class="quiet small" disabled={busy.value} onClick={() => remove(comment)}>
                Delete
              </button>
            )}
          </span>
        )}
      </li>
    );
  }

  function threadView(thread: Thread): JSX.Element {
    const { root } = thread;
    const resolves =
      writes && ((me !== null && root.author?.id === me) || file.role === "owner" || file.role === "editor");
    const focused = props.focus?.id === root.id;
    return (
      <article
        id={`thread-${root.id}`}
        tabIndex={-1}
        class={`thread${root.resolved ? " resolved" : ""}${focused ? " focused" : ""}`}
        aria-labelledby={`thread-title-${root.id}`}
      >
        <h3 id={`thread-title-${root.id}`}>
          {root.range === null ? "The whole file" : `On ${root.range}`}
          {root.resolved && <span class="badge">Resolved</span>}
        </h3>
        <ul class="comments">
          {commentView(root)}
          {thread.replies.map(commentView)}
        </ul>
        {resolves && (
          <button type="button" disabled={busy.value} onClick={() => change(root, { resolved: !root.resolved })}>
            {root.resolved ? "Reopen" : "Resolve"}
          </button>
        )}
        {writes && (
          <form
            class="comment-form reply"
            onSubmit={(event) => submitText(event, (text) => write(text, { parent_id: root.id }))}
          >
            <textarea name="text" rows={1} required aria-label={`Reply on ${where(thread)}`} placeholder="Reply…" />
            <button type="submit" disabled={busy.value}>
              Reply
            </button>
          </form>
        )}
      </article>
    );
  }
}
