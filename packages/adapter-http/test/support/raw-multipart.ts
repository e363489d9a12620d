/**
 * Multipart bodies written byte for byte, for tests that must send what no browser
 * would: a part's header lines exactly as given (a `filename*` in RFC 5987 form, a raw
 * quote or control character), any boundary, and optionally no closing delimiter.
 * `multipart.ts` stays the well-behaved writer; this one is for attacks and fuzzing.
 */

/** One part: its header lines (without the CRLF that ends each) and its content. */
export interface RawPart {
  readonly headers: readonly string[];
  readonly content: string | Uint8Array;
}

export const RAW_BOUNDARY = "----cellar-raw-boundary-Qx81nVb3";

export function rawMultipartBody(
  parts: readonly RawPart[],
  options: { readonly boundary?: string; readonly closed?: boolean } = {},
): { payload: Buffer; headers: { "content-type": string } } {
  const boundary = options.boundary ?? RAW_BOUNDARY;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    for (const line of part.headers) chunks.push(Buffer.from(`${line}\r\n`, "utf8"));
    chunks.push(Buffer.from("\r\n"));
    chunks.push(typeof part.content === "string" ? Buffer.from(part.content, "utf8") : Buffer.from(part.content));
    chunks.push(Buffer.from("\r\n"));
  }
  if (options.closed !== false) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

/**
 * RFC 5987 `ext-value` of `value`: `UTF-8''` and every UTF-8 byte percent-encoded. A
 * multipart parser decodes it back to exactly these code points, quotes, CR, LF and NUL
 * included, so this is how a test delivers a hostile file name unaltered.
 */
export function extValue(value: string): string {
  return `UTF-8''${[...Buffer.from(value, "utf8")].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("")}`;
}

/** A file part whose file name is given as `filename*` (exact code points). */
export function filePartWithExactName(fileName: string, content: string | Uint8Array, field = "file"): RawPart {
  return {
    headers: [
      `Content-Disposition: form-data; name="${field}"; filename*=${extValue(fileName)}`,
      "Content-Type: application/octet-stream",
    ],
    content,
  };
}
