import type { ComponentChildren } from "preact";
import { useEffect, useMemo } from "preact/hooks";
import { FileTable } from "./files/file-table.js";
import { createListing } from "./files/listing.js";
import { startUploads, Uploads } from "./files/uploads.js";
import { navigate, route } from "./router.js";
import { client, keepToken } from "./session.js";

/** The app's frame once signed in: where you are, the other places, and signing out. */
export function Frame(props: { title: string; wide?: boolean; children: ComponentChildren }) {
  async function signOut() {
    await client.value.api.DELETE("/sessions").catch(() => undefined);
    keepToken(null);
    navigate("/", { replace: true });
  }
  const place = (path: string, label: string) => (
    <a
      href={path}
      aria-current={route.value.pathname === path ? "page" : undefined}
      onClick={(event) => {
        event.preventDefault();
        navigate(path);
      }}
    >
      {label}
    </a>
  );
  return (
    <>
      <header class="top">
        <nav aria-label="Cellar">
          {place("/files", "Files")}
          {place("/trash", "Trash")}
          {place("/account", "Account")}
        </nav>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main class={props.wide ? "wide" : undefined}>
        <h1>{props.title}</h1>
        {props.children}
      </main>
    </>
  );
}

/** Your files: upload by picker or drop, and the list. */
export function Files() {
  const listing = useMemo(() => createListing(false), []);
  useEffect(() => {
    listing.reload();
  }, []);
  const upload = (files: FileList | null) => {
    if (files !== null) startUploads(files, () => listing.reload());
  };
  return (
    <Frame title="Your files">
      {/* biome-ignore lint/a11y/noStaticElementInteractions: dropping files is for pointers; the picker inside is the keyboard's way to the same. */}
      <div
        class="drop"
        onDragOver={(event) => event.preventDefault()}
        onDrop={(event) => {
          event.preventDefault();
          upload(event.dataTransfer?.files ?? null);
        }}
      >
        <label class="button">
          Upload files
          <input
            type="file"
            multiple
            accept=".csv,.xlsx,.sheet"
            class="visually-hidden"
            onChange={(event) => {
              const input = event.target as HTMLInputElement;
              upload(input.files);
              input.value = "";
            }}
          />
        </label>
        <span>or drop them here</span>
      </div>
      <Uploads />
      {listing.error.value !== null && <p role="alert">{listing.error.value}</p>}
      <FileTable listing={listing} trash={false} />
    </Frame>
  );
}

/** The trash: what is in it, until when, and restore. */
export function Trash() {
  const listing = useMemo(() => createListing(true), []);
  useEffect(() => {
    listing.reload();
  }, []);
  return (
    <Frame title="Trash">
      {listing.error.value !== null && <p role="alert">{listing.error.value}</p>}
      <FileTable listing={listing} trash />
    </Frame>
  );
}
