import { type ContentPrecondition, invalidField } from "@cellar/core";
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

/**
 * What a change of content is based on, from its `If-Match`: one strong entity tag of
 * the SHA-256 it was made from, or `*` for whatever is there now. Absent, the change is
 * refused by core (428). A list or a weak tag is a bad request: a weak tag never matches
 * a change of content, and a list would make the change's base ambiguous.
 */
export function contentPrecondition(header: string | undefined): ContentPrecondition {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === "*") return "any";
  const match = /^"([0-9a-f]{64})"$/.exec(value);
  if (match === null) {
    throw invalidField(
      "If-Match",
      'must be one entity tag, "<sha256>" of the content the change is based on (as GET /files/:id gives it), or *',
    );
  }
  return { sha256: match[1] as string };
}
