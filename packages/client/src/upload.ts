import { apiError } from "./errors.js";
import type { components } from "./generated/openapi.js";

/** A file as the API answers it. */
export type CellarFile = components["schemas"]["File"];

/**
 * What to upload: bytes in memory, a `Blob` (a browser's `File`), or a stream of bytes
 * with its size when known.
 */
export interface UploadSource {
  /** The file's name on the client: its extension (.csv, .xlsx, .sheet) decides its type. */
  readonly fileName: string;
  readonly content: Uint8Array | Blob | AsyncIterable<Uint8Array>;
  /** Bytes in `content`, for `Content-Length` and progress (known for bytes in memory and blobs). */
  readonly size?: number;
}

export interface UploadOptions {
  /** The display name (default: the file's name). */
  readonly name?: string;
  readonly visibility?: "private" | "public";
  /** Called as bytes of the file go out: those sent so far, and the total when known. */
  readonly onProgress?: (sent: number, total: number | undefined) => void;
  readonly signal?: AbortSignal;
}

/** Where and as whom an upload is sent. */
export interface UploadTarget {
  /** The API's root, ending in `/v1`. */
  readonly apiUrl: string;
  readonly token: string | undefined;
  readonly fetch: typeof globalThis.fetch;
  /** Whether `fetch` is the platform's own, so that a browser's XMLHttpRequest may stand in for it. */
  readonly platformFetch: boolean;
}

/** Quoted for a multipart header: quotes and line breaks cannot break out of it. */
function quotedName(name: string): string {
  return `"${name.replace(/["\r\n\\]/g, "_")}"`;
}

function formFields(options: UploadOptions): [string, string][] {
  return [
    ...(options.name === undefined ? [] : [["name", options.name] as [string, string]]),
    ...(options.visibility === undefined ? [] : [["visibility", options.visibility] as [string, string]]),
  ];
}

function contentOf(source: UploadSource): { chunks: AsyncIterable<Uint8Array> | Uint8Array[]; total?: number } {
  if (source.content instanceof Uint8Array) return { chunks: [source.content], total: source.content.length };
  if (source.content instanceof Blob) {
    return { chunks: source.content.stream() as unknown as AsyncIterable<Uint8Array>, total: source.content.size };
  }
  return { chunks: source.content, ...(source.size === undefined ? {} : { total: source.size }) };
}

/** The multipart/form-data around a file's bytes: the form fields and the file part's header, and the closing line. */
export function multipartFraming(fileName: string, options: UploadOptions) {
  const boundary = `cellar-${crypto.randomUUID()}`;
  const encoder = new TextEncoder();
  const fields = formFields(options)
    .map(([field, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\n${value}\r\n`)
    .join("");
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    head: encoder.encode(
      `${fields}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename=${quotedName(fileName)}\r\n` +
        "Content-Type: application/octet-stream\r\n\r\n",
    ),
    tail: encoder.encode(`\r\n--${boundary}--\r\n`),
  };
}

/** A multipart/form-data body streamed from its parts, counting the file's bytes as they are pulled. */
function multipartBody(source: UploadSource, options: UploadOptions) {
  const { contentType, head, tail } = multipartFraming(source.fileName, options);
  const { chunks: content, total } = contentOf(source);
  let sent = 0;
  const chunks = (async function* () {
    yield head;
    for await (const chunk of content) {
      // Sent in pieces of at most 64 KiB, so progress moves as the connection takes them.
      for (let at = 0; at < chunk.length; at += 65_536) {
        const piece = chunk.subarray(at, at + 65_536);
        yield piece;
        sent += piece.length;
        options.onProgress?.(sent, total);
      }
    }
    yield tail;
  })();
  const iterator = chunks[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return {
    body,
    contentType,
    contentLength: total === undefined ? undefined : head.length + total + tail.length,
  };
}

/** Streams the upload with `fetch`: Node, and browsers when no progress is needed. */
async function uploadWithFetch(target: UploadTarget, source: UploadSource, options: UploadOptions) {
  const multipart = multipartBody(source, options);
  const headers: Record<string, string> = { "content-type": multipart.contentType };
  if (multipart.contentLength !== undefined) headers["content-length"] = String(multipart.contentLength);
  if (target.token !== undefined) headers.authorization = `Bearer ${target.token}`;
  const response = await target.fetch(`${target.apiUrl}/files`, {
    method: "POST",
    headers,
    body: multipart.body,
    // A streamed request body (fetch's half-duplex mode, which Node requires for it).
    duplex: "half",
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  } as RequestInit);
  if (!response.ok) throw await apiError(response);
  return (await response.json()) as CellarFile;
}

/**
 * Sends a `Blob` with XMLHttpRequest, the one browser API that reports upload progress
 * (a browser's fetch can neither stream a request body over HTTP/1.1 nor report one).
 * The browser reads the blob from disk as it sends it.
 */
function uploadWithXhr(target: UploadTarget, source: UploadSource & { content: Blob }, options: UploadOptions) {
  return new Promise<CellarFile>((resolve, reject) => {
    const form = new FormData();
    for (const [field, value] of formFields(options)) form.append(field, value);
    form.append("file", source.content, source.fileName);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `${target.apiUrl}/files`);
    if (target.token !== undefined) xhr.setRequestHeader("authorization", `Bearer ${target.token}`);
    const size = source.content.size;
    xhr.upload.onprogress = (event) => {
      // The body is the file plus a few hundred bytes of multipart framing: scaled to the file.
      if (event.lengthComputable && event.total > 0) {
        options.onProgress?.(Math.round((event.loaded / event.total) * size), size);
      }
    };
    xhr.onload = () => {
      const response = new Response(xhr.status === 204 ? null : xhr.responseText, {
        status: xhr.status,
        headers: { "retry-after": xhr.getResponseHeader("retry-after") ?? "" },
      });
      if (response.ok) resolve(response.json() as Promise<CellarFile>);
      else apiError(response).then(reject, reject);
    };
    xhr.onerror = () => reject(new TypeError("The upload failed: the connection to the server was lost."));
    xhr.onabort = () => reject(options.signal?.reason ?? new DOMException("The upload was aborted.", "AbortError"));
    if (options.signal?.aborted) {
      reject(options.signal.reason);
      return;
    }
    options.signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}

/**
 * Uploads a file as it streams (never whole in memory when given a stream or a blob),
 * reporting progress as its bytes go out. In a browser, a `Blob` goes by XMLHttpRequest
 * for its progress events; everything else by `fetch`.
 */
export function upload(target: UploadTarget, source: UploadSource, options: UploadOptions = {}): Promise<CellarFile> {
  if (source.content instanceof Blob && target.platformFetch && typeof XMLHttpRequest === "function") {
    return uploadWithXhr(target, source as UploadSource & { content: Blob }, options);
  }
  return uploadWithFetch(target, source, options);
}
