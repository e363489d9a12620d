import { CellarApiError, type CellarFile, formatBytes, unwrap } from "@cellar/client";
import { useSignal } from "@preact/signals";
import {
  ArrowDown,
  ArrowUp,
  ArrowUpDown,
  Check,
  Download,
  Eye,
  Globe,
  History,
  Inbox,
  Link,
  LogOut,
  Pencil,
  RotateCcw,
  Search,
  Share2,
  TrashIcon,
  Users,
  X,
} from "lucide-preact";
import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import { messageOf } from "../messages.js";
import { navigate } from "../router.js";
import { client } from "../session.js";
import { say } from "../toast.js";
import { copyText, linkTo } from "./clipboard.js";
import { downloadSaying } from "./download.js";
import { KindMark } from "./kind-mark.js";
import type { Listing, ListKind } from "./listing.js";
import { PAGE_SIZES, Pages } from "./pages.js";
import { usePanels } from "./panels.js";
import { type ListQuery, nextSort, SORT_LABELS, type SortColumn, sortedBy } from "./query.js";
import {
  mayRename,
  mayShare,
  ONLY_EDITORS_RENAME,
  type PeopleAction,
  peopleActionRefused,
  ROLE_LABELS,
} from "./roles.js";
import { type MenuAction, RowMenu } from "./row-menu.js";
import { SEARCH_FIELD_ID, Toolbar } from "./toolbar.js";

const menuIdOf = (file: Pick<CellarFile, "id">) => `actions-${file.id}`;
/** Focus to an element once the list has changed, or to the search field when it is gone. */
function focusById(id: string | null): void {
  (document.getElementById(id ?? SEARCH_FIELD_ID) ?? document.getElementById(SEARCH_FIELD_ID))?.focus();
}

/**
 * A page of files (of yours, the trash, or shared with you): search and sort, each file's
 * actions in its menu as its role allows, several of your files selected to trash or
 * restore at once. The table keeps one shape in every state (loading, empty, renaming):
 * its columns are fixed in styles/files.css.
 */
export function FileTable(props: {
  listing: Listing;
  kind: ListKind;
  query: ListQuery;
  onQuery: (next: Partial<ListQuery>, typing?: boolean) => void;
}) {
  const { listing, kind, query, onQuery } = props;
  const trash = kind === "trash";
  const shared = kind === "shared";
  const selected = useSignal<ReadonlySet<string>>(new Set());
  const renaming = useSignal<string | null>(null);
  const panels = usePanels();
  const page = listing.current.value;
  const files = page?.files ?? [];

  // Another search, order or page shows other files: what was selected is not among them.
  useEffect(() => {
    selected.value = new Set();
  }, [query.q, query.sort, listing.page.value]);

  /** Runs a change, says how it went (`done`, unless what follows says it), and shows the list as it is now. */
  async function act(work: () => Promise<unknown>, done: string | null) {
    try {
      await work();
      if (done !== null) say(done, "success");
    } catch (error) {
      say(messageOf(error), "error");
    }
    await listing.reload();
  }

  const each = (ids: Iterable<string>, one: (id: string) => Promise<unknown>) => Promise.all([...ids].map(one));
  const toTrash = (id: string) => unwrap(client.value.api.DELETE("/files/{id}", { params: { path: { id } } }));
  const restore = (id: string) => unwrap(client.value.api.POST("/files/{id}/restore", { params: { path: { id } } }));

  /** Runs an action that takes a file out of this list, then focuses the next file's menu. */
  function removeRow(file: CellarFile, work: () => Promise<unknown>, done: string) {
    const at = files.indexOf(file);
    const neighbour = files[at + 1] ?? files[at - 1];
    act(work, done).then(() => focusById(neighbour === undefined ? null : menuIdOf(neighbour)));
  }

  async function copyLink(file: CellarFile) {
    if (await copyText(linkTo(file))) say("Link copied", "success");
    else panels.open({ panel: "share", file, copyFailed: true, onChange: () => listing.reload() });
  }

  /** Takes the signed-in user off a file shared with them: their permission is the one naming their account. */
  async function leave(file: CellarFile) {
    const api = client.value.api;
    const me = await unwrap(api.GET("/users/me"));
    const people = await unwrap(api.GET("/files/{id}/permissions", { params: { path: { id: file.id } } }));
    const mine = people.find((person) => person.user?.id === me.id || person.email === me.email);
    // Shared by a role that was taken away meanwhile: there is nothing left to leave.
    if (mine === undefined) throw new CellarApiError(404, "not_found", `${file.name} is no longer shared with you.`);
    await unwrap(api.DELETE("/files/{id}/permissions/{pid}", { params: { path: { id: file.id, pid: mine.id } } }));
  }

  const stopRenaming = (file: CellarFile) => {
    renaming.value = null;
    focusById(menuIdOf(file));
  };
  const rename = (file: CellarFile) => (event: JSX.TargetedEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name") ?? "");
    renaming.value = null;
    return act(
      () => unwrap(client.value.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name } })),
      `Renamed to ${name}.`,
    ).then(() => focusById(menuIdOf(file)));
  };

  function actionsOf(file: CellarFile): MenuAction[] {
    if (trash) {
      return [
        {
          label: "Restore",
          icon: RotateCcw,
          run: () => removeRow(file, () => restore(file.id), `${file.name} is restored.`),
        },
      ];
    }
    const open: MenuAction[] = [
      { label: "Open", icon: Eye, run: () => navigate(`/files/${file.id}`) },
      { label: "Download", icon: Download, run: () => downloadSaying(file) },
      {
        label: "Rename",
        icon: Pencil,
        run: () => (renaming.value = file.id),
        ...(mayRename(file.role) ? {} : { disabledBecause: ONLY_EDITORS_RENAME }),
      },
    ];
    // A public file seen with no role: its people and activity are not for the reader.
    const refused = (action: PeopleAction) => {
      const because = peopleActionRefused(file.role, action);
      return because === undefined ? {} : { disabledBecause: because };
    };
    const activity: MenuAction = {
      label: "Activity",
      icon: History,
      run: () => panels.open({ panel: "activity", file }),
      ...refused("activity"),
    };
    if (!mayShare(file.role)) {
      return [
        ...open,
        {
          label: "People",
          icon: Users,
          run: () => panels.open({ panel: "share", file, onChange: () => {} }),
          ...refused("people"),
        },
        activity,
        {
          label: "Leave",
          icon: LogOut,
          danger: true,
          run: () => removeRow(file, () => leave(file), `You left ${file.name}.`),
          ...refused("leave"),
        },
      ];
    }
    return [
      ...open,
      {
        label: "Share",
        icon: Share2,
        run: () => panels.open({ panel: "share", file, onChange: () => listing.reload() }),
      },
      ...(file.visibility === "public" ? [{ label: "Copy link", icon: Link, run: () => copyLink(file) }] : []),
      activity,
      {
        label: "Move to trash",
        icon: TrashIcon,
        danger: true,
        run: () => removeRow(file, () => toTrash(file.id), `${file.name} is in the trash.`),
      },
    ];
  }

  const toggle = (id: string) => {
    const next = new Set(selected.value);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    selected.value = next;
  };
  const allSelected = files.length > 0 && files.every((file) => selected.value.has(file.id));
  const someSelected = files.some((file) => selected.value.has(file.id));

  const sortHeader = (column: SortColumn, label: string, className: string) => {
    const direction = sortedBy(query.sort, column);
    const Arrow = direction === "ascending" ? ArrowUp : direction === "descending" ? ArrowDown : ArrowUpDown;
    return (
      <th scope="col" class={className} aria-sort={direction}>
        <button
          type="button"
          class="sort-header"
          onClick={() => onQuery({ sort: nextSort(query.sort, column) })}
          // The header's name stays the column's; what a press does is said as a description.
          title={`Sort by ${label.toLowerCase()}`}
        >
          {label}
          <Arrow class={direction === undefined ? "unsorted" : undefined} />
        </button>
      </th>
    );
  };

  const placeholder = (children: JSX.Element) => (
    <tr class="placeholder-row">
      <td colSpan={5} class="placeholder">
        {children}
      </td>
    </tr>
  );
  const emptyMessage =
    query.q !== "" ? (
      <>
        <Search />
        <p>
          No file{trash ? " in the trash" : shared ? " shared with you" : ""} has “{query.q}” in its name.{" "}
          <button type="button" class="link" onClick={() => onQuery({ q: "" })}>
            Clear the search
          </button>
        </p>
      </>
    ) : shared ? (
      <>
        <Users />
        <p>No one has shared a file with you yet. Files others share with you appear here.</p>
      </>
    ) : trash ? (
      <>
        <TrashIcon />
        <p>The trash is empty. Files you move here stay 30 days before they are deleted for good.</p>
      </>
    ) : (
      <>
        <Inbox />
        <p>No files yet. Drop .csv, .xlsx or .sheet files here, or choose them with “Upload files”.</p>
      </>
    );

  return (
    <>
      <Toolbar query={query} kind={kind} onQuery={onQuery} />
      <div class="summary">
        {selected.value.size > 0 ? (
          <>
            <strong>{selected.value.size} selected</strong>
            <button
              type="button"
              class={trash ? "small" : "small danger"}
              onClick={() =>
                act(
                  () => each(selected.value, trash ? restore : toTrash),
                  trash ? "Restored." : "Moved to the trash.",
                ).then(() => (selected.value = new Set()))
              }
            >
              {trash ? <RotateCcw /> : <TrashIcon />}
              {trash ? "Restore selected" : "Move selected to the trash"}
            </button>
            <button type="button" class="small quiet" onClick={() => (selected.value = new Set())}>
              Clear selection
            </button>
          </>
        ) : (
          page !== null && (
            <span>
              {page.total} file{page.total === 1 ? "" : "s"}
              {query.q !== "" && ` with “${query.q}” in the name`}
            </span>
          )
        )}
      </div>
      <table class={shared ? "files shared" : "files"} aria-busy={listing.loading.value}>
        <caption class="visually-hidden">
          {trash ? "Files in the trash" : shared ? "Files shared with you" : "Your files"},{" "}
          {SORT_LABELS[query.sort].toLowerCase()}
        </caption>
        <colgroup>
          {!shared && <col class="check" />}
          <col class="name" />
          {shared && <col class="role" />}
          <col class="size" />
          <col class="date" />
          <col class="row-menu" />
        </colgroup>
        <thead>
          <tr>
            {!shared && (
              <th scope="col" class="check">
                <input
                  type="checkbox"
                  aria-label="Select every file on this page"
                  disabled={files.length === 0}
                  checked={allSelected}
                  ref={(box) => {
                    if (box !== null) box.indeterminate = someSelected && !allSelected;
                  }}
                  onChange={(event) =>
                    (selected.value = event.currentTarget.checked ? new Set(files.map((file) => file.id)) : new Set())
                  }
                />
              </th>
            )}
            {sortHeader("name", "Name", "name")}
            {shared && (
              <th scope="col" class="role">
                Your role
              </th>
            )}
            {sortHeader("size", "Size", "size")}
            {trash ? (
              <th scope="col" class="date">
                Deleted for good after
              </th>
            ) : (
              sortHeader("updated_at", "Updated", "date")
            )}
            <th scope="col" class="menu-cell">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {page === null
            ? placeholder(<p>Loading…</p>)
            : files.length === 0
              ? placeholder(emptyMessage)
              : files.map((file) => (
                  <tr key={file.id} class={selected.value.has(file.id) ? "selected" : undefined}>
                    {!shared && (
                      <td class="check">
                        <input
                          type="checkbox"
                          aria-label={`Select ${file.name}`}
                          checked={selected.value.has(file.id)}
                          onChange={() => toggle(file.id)}
                        />
                      </td>
                    )}
                    <td class="name">
                      <div class="name-cell">
                        <KindMark file={file} />
                        {renaming.value === file.id ? (
                          <form onSubmit={rename(file)} class="rename">
                            <input
                              name="name"
                              aria-label={`New name for ${file.name}`}
                              value={file.name}
                              required
                              maxLength={255}
                              // Opened from the menu: typing goes straight into the name.
                              ref={(input) => {
                                if (input !== null && document.activeElement?.closest("form") !== input.form) {
                                  input.focus();
                                  input.select();
                                }
                              }}
                              onKeyDown={(event) => {
                                if (event.key === "Escape") stopRenaming(file);
                              }}
                            />
                            <button type="submit" class="icon small" aria-label="Save">
                              <Check />
                            </button>
                            <button
                              type="button"
                              class="icon small"
                              aria-label="Cancel"
                              onClick={() => stopRenaming(file)}
                            >
                              <X />
                            </button>
                          </form>
                        ) : (
                          <>
                            {trash ? (
                              <span class="file-name">{file.name}</span>
                            ) : (
                              <a
                                class="file-name"
                                href={`/files/${file.id}`}
                                onClick={(event) => {
                                  event.preventDefault();
                                  navigate(`/files/${file.id}`);
                                }}
                              >
                                {file.name}
                              </a>
                            )}
                            {file.visibility === "public" && (
                              <span class="badge">
                                <Globe />
                                Shared
                              </span>
                            )}
                          </>
                        )}
                      </div>
                    </td>
                    {shared && <td class="role">{file.role === null ? "" : ROLE_LABELS[file.role]}</td>}
                    <td class="size">{formatBytes(file.size)}</td>
                    <td class="date">
                      {trash && <span class="phone-only">Kept until </span>}
                      <When iso={trash ? file.purge_at : file.updated_at} />
                    </td>
                    <td class="menu-cell">
                      <RowMenu id={menuIdOf(file)} label={`Actions for ${file.name}`} actions={actionsOf(file)} />
                    </td>
                  </tr>
                ))}
        </tbody>
      </table>
      {page !== null && page.total > PAGE_SIZES[0] && <Pages listing={props.listing} pages={page.pages} />}
      {panels.shown}
    </>
  );
}

/**
 * A date and time as the reader's locale writes them. The time is a part of its own, which
 * a phone's card leaves out to keep the date on its one line.
 */
function When(props: { iso: string | null }) {
  if (props.iso === null) return null;
  const date = new Date(props.iso);
  return (
    <time dateTime={props.iso}>
      {date.toLocaleDateString(undefined, { dateStyle: "medium" })}
      <span class="time">, {date.toLocaleTimeString(undefined, { timeStyle: "short" })}</span>
    </time>
  );
}
