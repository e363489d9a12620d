/**
 * RFC 5987 `attr-char`: what may appear unencoded in `filename*`. Everything else,
 * including `'`, `(`, `)` and `*` that `encodeURIComponent` leaves alone, is encoded.
 */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;

/**
 * Characters the quoted `filename` fallback cannot carry safely: anything outside
 * printable ASCII (controls, CR and LF included), the quote and backslash that would end
 * or escape the string, and `;` and `%` that some clients misread.
 */
const UNSAFE_IN_FALLBACK = /[^\x20-\x7e]|["\\;%]/u;

/**
 * `attachment; filename="<ascii>"; filename*=UTF-8''<percent-encoded>` (RFC 6266): one
 * well-formed header line whatever the name holds. Old clients read the ASCII
 * fallback, where each unsafe character became `_`; the rest read the exact name.
 */
export function contentDisposition(fileName: string): string {
  const fallback = [...fileName].map((character) => (UNSAFE_IN_FALLBACK.test(character) ? "_" : character)).join("");
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc5987(fileName)}`;
}

function encodeRfc5987(value: string): string {
  // Buffer.from turns a lone surrogate into U+FFFD instead of throwing as
  // encodeURIComponent would.
  let encoded = "";
  for (const byte of Buffer.from(value, "utf8")) {
    const character = String.fromCharCode(byte);
    encoded += ATTR_CHAR.test(character) ? character : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return encoded;
}
