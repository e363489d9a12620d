import { type CellarFile, unwrap } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { client, keepToken } from "./session.js";

/** The file list, newest first. */
export function Files() {
  const files = useSignal<CellarFile[] | null>(null);
  const error = useSignal<string | null>(null);

  useEffect(() => {
    unwrap(client.value.api.GET("/files", { params: { query: { per_page: "50" } } })).then(
      (page) => {
        files.value = page;
      },
      (caught: { status?: number; message?: string }) => {
        if (caught.status === 401) keepToken(null);
        else error.value = caught.message ?? "Cellar cannot be reached.";
      },
    );
  }, []);

  async function signOut() {
    await client.value.api.DELETE("/sessions").catch(() => undefined);
    keepToken(null);
  }

  return (
    <main>
      <header class="bar">
        <h1>Your files</h1>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      {error.value !== null && <p role="alert">{error.value}</p>}
      {files.value === null ? (
        <p>Loading…</p>
      ) : files.value.length === 0 ? (
        <p>No files yet.</p>
      ) : (
        <ul>
          {files.value.map((file) => (
            <li key={file.id}>{file.name}</li>
          ))}
        </ul>
      )}
    </main>
  );
}
