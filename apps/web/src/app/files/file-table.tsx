import { type CellarFile, formatBytes, unwrap } from "@cellar/client";
import { useSignal } from "@preact/signals";
import type { JSX } from "preact";
import { messageOf } from "../messages.js";
import { navigate } from "../router.js";
import { client } from "../session.js";
import { download } from "./download.js";
import { type Listing, when } from "./listing.js";

/** A page of files (or of the trash), with what can be done to each and to those selected. */
export function FileTable(props: { listing: Listing; trash: boolean }) {
  const { listing, trash } = props;
  const selected = useSignal<ReadonlySet<string>>(new Set());
  const renaming = useSignal<string | null>(null);
  const status = useSignal<string | null>(null);
  const page = listing.current.value;

  async function act(work: () => Promise<unknown>, done: string) {
    try {
      await work();
      status.value = done;
    } catch (error) {
      status.value = messageOf(error);
    }
    await listing.reload();
  }

  const each = (ids: Iterable<string>, one: (id: string) => Promise<unknown>) => Promise.all([...ids].map(one));
  const toTrash = (id: string) => unwrap(client.value.api.DELETE("/files/{id}", { params: { path: { id } } }));
  const restore = (id: string) => unwrap(client.value.api.POST("/files/{id}/restore", { params: { path: { id } } }));

  if (page === null) return <p>Loading…</p>;
  if (page.files.length === 0) {
    return trash ? (
      <p class="empty">The trash is empty. Files you move here stay 30 days before they are deleted for good.</p>
    ) : (
      <p class="empty">No files yet. Drop .csv, .xlsx or .sheet files here, or choose them with “Upload files”.</p>
    );
  }

  const toggle = (id: string) => {
    const next = new Set(selected.value);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    selected.value = next;
  };

  const rename = (file: CellarFile) => (event: JSX.TargetedEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name") ?? "");
    renaming.value = null;
    return act(
      () => unwrap(client.value.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name } })),
      `Renamed to ${name}.`,
    );
  };

  return (
    <>
      <div class="bar">
        <span>
          {selected.value.size > 0
            ? `${selected.value.size} selected`
            : `${page.total} file${page.total === 1 ? "" : "s"}`}
        </span>
        {selected.value.size > 0 && (
          <button
            type="button"
            onClick={() =>
              act(
                () => each(selected.value, trash ? restore : toTrash),
                trash ? "Restored." : "Moved to the trash.",
              ).then(() => (selected.value = new Set()))
            }
          >
            {trash ? "Restore selected" : "Move selected to the trash"}
          </button>
        )}
      </div>
      <p role="status" class="status">
        {status.value}
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">
              <input
                type="checkbox"
                aria-label="Select every file on this page"
                checked={page.files.every((file) => selected.value.has(file.id))}
                onChange={(event) =>
                  (selected.value = (event.target as HTMLInputElement).checked
                    ? new Set(page.files.map((file) => file.id))
                    : new Set())
                }
              />
            </th>
            <th scope="col">Name</th>
            <th scope="col">Size</th>
            <th scope="col">{trash ? "Deleted for good after" : "Updated"}</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {page.files.map((file) => (
            <tr key={file.id}>
              <td>
                <input
                  type="checkbox"
                  aria-label={`Select ${file.name}`}
                  checked={selected.value.has(file.id)}
                  onChange={() => toggle(file.id)}
                />
              </td>
              <td>
                {renaming.value === file.id ? (
                  <form onSubmit={rename(file)} class="inline">
                    <input
                      name="name"
                      aria-label={`New name for ${file.name}`}
                      value={file.name}
                      required
                      // Opened by the Rename button: typing goes straight into the name.
                      ref={(input) => {
                        if (input !== null && document.activeElement?.closest("form") !== input.form) {
                          input.focus();
                          input.select();
                        }
                      }}
                      onKeyDown={(event) => {
                        if (event.key === "Escape") renaming.value = null;
                      }}
                    />
                    <button type="submit">Save</button>
                    <button type="button" onClick={() => (renaming.value = null)}>
                      Cancel
                    </button>
                  </form>
                ) : (
                  <>
                    {trash ? (
                      file.name
                    ) : (
                      <a
                        href={`/files/${file.id}`}
                        onClick={(event) => {
                          event.preventDefault();
                          navigate(`/files/${file.id}`);
                        }}
                      >
                        {file.name}
                      </a>
                    )}
                    {file.visibility === "public" && <span class="badge">public</span>}
                  </>
                )}
              </td>
              <td class="number">{formatBytes(file.size)}</td>
              <td>{when(trash ? file.purge_at : file.updated_at)}</td>
              <td>
                <div class="actions">
                  {trash ? (
                    <button type="button" onClick={() => act(() => restore(file.id), `${file.name} is restored.`)}>
                      Restore <span class="visually-hidden">{file.name}</span>
                    </button>
                  ) : (
                    <>
                      <button
                        type="button"
                        onClick={() => download(file).catch((error) => (status.value = messageOf(error)))}
                      >
                        Download <span class="visually-hidden">{file.name}</span>
                      </button>
                      <button type="button" onClick={() => (renaming.value = file.id)}>
                        Rename <span class="visually-hidden">{file.name}</span>
                      </button>
                      <button
                        type="button"
                        onClick={() =>
                          act(
                            () =>
                              unwrap(
                                client.value.api.PATCH("/files/{id}", {
                                  params: { path: { id: file.id } },
                                  body: { visibility: file.visibility === "public" ? "private" : "public" },
                                }),
                              ),
                            file.visibility === "public"
                              ? `${file.name} is private.`
                              : `${file.name} is public: any signed-in user with its link can open it (${location.origin}/files/${file.id}).`,
                          )
                        }
                      >
                        {file.visibility === "public" ? "Unshare" : "Share"}{" "}
                        <span class="visually-hidden">{file.name}</span>
                      </button>
                      <button
                        type="button"
                        onClick={() => act(() => toTrash(file.id), `${file.name} is in the trash.`)}
                      >
                        Move to trash <span class="visually-hidden">{file.name}</span>
                      </button>
                    </>
                  )}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav aria-label="Pages" class="bar">
        <button
          type="button"
          disabled={listing.page.value <= 1}
          onClick={() => {
            listing.page.value--;
            listing.reload();
          }}
        >
          Previous page
        </button>
        <span>
          Page {listing.page.value} of {Math.max(page.pages, 1)}
        </span>
        <button
          type="button"
          disabled={listing.page.value >= page.pages}
          onClick={() => {
            listing.page.value++;
            listing.reload();
          }}
        >
          Next page
        </button>
        <label>
          Per page{" "}
          <select
            value={String(listing.perPage.value)}
            onChange={(event) => {
              listing.perPage.value = Number((event.target as HTMLSelectElement).value);
              listing.page.value = 1;
              listing.reload();
            }}
          >
            {[25, 50, 100].map((size) => (
              <option key={size} value={String(size)}>
                {size}
              </option>
            ))}
          </select>
        </label>
      </nav>
    </>
  );
}
