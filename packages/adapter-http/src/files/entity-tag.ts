/** The strong ETag of a file's bytes: its SHA-256, quoted. */
export function entityTag(sha256: string): string {
  return `"${sha256}"`;
}

/**
 * Whether `If-None-Match` names `etag`: `*`, the tag itself, or the tag in a list, weak
 * (`W/"…"`) or not, as the weak comparison of RFC 9110 §13.1.2 asks.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === etag);
}
