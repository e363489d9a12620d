import { type CellarFile, type components, unwrap } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { messageOf } from "../../messages.js";
import { client } from "../../session.js";
import { describe } from "./activity-words.js";
import { useModal } from "./dialog.js";

type Entry = components["schemas"]["ActivityEntry"];

/** Entries a page: enough to fill the dialog, few enough to come at once. */
const PER_PAGE = 20;

/** Who did what to a file and when, newest first, a page at a time. A modal dialog, as the share dialog. */
export function ActivityDialog(props: { file: CellarFile; onClose: () => void }) {
  const dialog = useModal();
  const entries = useSignal<readonly Entry[]>([]);
  const page = useSignal(0);
  const more = useSignal(false);
  const loading = useSignal(false);
  const problem = useSignal<string | null>(null);
  // After "Load more", focus goes to the first entry it brought: the button may be gone.
  const focusNext = useRef<string | null>(null);

  async function loadMore() {
    loading.value = true;
    try {
      const next = page.value + 1;
      const answer = client.value.api.GET("/files/{id}/activity", {
        params: { path: { id: props.file.id }, query: { page: String(next), per_page: String(PER_PAGE) } },
      });
      const got = await unwrap(answer);
      const { response } = await answer;
      if (next > 1) focusNext.current = got[0]?.id ?? null;
      entries.value = [...entries.value, ...got];
      page.value = next;
      more.value = next < Number(response.headers.get("x-total-pages") ?? "0");
      problem.value = null;
    } catch (error) {
      problem.value = messageOf(error);
    } finally {
      loading.value = false;
    }
  }

  useEffect(() => {
    loadMore();
  }, []);
  useEffect(() => {
    if (focusNext.current === null) return;
    document.getElementById(`entry-${focusNext.current}`)?.focus();
    focusNext.current = null;
  }, [entries.value.length]);

  return (
    <dialog ref={dialog} class="dialog activity" aria-labelledby="activity-title" onClose={props.onClose}>
      <h2 id="activity-title">Activity of {props.file.name}</h2>
      {problem.value !== null && (
        <p role="alert" class="notice error">
          {problem.value}
        </p>
      )}
      {page.value === 0 && problem.value === null ? (
        <p class="muted">Loading…</p>
      ) : (
        <ol class="activity-list" aria-label="Activity, newest first">
          {entries.value.map((entry) => (
            <li key={entry.id} id={`entry-${entry.id}`} tabIndex={-1}>
              <span>
                <strong>{entry.actor?.name ?? "A former user"}</strong> {describe(entry)}
              </span>
              <time class="muted" dateTime={entry.at}>
                {new Date(entry.at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })}
              </time>
            </li>
          ))}
        </ol>
      )}
      <div class="dialog-actions">
        {more.value && (
          <button type="button" disabled={loading.value} onClick={loadMore}>
            Load more
          </button>
        )}
        <button type="button" class="primary" onClick={() => dialog.current?.close()}>
          Done
        </button>
      </div>
    </dialog>
  );
}
