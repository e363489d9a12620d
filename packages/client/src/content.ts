import { apiError } from "./errors.js";
import { type BodySource, type CellarFile, sendWithXhr, streamedBody, type UploadTarget } from "./upload.js";

/**
 * The `If-Match` of a change of content: the file's `sha256` (quoted here), its `ETag`
 * (already quoted), or `*` for whatever the content is now.
 */
export function ifMatchOf(basedOn: string): string {
  if (basedOn === "*" || basedOn.startsWith('"')) return basedOn;
  return `"${basedOn}"`;
}

export interface ReplaceContentOptions {
  /**
   * The content the new one replaces: the file's `sha256` (or `ETag`) as last read, so
   * that a change made since by someone else is refused (412, `precondition_failed`)
   * rather than lost; or `*` to replace whatever is there.
   */
  readonly ifMatch: string;
  /** Called as bytes go out: those sent so far, and the total when known. */
  readonly onProgress?: (sent: number, total: number | undefined) => void;
  readonly signal?: AbortSignal;
}

/**
 * Replaces a file's content with new bytes, streamed (`PUT /files/{id}/content`): its
 * next version, under the same name and type. Not retried: a stream is sent once. In a
 * browser a `Blob` goes by XMLHttpRequest, for its progress events.
 */
export async function replaceContent(
  target: UploadTarget,
  id: string,
  source: BodySource,
  options: ReplaceContentOptions,
): Promise<CellarFile> {
  const url = `${target.apiUrl}/files/${encodeURIComponent(id)}/content`;
  const ifMatch = ifMatchOf(options.ifMatch);
  if (source.content instanceof Blob && target.platformFetch && typeof XMLHttpRequest === "function") {
    return sendWithXhr<CellarFile>({
      method: "PUT",
      url,
      token: target.token,
      headers: { "content-type": "application/octet-stream", "if-match": ifMatch },
      body: source.content,
      size: source.content.size,
      onProgress: options.onProgress,
      signal: options.signal,
    });
  }
  const { body, contentLength } = streamedBody(source, options.onProgress);
  const headers: Record<string, string> = { "content-type": "application/octet-stream", "if-match": ifMatch };
  if (contentLength !== undefined) headers["content-length"] = String(contentLength);
  if (target.token !== undefined) headers.authorization = `Bearer ${target.token}`;
  const response = await target.fetch(url, {
    method: "PUT",
    headers,
    body,
    // A streamed request body (fetch's half-duplex mode, which Node requires for it).
    duplex: "half",
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  } as RequestInit);
  if (!response.ok) throw await apiError(response);
  return (await response.json()) as CellarFile;
}
