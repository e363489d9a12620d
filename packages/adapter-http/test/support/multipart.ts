/** One part of a hand-built multipart/form-data body. */
export type FormPart =
  | { readonly name: string; readonly value: string }
  | {
      readonly name: string;
      readonly filename: string;
      readonly content: string | Uint8Array;
      readonly contentType?: string;
    };

/** Quotes a parameter as browsers do (HTML's form encoding): `"`, CR and LF percent-encoded. */
function quoted(value: string): string {
  return `"${value.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}"`;
}

const BOUNDARY = "----cellar-test-boundary-7MA4YWxkTrZu0gW";

/**
 * Writes parts in the multipart/form-data wire format (RFC 7578), in the order given,
 * so tests control exactly what the server receives.
 */
export function multipartBody(parts: readonly FormPart[]): {
  payload: Buffer;
  headers: { "content-type": string };
} {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${BOUNDARY}\r\n`));
    if ("value" in part) {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name=${quoted(part.name)}\r\n\r\n`));
      chunks.push(Buffer.from(part.value, "utf8"));
    } else {
      chunks.push(
        Buffer.from(
          `Content-Disposition: form-data; name=${quoted(part.name)}; filename=${quoted(part.filename)}\r\n` +
            `Content-Type: ${part.contentType ?? "application/octet-stream"}\r\n\r\n`,
          "utf8",
        ),
      );
      chunks.push(typeof part.content === "string" ? Buffer.from(part.content, "utf8") : Buffer.from(part.content));
    }
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` } };
}
