import { apiError, CellarApiError } from "./errors.js";

export interface DownloadOptions {
  /**
   * Resume: the first byte wanted, when the bytes before it are already at hand. Give
   * `etag` with it, so that a file that changed since is not spliced onto its old bytes.
   */
  readonly from?: number;
  /** The `ETag` of the download being resumed (`Download.etag`). */
  readonly etag?: string;
  /** A spreadsheet converted on the way (`csv` or `xlsx`): never resumed, converted whole. */
  readonly format?: "csv" | "xlsx";
  /** With `format=csv`, the workbook's sheet to convert (default: the first). */
  readonly sheet?: string;
  /** Called as bytes arrive: those received so far (counting `from`), and the file's size when known. */
  readonly onProgress?: (received: number, total: number | undefined) => void;
  readonly signal?: AbortSignal;
}

/** How `downloadVersion` downloads: as `download`, without a conversion (a version is sent as stored). */
export type VersionDownloadOptions = Omit<DownloadOptions, "format" | "sheet">;

/** A download under way: what the server said of the file, and its bytes as they arrive. */
export interface Download {
  /** The name the server offers (`Content-Disposition`): the display name and its extension. */
  readonly fileName: string;
  readonly contentType: string;
  /** The version of the bytes (`ETag`): keep it to resume. */
  readonly etag: string | undefined;
  /** The whole file's size in bytes, when the server said (not for a conversion). */
  readonly size: number | undefined;
  /** The offset of the first byte of `body` in the file (`from`, or 0). */
  readonly from: number;
  /**
   * The bytes from `from` to the end. When the connection drops, the rest is asked for
   * again with a `Range` from the last byte received (at most `resumeAttempts` times), and
   * only if the server still has the same version: otherwise a `CellarApiError` with
   * code `file_changed`.
   */
  readonly body: AsyncIterable<Uint8Array>;
  /** Lets go of the bytes not read yet, and of the connection (when `body` will not be read to the end). */
  cancel(): Promise<void>;
}

export interface DownloadSource {
  /** The API's root, ending in `/v1`. */
  readonly apiUrl: string;
  readonly token: string | undefined;
  readonly fetch: typeof globalThis.fetch;
  /** How often a dropped connection is resumed within one download. */
  readonly resumeAttempts: number;
}

/** `filename*=UTF-8''…` when present (the real name), else the ASCII `filename="…"`. */
export function offeredFileName(contentDisposition: string | null, fallback: string): string {
  if (contentDisposition === null) return fallback;
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(contentDisposition)?.[1];
  if (extended !== undefined) {
    try {
      return decodeURIComponent(extended.trim());
    } catch {
      // A malformed encoding: the plain name below.
    }
  }
  return /filename="((?:[^"\\]|\\.)*)"/i.exec(contentDisposition)?.[1]?.replace(/\\(.)/g, "$1") ?? fallback;
}

function changedError(status: number): CellarApiError {
  return new CellarApiError(
    status,
    "file_changed",
    "The file changed on the server since the download began: download it again from the start.",
  );
}

/** The first byte and the whole size of a `Content-Range: bytes a-b/size` answer. */
function contentRange(response: Response): { first: number; size: number } | undefined {
  const match = /^bytes (\d+)-\d+\/(\d+)$/.exec(response.headers.get("content-range") ?? "");
  return match === null ? undefined : { first: Number(match[1]), size: Number(match[2]) };
}

/**
 * Downloads a file's content (`GET /files/{id}/download`), or, given `version`, that
 * version's bytes (`GET /files/{id}/versions/{n}/download`), with the same resumes.
 */
export async function download(
  source: DownloadSource,
  id: string,
  options: DownloadOptions = {},
  version?: number,
): Promise<Download> {
  if (version !== undefined && (options.format !== undefined || options.sheet !== undefined)) {
    throw new TypeError("A version is downloaded as stored: no format or sheet.");
  }
  const query = new URLSearchParams();
  if (options.format !== undefined) query.set("format", options.format);
  if (options.sheet !== undefined) query.set("sheet", options.sheet);
  const path = version === undefined ? "download" : `versions/${encodeURIComponent(String(version))}/download`;
  const url = `${source.apiUrl}/files/${encodeURIComponent(id)}/${path}${query.size > 0 ? `?${query}` : ""}`;
  const resumable = options.format === undefined;

  const request = (from: number) => {
    const headers: Record<string, string> = {};
    if (source.token !== undefined) headers.authorization = `Bearer ${source.token}`;
    if (from > 0 && resumable) headers.range = `bytes=${from}-`;
    return source.fetch(url, { headers, ...(options.signal === undefined ? {} : { signal: options.signal }) });
  };

  const from = resumable ? (options.from ?? 0) : 0;
  const first = await request(from);
  if (first.status === 416 && from > 0) {
    const size = Number(/\*\/(\d+)$/.exec(first.headers.get("content-range") ?? "")?.[1]);
    if (size === from) {
      // Asked from the very end: every byte is at hand. The file's name and version come
      // from a HEAD, so that a finished download is named, and checked, as any other.
      await first.body?.cancel();
      const head = await source.fetch(url, {
        method: "HEAD",
        ...(source.token === undefined ? {} : { headers: { authorization: `Bearer ${source.token}` } }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      if (!head.ok) throw await apiError(head);
      const etag = head.headers.get("etag") ?? undefined;
      if (options.etag !== undefined && etag !== options.etag) throw changedError(head.status);
      return {
        fileName: offeredFileName(head.headers.get("content-disposition"), id),
        contentType: head.headers.get("content-type") ?? "application/octet-stream",
        etag,
        size,
        from,
        body: (async function* () {})(),
        cancel: async () => {},
      };
    }
  }
  if (!first.ok) throw await apiError(first);
  const etag = first.headers.get("etag") ?? undefined;
  if (from > 0 && options.etag !== undefined && etag !== options.etag) {
    await first.body?.cancel();
    throw changedError(first.status);
  }
  const range = first.status === 206 ? contentRange(first) : undefined;
  const start = range?.first ?? 0;
  const length = Number(first.headers.get("content-length"));
  const size = range?.size ?? (first.headers.has("content-length") && Number.isFinite(length) ? length : undefined);

  let response = first;
  const body = async function* () {
    let received = start;
    let attempts = 0;
    for (;;) {
      try {
        if (response.body === null) return;
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          received += chunk.length;
          options.onProgress?.(received, size);
          yield chunk;
        }
        return;
      } catch (error) {
        // A dropped connection mid-body: ask for the rest of the same version.
        const canResume =
          resumable && etag !== undefined && attempts < source.resumeAttempts && !options.signal?.aborted;
        if (!canResume) throw error;
        attempts++;
        response = await request(received);
        if (!response.ok) throw await apiError(response);
        const resumedAt = contentRange(response)?.first;
        if (response.status !== 206 || resumedAt !== received || response.headers.get("etag") !== etag) {
          await response.body?.cancel();
          throw changedError(response.status);
        }
      }
    }
  };

  return {
    fileName: offeredFileName(first.headers.get("content-disposition"), id),
    contentType: first.headers.get("content-type") ?? "application/octet-stream",
    etag,
    size,
    from: start,
    body: body(),
    cancel: async () => {
      await response.body?.cancel().catch(() => {});
    },
  };
}
