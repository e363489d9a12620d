import createClient, { type Client } from "openapi-fetch";
import { type Download, type DownloadOptions, download } from "./download.js";
import { apiError } from "./errors.js";
import type { paths } from "./generated/openapi.js";
import { retryingFetch } from "./retrying-fetch.js";
import { type CellarFile, type UploadOptions, type UploadSource, upload } from "./upload.js";

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
   * is answered as it came. `max` also bounds how often one download resumes after its
   * connection dropped.
   */
  readonly retries?: { readonly max?: number; readonly maxWaitSeconds?: number };
}

export interface CellarClient {
  /** Every /v1 route, typed from the server's OpenAPI document (openapi-fetch). */
  readonly api: Client<paths>;
  /**
   * Uploads a file as it streams (never whole in memory when given a stream or a blob),
   * reporting progress as its bytes go out. Not retried: a stream is sent once.
   */
  upload(source: UploadSource, options?: UploadOptions): Promise<CellarFile>;
  /** Downloads a file (or its conversion) as a stream, resuming from `from` and after dropped connections. */
  download(id: string, options?: DownloadOptions): Promise<Download>;
  /** Your files, or your trash, page after page, as one sequence. */
  files(options?: { trashed?: boolean; perPage?: number }): AsyncIterable<CellarFile>;
}

export function createCellarClient(options: CellarClientOptions): CellarClient {
  const apiUrl = `${options.baseUrl.replace(/\/+$/, "")}/v1`;
  // Looked up at each call: Node loads its fetch (undici) on first use, which a program
  // that only uploads with `uploadFile` never needs.
  const fetch: typeof globalThis.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  // Made on first use: openapi-fetch reads the global Request when a client is made,
  // which loads Node's fetch (undici, 30 ms), and a program that only uploads with
  // `uploadFile` never needs it.
  let made: Client<paths> | undefined;
  const api = () =>
    (made ??= createClient<paths>({
      baseUrl: apiUrl,
      fetch: retryingFetch(fetch, options.retries),
      ...(options.token === undefined ? {} : { headers: { authorization: `Bearer ${options.token}` } }),
    }));
  const target = { apiUrl, token: options.token, fetch };
  // Downloads honour Retry-After as every other request without a body does.
  const downloadFetch = retryingFetch(fetch, options.retries);
  return {
    get api() {
      return api();
    },
    upload: (source, uploadOptions) =>
      upload({ ...target, platformFetch: options.fetch === undefined }, source, uploadOptions),
    download: (id, downloadOptions) =>
      download({ ...target, fetch: downloadFetch, resumeAttempts: options.retries?.max ?? 2 }, id, downloadOptions),
    async *files({ trashed = false, perPage = 100 } = {}) {
      for (let page = 1; ; page++) {
        const { data, error, response } = await api().GET("/files", {
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
