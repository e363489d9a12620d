/**
 * The web app's download worker, a service worker at `/download-worker.js` whose scope is
 * `/download-worker/` only (no other request of the app passes through it).
 *
 * A plain link cannot send the session's bearer token, and saving a download the page
 * fetched itself means holding the whole file in memory first. So the page hands the
 * worker a file id and the token; the worker asks the API for the file and says whether
 * it may be had (the API's error otherwise); the page then opens
 * `/download-worker/<key>`, and the worker answers that with the API's response as it
 * came: its `Content-Disposition: attachment` makes the browser save the bytes to disk as
 * they arrive, while the page stays where it is.
 */

interface DownloadRequest {
  readonly key: string;
  readonly id: string;
  readonly token: string;
  /** One version of the content (`/versions/:n/download`); the current one when absent. */
  readonly version?: number;
}

interface FetchEvent extends Event {
  readonly request: Request;
  respondWith(response: Response | Promise<Response>): void;
}

interface ExtendableEvent extends Event {
  waitUntil(work: Promise<unknown>): void;
}

interface WorkerScope {
  addEventListener(type: "install" | "activate", listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", listener: (event: FetchEvent) => void): void;
  addEventListener(type: "message", listener: (event: MessageEvent<DownloadRequest>) => void): void;
  skipWaiting(): Promise<void>;
  readonly clients: { claim(): Promise<void> };
  readonly location: Location;
}

const worker = self as unknown as WorkerScope;
/** Answers the API gave, waiting for the page to open their address; each is opened once. */
const ready = new Map<string, Response>();
/** An answer the page did not open in time is dropped, and its connection with it. */
const UNCLAIMED_AFTER_MS = 60_000;

worker.addEventListener("install", (event) => event.waitUntil(worker.skipWaiting()));
worker.addEventListener("activate", (event) => event.waitUntil(worker.clients.claim()));

worker.addEventListener("message", (event) => {
  const { key, id, token, version } = event.data;
  const reply = event.ports[0];
  if (typeof key !== "string" || typeof id !== "string" || typeof token !== "string" || reply === undefined) return;
  if (version !== undefined && !Number.isSafeInteger(version)) {
    reply.postMessage({ status: 400, versions: true });
    return;
  }
  const path = version === undefined ? "download" : `versions/${version}/download`;
  fetch(`/v1/files/${encodeURIComponent(id)}/${path}`, { headers: { authorization: `Bearer ${token}` } }).then(
    async (response) => {
      if (!response.ok) {
        reply.postMessage({ status: response.status, body: await response.json().catch(() => null), versions: true });
        return;
      }
      ready.set(key, response);
      setTimeout(() => {
        ready.get(key)?.body?.cancel();
        ready.delete(key);
      }, UNCLAIMED_AFTER_MS);
      // `versions`: this worker knows versions (one from before would have fetched the current content).
      reply.postMessage({ status: response.status, versions: true });
    },
    () => reply.postMessage({ status: 0, versions: true }),
  );
});

worker.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  const key = url.pathname.startsWith("/download-worker/") ? url.pathname.slice("/download-worker/".length) : null;
  if (url.origin !== worker.location.origin || key === null) return;
  const response = ready.get(key);
  ready.delete(key);
  event.respondWith(
    response ??
      new Response("This download has expired. Go back and download the file again.", {
        status: 410,
        headers: { "content-type": "text/plain; charset=utf-8" },
      }),
  );
});
