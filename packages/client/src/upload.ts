import { apiError } from "./errors.js";
import type { components } from "./generated/openapi.js";

/** A file as the API answers it. */
export type CellarFile = components["schemas"]["File"];

/** Bytes to send: in memory, a `Blob` (a browser's `File`), or a stream of bytes with its size when known. */
export interface BodySource {
  readonly content: Uint8Array | Blob | AsyncIterable<Uint8Array>;
  /** Bytes in `content`, for `Content-Length` and progress (known for bytes in memory and blobs). */
  readonly size?: number;
}

/**
 * What to upload: bytes in memory, a `Blob` (a browser's `File`), or a stream of bytes
 * with its size when known.
 */
export interface UploadSource extends BodySource {
  /** The file's name on the client: its extension (.csv, .xlsx, .sheet) decides its type. */
  readonly fileName: string;
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

function contentOf(source: BodySource): { chunks: AsyncIterable<Uint8Array> | Uint8Array[]; total?: number } {
  if (source.content instanceof Uint8Array) return { chunks: [source.content], total: source.content.length };
  if (source.content instanceof Blob) {
    return { chunks: source.content.stream() as unknown as AsyncIterable<Uint8Array>, total: source.content.size };
  }
  return { chunks: source.content, ...(source.size === undefined ? {} : { total: source.size }) };
}

const NOTHING = new Uint8Array(0);

/**
 * A request body streamed from `source` as it is pulled (never whole in memory), between
 * a `head` and a `tail` sent as they are, reporting the bytes of `source` sent so far.
 */
export function streamedBody(
  source: BodySource,
  onProgress: ((sent: number, total: number | undefined) => void) | undefined,
  head: Uint8Array = NOTHING,
  tail: Uint8Array = NOTHING,
): { body: ReadableStream<Uint8Array>; contentLength: number | undefined } {
  const { chunks: content, total } = contentOf(source);
  let sent = 0;
  const chunks = (async function* () {
    if (head.length > 0) yield head;
    for await (const chunk of content) {
      // Sent in pieces of at most 64 KiB, so progress moves as the connection takes them.
      for (let at = 0; at < chunk.length; at += 65_536) {
        const piece = chunk.subarray(at, at + 65_536);
        yield piece;
        sent += piece.length;
        onProgress?.(sent, total);
      }
    }
    if (tail.length > 0) yield tail;
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
  return { body, contentLength: total === undefined ? undefined : head.length + total + tail.length };
}

/**
 * A multipart boundary no file holds by chance: 128 random bits. It is no secret (the
 * body is the sender's own), so `Math.random` serves: in Node, the first use of `crypto`
 * loads WebCrypto, 13 ms of the start of every `cellar upload` (`cli_upload_ratio`).
 */
function multipartBoundary(): string {
  let bits = "";
  for (let part = 0; part < 4; part++) {
    bits += Math.floor(Math.random() * 2 ** 32)
      .toString(16)
      .padStart(8, "0");
  }
  return `cellar-${bits}`;
}

/** The multipart/form-data around a file's bytes: the form fields and the file part's header, and the closing line. */
export function multipartFraming(fileName: string, options: UploadOptions) {
  const boundary = multipartBoundary();
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
  return { ...streamedBody(source, options.onProgress, head, tail), contentType };
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

/** What `sendWithXhr` sends: a `Blob`, or a form around one, and the blob's size for progress. */
export interface XhrRequest {
  readonly method: "POST" | "PUT";
  readonly url: string;
  readonly token: string | undefined;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: Blob | FormData;
  /** The blob's size: progress is scaled to it (a form adds its framing to the bytes sent). */
  readonly size: number;
  readonly onProgress?: ((sent: number, total: number | undefined) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Sends a `Blob` with XMLHttpRequest, the one browser API that reports upload progress
 * (a browser's fetch can neither stream a request body over HTTP/1.1 nor report one).
 * The browser reads the blob from disk as it sends it. Answers the JSON of a success;
 * throws a `CellarApiError` for an error.
 */
export function sendWithXhr<T>(request: XhrRequest): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(request.method, request.url);
    if (request.token !== undefined) xhr.setRequestHeader("authorization", `Bearer ${request.token}`);
    for (const [name, value] of Object.entries(request.headers ?? {})) xhr.setRequestHeader(name, value);
    const size = request.size;
    xhr.upload.onprogress = (event) => {
      // The body may be the file plus a few hundred bytes of multipart framing: scaled to the file.
      if (event.lengthComputable && event.total > 0) {
        request.onProgress?.(Math.round((event.loaded / event.total) * size), size);
      }
    };
    xhr.onload = () => {
      const response = new Response(xhr.status === 204 ? null : xhr.responseText, {
        status: xhr.status,
        headers: { "retry-after": xhr.getResponseHeader("retry-after") ?? "" },
      });
      if (response.ok) resolve(response.json() as Promise<T>);
      else apiError(response).then(reject, reject);
    };
    xhr.onerror = () => reject(new TypeError("The upload failed: the connection to the server was lost."));
    xhr.onabort = () => reject(request.signal?.reason ?? new DOMException("The upload was aborted.", "AbortError"));
    if (request.signal?.aborted) {
      reject(request.signal.reason);
      return;
    }
    request.signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(request.body);
  });
}

/** Sends a `Blob` and the form's fields as multipart/form-data with XMLHttpRequest, for its progress. */
function uploadWithXhr(target: UploadTarget, source: UploadSource & { content: Blob }, options: UploadOptions) {
  const form = new FormData();
  for (const [field, value] of formFields(options)) form.append(field, value);
  form.append("file", source.content, source.fileName);
  return sendWithXhr<CellarFile>({
    method: "POST",
    url: `${target.apiUrl}/files`,
    token: target.token,
    body: form,
    size: source.content.size,
    onProgress: options.onProgress,
    signal: options.signal,
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
