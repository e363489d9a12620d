import { apiError, type CellarFile } from "@cellar/client";
import { messageOf } from "../messages.js";
import { client, token } from "../session.js";
import { say } from "../toast.js";

/**
 * The download worker (`src/download-worker.ts`) once it runs, or null where there is
 * none: a browser without service workers, or a page not served over HTTPS or from
 * localhost (browsers allow service workers only there).
 */
let worker: Promise<ServiceWorker | null> | null = null;

function downloadWorker(): Promise<ServiceWorker | null> {
  worker ??= (async () => {
    if (!("serviceWorker" in navigator) || !isSecureContext) return null;
    try {
      const registration = await navigator.serviceWorker.register("/download-worker.js", {
        scope: "/download-worker/",
      });
      const candidate = registration.active ?? registration.waiting ?? registration.installing;
      if (candidate === null) return null;
      if (candidate.state === "activated") return candidate;
      return await new Promise<ServiceWorker | null>((resolve) => {
        const settle = () => {
          if (candidate.state === "activated") resolve(candidate);
          if (candidate.state === "redundant") resolve(null);
        };
        candidate.addEventListener("statechange", settle);
        setTimeout(() => resolve(null), 5_000);
      });
    } catch {
      return null;
    }
  })();
  return worker;
}

/**
 * Saves a file (or, given `version`, that version of its content) as a link would, with
 * the session's token (a plain link cannot send it). Through the download worker the
 * browser writes the bytes to disk as they arrive; without one, the file is fetched into
 * memory first and saved from there.
 */
export async function download(file: Pick<CellarFile, "id">, version?: number): Promise<void> {
  const active = await downloadWorker();
  if (active !== null && token.value !== null) {
    const key = crypto.randomUUID();
    const channel = new MessageChannel();
    const answer = new Promise<{ status: number; body?: unknown; versions?: boolean }>((resolve) => {
      channel.port1.onmessage = (event) => resolve(event.data);
    });
    active.postMessage({ key, id: file.id, token: token.value, version }, [channel.port2]);
    const { status, body, versions } = await answer;
    // A worker from before versions (until the new one takes over) fetched the current content: not that.
    if (version !== undefined && versions !== true) return saveFromMemory(file, version);
    if (status === 0) throw new TypeError("Cellar cannot be reached.");
    if (status >= 400) throw await apiError(new Response(null, { status }), body ?? null);
    // Answered with Content-Disposition: attachment, this opens a download, not a page.
    location.assign(`/download-worker/${key}`);
    return;
  }
  await saveFromMemory(file, version);
}

/** Fetches a file (or a version of it) into memory, then saves it from there. */
async function saveFromMemory(file: Pick<CellarFile, "id">, version: number | undefined): Promise<void> {
  const answer =
    version === undefined ? await client.value.download(file.id) : await client.value.downloadVersion(file.id, version);
  const parts: BlobPart[] = [];
  for await (const chunk of answer.body) parts.push(chunk as Uint8Array<ArrayBuffer>);
  const url = URL.createObjectURL(new Blob(parts));
  const link = document.createElement("a");
  link.href = url;
  link.download = answer.fileName;
  // In the document while it is clicked: a detached link does not download everywhere.
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Downloads a file, saying so at the foot of the screen when it has started, or why it could not. */
export function downloadSaying(file: Pick<CellarFile, "id" | "name">): void {
  say(`Downloading ${file.name}…`);
  download(file).then(
    () => say(`Download started: ${file.name}`, "success"),
    (error: unknown) => say(messageOf(error), "error"),
  );
}
