import { CellarApiError, type CellarFile, type FileVersion, formatBytes, unwrap } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { download } from "../files/download.js";
import { useModal } from "../files/people/dialog.js";
import { mayEdit } from "../files/roles.js";
import { messageOf } from "../messages.js";
import { client } from "../session.js";

/** Versions a page: enough to fill the dialog, few enough to come at once. */
const PER_PAGE = 20;

/**
 * The versions of a file's content, newest first, a page at a time: who made each and
 * when, the current one and the kept ones marked. Each downloads; an editor or the owner
 * restores an earlier one (as a new version, based on the content the list shows as
 * current: when someone changed it meanwhile, it says so and shows the versions now).
 * A modal dialog, as the activity dialog.
 */
export function HistoryDialog(props: {
  file: CellarFile;
  /** The file changed from here (a version restored), or was found changed: its content is new. */
  onChanged: (file: CellarFile) => void;
  onClose: () => void;
}) {
  const dialog = useModal();
  const versions = useSignal<readonly FileVersion[]>([]);
  const page = useSignal(0);
  const more = useSignal(false);
  const busy = useSignal(false);
  const problem = useSignal<string | null>(null);
  const said = useSignal("");
  const { file } = props;
  const restores = mayEdit(file.role);

  async function load(next: number) {
    busy.value = true;
    try {
      const answer = client.value.api.GET("/files/{id}/versions", {
        params: { path: { id: file.id }, query: { page: String(next), per_page: String(PER_PAGE) } },
      });
      const got = await unwrap(answer);
      const { response } = await answer;
      versions.value = next === 1 ? got : [...versions.value, ...got];
      page.value = next;
      more.value = next < Number(response.headers.get("x-total-pages") ?? "0");
    } catch (error) {
      problem.value = messageOf(error);
    } finally {
      busy.value = false;
    }
  }

  useEffect(() => {
    load(1);
  }, []);

  /** Downloads a version, saying so here: the toasts are behind the dialog. */
  function save(version: number) {
    said.value = `Downloading version ${version}…`;
    download(file, version).then(
      () => (said.value = `Download started: version ${version} of ${file.name}`),
      (error: unknown) => {
        said.value = "";
        problem.value = messageOf(error);
      },
    );
  }

  async function restore(version: FileVersion) {
    busy.value = true;
    problem.value = null;
    said.value = `Restoring version ${version.version}…`;
    try {
      // Based on the content the list shows as current: what the reader chose against.
      const current = versions.value.find((each) => each.current)?.sha256 ?? file.sha256;
      const restored = await client.value.restoreVersion(file.id, version.version, { ifMatch: current });
      said.value = `Restored version ${version.version}: it is the content again, as version ${restored.version}.`;
      props.onChanged(restored);
    } catch (error) {
      said.value = "";
      if (error instanceof CellarApiError && error.code === "precondition_failed") {
        problem.value =
          "The file changed since you opened it, so nothing was restored. Here are its versions now: restore again if you still want to.";
        const now = await unwrap(client.value.api.GET("/files/{id}", { params: { path: { id: file.id } } })).catch(
          () => null,
        );
        if (now !== null) props.onChanged(now);
      } else {
        problem.value = messageOf(error);
      }
    } finally {
      busy.value = false;
    }
    await load(1);
  }

  return (
    <dialog ref={dialog} class="dialog history" aria-labelledby="history-title" onClose={props.onClose}>
      <h2 id="history-title">Versions of {file.name}</h2>
      {problem.value !== null && (
        <p role="alert" class="notice error">
          {problem.value}
        </p>
      )}
      {page.value === 0 && problem.value === null ? (
        <p class="muted">Loading…</p>
      ) : (
        <ol class="activity-list versions" aria-label="Versions, newest first">
          {versions.value.map((version) => (
            <li key={version.version}>
              <span class="version-what">
                <span class="version-name">
                  <strong>Version {version.version}</strong>
                  {version.current && <span class="badge">Current</span>}
                  {version.keep && <span class="badge">Kept</span>}
                </span>
                <span class="muted">
                  {version.author === null ? "A former user" : `${version.author.name} (${version.author.email})`}
                  {" · "}
                  <time dateTime={version.created_at}>
                    {new Date(version.created_at).toLocaleString(undefined, {
                      dateStyle: "medium",
                      timeStyle: "short",
                    })}
                  </time>
                  {` · ${formatBytes(version.size)}`}
                </span>
              </span>
              <span class="person-actions">
                <button
                  type="button"
                  class="small"
                  aria-label={`Download version ${version.version}`}
                  onClick={() => save(version.version)}
                >
                  Download
                </button>
                {restores && !version.current && (
                  <button
                    type="button"
                    class="small"
                    aria-label={`Restore version ${version.version}`}
                    disabled={busy.value}
                    onClick={() => restore(version)}
                  >
                    Restore
                  </button>
                )}
              </span>
            </li>
          ))}
        </ol>
      )}
      <p role="status" class="copy-status">
        {said.value}
      </p>
      <div class="dialog-actions">
        {more.value && (
          <button type="button" disabled={busy.value} onClick={() => load(page.value + 1)}>
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
