import { useSignal } from "@preact/signals";
import { FilesIcon, LogOut, TrashIcon, Upload, UserIcon, Users } from "lucide-preact";
import type { ComponentChildren, ComponentType } from "preact";
import { useEffect, useMemo } from "preact/hooks";
import { Brand } from "./brand.js";
import { FileTable } from "./files/file-table.js";
import { createListing, type ListKind } from "./files/listing.js";
import { addressOf, type ListQuery, readQuery } from "./files/query.js";
import { startUploads, Uploads } from "./files/uploads.js";
import { watch } from "./live/watch.js";
import { navigate, route } from "./router.js";
import { client, keepToken, signedOut } from "./session.js";
import { Toasts } from "./toast.js";

/** The app's frame once signed in: where you are, the other places, signing out, and the page's messages. */
export function Frame(props: {
  title: string;
  wide?: boolean;
  /** Beside the page's title: its main action. */
  actions?: ComponentChildren;
  children: ComponentChildren;
}) {
  const leaving = useSignal(false);
  async function signOut() {
    leaving.value = true;
    await client.value.api.DELETE("/sessions").catch(() => undefined);
    signedOut.value = true;
    keepToken(null);
    navigate("/", { replace: true });
  }
  const place = (path: string, label: ComponentChildren, Icon: ComponentType) => (
    <a
      href={path}
      aria-current={route.value.pathname === path ? "page" : undefined}
      onClick={(event) => {
        event.preventDefault();
        navigate(path);
      }}
    >
      <Icon />
      {label}
    </a>
  );
  return (
    <>
      <header class={props.wide ? "top wide" : "top"}>
        <div class="top-inner">
          <Brand />
          <nav aria-label="Cellar">
            {place("/files", "Files", FilesIcon)}
            {place(
              "/shared",
              <span>
                Shared<span class="phone-hidden"> with me</span>
              </span>,
              Users,
            )}
            {place("/trash", "Trash", TrashIcon)}
            {place("/account", "Account", UserIcon)}
          </nav>
          <button type="button" class="quiet sign-out" onClick={signOut} disabled={leaving.value}>
            <LogOut />
            <span class="label">Sign out</span>
          </button>
        </div>
      </header>
      <Toasts />
      <main class={props.wide ? "wide" : undefined}>
        <div class="page-head">
          <h1>{props.title}</h1>
          {props.actions}
        </div>
        {props.children}
      </main>
    </>
  );
}

/**
 * A listing that shows what its page's address asks for (`?q=…&sort=…`), and changes it
 * through the address: so that a reload, a bookmark, Back and Forward all show the same list.
 */
function useListing(kind: ListKind) {
  const listing = useMemo(() => createListing(kind), []);
  const query = readQuery(route.value);
  useEffect(() => {
    listing.show(query);
  }, [query.q, query.sort]);
  // The list stays current from the account's own stream (GET /events): renames, new
  // content, sharing and the trash, from any tab, device or person.
  useEffect(() => watch("/events", listing.apply).stop, [listing]);
  const changeQuery = (next: Partial<ListQuery>, typing = false) => {
    // The address as it is now: a search sent after a pause may come after another change.
    const now = readQuery(route.value);
    // A search typed over several pauses makes one entry in the history, not one a pause.
    const replace = typing && now.q !== "";
    navigate(addressOf(route.value.pathname, { ...now, ...next }), { replace });
  };
  return { listing, query, changeQuery };
}

/** Your files: upload by picker or drop, search, sort, and the list. */
export function Files() {
  const { listing, query, changeQuery } = useListing("files");
  const dragging = useSignal(false);
  const upload = (files: FileList | null) => {
    if (files !== null) startUploads(files, () => listing.reload());
  };
  return (
    <Frame
      title="Your files"
      actions={
        <div class="actions">
          <p class="drop-hint">Drop .csv, .xlsx or .sheet files on the list, or</p>
          <label class="button primary">
            <Upload />
            Upload files
            <input
              type="file"
              multiple
              accept=".csv,.xlsx,.sheet"
              class="visually-hidden"
              onChange={(event) => {
                const input = event.currentTarget;
                upload(input.files);
                input.value = "";
              }}
            />
          </label>
        </div>
      }
    >
      {/* biome-ignore lint/a11y/noStaticElementInteractions: dropping files is for pointers; the picker is the keyboard's way to the same. */}
      <div
        class={dragging.value ? "drop dragging" : "drop"}
        onDragOver={(event) => {
          event.preventDefault();
          dragging.value = true;
        }}
        onDragLeave={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) dragging.value = false;
        }}
        onDrop={(event) => {
          event.preventDefault();
          dragging.value = false;
          upload(event.dataTransfer?.files ?? null);
        }}
      >
        <Uploads />
        {listing.error.value !== null && (
          <p role="alert" class="notice error">
            {listing.error.value}
          </p>
        )}
        <FileTable listing={listing} kind="files" query={query} onQuery={changeQuery} />
      </div>
    </Frame>
  );
}

/** The trash: what is in it, until when, and restore. */
export function Trash() {
  const { listing, query, changeQuery } = useListing("trash");
  return (
    <Frame title="Trash">
      {listing.error.value !== null && (
        <p role="alert" class="notice error">
          {listing.error.value}
        </p>
      )}
      <FileTable listing={listing} kind="trash" query={query} onQuery={changeQuery} />
    </Frame>
  );
}

/** The files others share with you, each with your role on it: open, download, rename if you may, or leave. */
export function SharedWithMe() {
  const { listing, query, changeQuery } = useListing("shared");
  return (
    <Frame title="Shared with me">
      {listing.error.value !== null && (
        <p role="alert" class="notice error">
          {listing.error.value}
        </p>
      )}
      <FileTable listing={listing} kind="shared" query={query} onQuery={changeQuery} />
    </Frame>
  );
}
