import { formatBytes } from "@cellar/client";
import { signal } from "@preact/signals";
import { CircleCheck } from "lucide-preact";
import { messageOf } from "../messages.js";
import { client } from "../session.js";

interface Upload {
  readonly id: number;
  readonly name: string;
  readonly size: number;
  sent: number;
  state: "sending" | "done" | "failed" | "cancelled";
  message?: string;
  readonly controller: AbortController;
}

const uploads = signal<readonly Upload[]>([]);
let nextId = 0;

function changed() {
  uploads.value = [...uploads.value];
}

/** Sends each file as it is chosen or dropped, several at once, each with its own bar. */
export function startUploads(files: Iterable<File>, onStored: () => void): void {
  for (const file of files) {
    const upload: Upload = {
      id: nextId++,
      name: file.name,
      size: file.size,
      sent: 0,
      state: "sending",
      controller: new AbortController(),
    };
    uploads.value = [...uploads.value, upload];
    client.value
      .upload(
        { fileName: file.name, content: file },
        {
          signal: upload.controller.signal,
          onProgress: (sent) => {
            upload.sent = sent;
            changed();
          },
        },
      )
      .then(
        () => {
          upload.state = "done";
          upload.sent = upload.size;
          onStored();
        },
        (error: unknown) => {
          upload.state = upload.controller.signal.aborted ? "cancelled" : "failed";
          upload.message = messageOf(error);
        },
      )
      .finally(changed);
  }
}

/** The uploads of this visit: a bar each while it goes, then how it ended. */
export function Uploads() {
  if (uploads.value.length === 0) return null;
  return (
    <section aria-label="Uploads" class="uploads">
      <ul>
        {uploads.value.map((upload) => (
          <li key={upload.id}>
            <span class="name">{upload.name}</span>
            <progress
              max={upload.size}
              value={upload.sent}
              aria-label={`Upload of ${upload.name}`}
              aria-valuetext={`${formatBytes(upload.sent)} of ${formatBytes(upload.size)}`}
            />
            {upload.state === "sending" && (
              <button type="button" class="small" onClick={() => upload.controller.abort()}>
                Cancel <span class="visually-hidden">{upload.name}</span>
              </button>
            )}
            {upload.state === "done" && (
              <span class="done">
                <CircleCheck />
                Uploaded
              </span>
            )}
            {(upload.state === "failed" || upload.state === "cancelled") && (
              <span role="alert" class="error">
                {upload.message}
              </span>
            )}
          </li>
        ))}
      </ul>
      <button
        type="button"
        class="link"
        onClick={() => (uploads.value = uploads.value.filter((upload) => upload.state === "sending"))}
      >
        Clear finished uploads
      </button>
    </section>
  );
}
