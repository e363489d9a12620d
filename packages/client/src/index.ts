import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./generated/openapi.js";

export type { components, operations, paths } from "./generated/openapi.js";

/** A file as the API answers it. */
export type CellarFile = components["schemas"]["File"];

/** An error answer of the API, as a typed error: `code` is the API's stable code. */
export class CellarApiError extends Error {
  override readonly name = "CellarApiError";

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The API's error code (`not_found`, `rate_limited`, …); `http_<status>` when the body was not the API's. */
    readonly code: string,
    message: string,
    /** For `validation_error`: which fields were wrong and why. */
    readonly details: readonly { field: string; message: string }[] = [],
    /** For 429 and 503: the seconds the server asked to wait (`Retry-After`). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export interface CellarClientOptions {
  /** Where the server is, without `/v1`: `https://files.example.org`. */
  readonly baseUrl: string;
  /** The JWT from a sign-in, sent as a bearer token. */
  readonly token?: string;
  /** Another `fetch` (a test's, or one with a proxy). */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * How often a request answered 429 or 503 is sent again after the `Retry-After` the
   * server gave (default 2), and the longest wait accepted (default 30 s): a longer one
   * is answered as it came.
   */
  readonly retries?: { readonly max?: number; readonly maxWaitSeconds?: number };
}

/** What to upload: bytes in memory, or a stream of them with its size when known. */
export interface UploadSource {
  /** The file's name on the client: its extension (.csv, .xlsx, .sheet) decides its type. */
  readonly fileName: string;
  readonly content: Uint8Array | AsyncIterable<Uint8Array>;
  /** Bytes in `content`, for `Content-Length` and progress (known for bytes in memory). */
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

export interface CellarClient {
  /** Every /v1 route, typed from the server's OpenAPI document (openapi-fetch). */
  readonly api: Client<paths>;
  /**
   * Uploads a file as it streams (never whole in memory when given a stream), reporting
   * progress as its bytes are handed to the connection. Not retried: a stream is sent once.
   */
  upload(source: UploadSource, options?: UploadOptions): Promise<CellarFile>;
  /** Your files, or your trash, page after page, as one sequence. */
  files(options?: { trashed?: boolean; perPage?: number }): AsyncIterable<CellarFile>;
}

/** Reads an error answer into a `CellarApiError`. */
export async function apiError(response: Response, body?: unknown): Promise<CellarApiError> {
  let parsed = body;
  if (parsed === undefined) {
    try {
      parsed = await response.clone().json();
    } catch {
      parsed = undefined;
    }
  }
  const error = (parsed as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  const retryAfter = Number(response.headers.get("retry-after"));
  return new CellarApiError(
    response.status,
    typeof error?.code === "string" ? error.code : `http_${response.status}`,
    typeof error?.message === "string" ? error.message : `The server answered ${response.status}.`,
    Array.isArray(error?.details) ? (error.details as { field: string; message: string }[]) : [],
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}

/**
 * The data of an openapi-fetch answer, or its error thrown as a `CellarApiError`:
 * `const me = await unwrap(client.api.GET("/users/me"))`.
 */
export async function unwrap<T>(answer: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await answer;
  if (!response.ok) throw await apiError(response, error);
  return data as T;
}

/**
 * `fetch` that sends a request again when the server answers 429 or 503 with a
 * `Retry-After` it can wait for, at most `max` times. Only requests without a body or
 * with a JSON one are retried.
 */
export function retryingFetch(
  fetch: typeof globalThis.fetch,
  options: { max?: number; maxWaitSeconds?: number } = {},
): typeof globalThis.fetch {
  const max = options.max ?? 2;
  const maxWait = options.maxWaitSeconds ?? 30;
  return async (input, init) => {
    const request = new Request(input, init);
    // No body, or a JSON one (small, held in memory): a clone can be sent again. Any
    // other body may be a stream that a clone would buffer whole.
    const replayable =
      request.body === null || (request.headers.get("content-type") ?? "").startsWith("application/json");
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(replayable ? request.clone() : request);
      const wait = Number(response.headers.get("retry-after"));
      const retry =
        (response.status === 429 || response.status === 503) &&
        replayable &&
        attempt < max &&
        Number.isFinite(wait) &&
        wait >= 0 &&
        wait <= maxWait;
      if (!retry) return response;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
  };
}

/** Quoted for a multipart header: quotes and line breaks cannot break out of it. */
function quotedName(name: string): string {
  return `"${name.replace(/["\r\n\\]/g, "_")}"`;
}

/** A multipart/form-data body streamed from its parts, counting the file's bytes as they are pulled. */
function multipartBody(source: UploadSource, options: UploadOptions) {
  const boundary = `cellar-${crypto.randomUUID()}`;
  const encoder = new TextEncoder();
  const fields = [
    ...(options.name === undefined ? [] : [["name", options.name]]),
    ...(options.visibility === undefined ? [] : [["visibility", options.visibility]]),
  ]
    .map(([field, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\n${value}\r\n`)
    .join("");
  const head = encoder.encode(
    `${fields}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename=${quotedName(source.fileName)}\r\n` +
      "Content-Type: application/octet-stream\r\n\r\n",
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const total = source.content instanceof Uint8Array ? source.content.length : source.size;
  let sent = 0;
  const chunks = (async function* () {
    yield head;
    const content = source.content instanceof Uint8Array ? [source.content] : source.content;
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
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: total === undefined ? undefined : head.length + total + tail.length,
  };
}

export function createCellarClient(options: CellarClientOptions): CellarClient {
  const api = createClient<paths>({
    baseUrl: `${options.baseUrl.replace(/\/+$/, "")}/v1`,
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.retries),
    ...(options.token === undefined ? {} : { headers: { authorization: `Bearer ${options.token}` } }),
  });
  const baseUrl = `${options.baseUrl.replace(/\/+$/, "")}/v1`;
  const rawFetch = options.fetch ?? globalThis.fetch;
  return {
    api,
    async upload(source, uploadOptions = {}) {
      const multipart = multipartBody(source, uploadOptions);
      const headers: Record<string, string> = { "content-type": multipart.contentType };
      if (multipart.contentLength !== undefined) headers["content-length"] = String(multipart.contentLength);
      if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      const response = await rawFetch(`${baseUrl}/files`, {
        method: "POST",
        headers,
        body: multipart.body,
        // A streamed request body (fetch's half-duplex mode, which Node requires for it).
        duplex: "half",
        ...(uploadOptions.signal === undefined ? {} : { signal: uploadOptions.signal }),
      } as RequestInit);
      if (!response.ok) throw await apiError(response);
      return (await response.json()) as CellarFile;
    },
    async *files({ trashed = false, perPage = 100 } = {}) {
      for (let page = 1; ; page++) {
        const { data, error, response } = await api.GET("/files", {
          params: {
            query: { page: String(page), per_page: String(perPage), ...(trashed ? { trashed: "true" } : {}) },
          },
        });
        if (!response.ok || data === undefined) throw await apiError(response, error);
        yield* data;
        const pages = Number(response.headers.get("x-total-pages"));
        if (data.length === 0 || !(page < pages)) return;
      }
    },
  };
}
