import { normaliseEmail } from "../auth/email.js";
import { invalidField } from "../shared/errors.js";
import { hasForbiddenCharacters } from "../shared/text-rules.js";
import { formatA1Range, parseA1Range } from "../sheets/a1-range.js";
import type { UserSummary } from "../users/user.entity.js";

/**
 * A comment on a file, as stored. A comment with no `parentId` starts a thread, about the
 * whole file or about the cells its `range` names; a reply (`parentId`: the thread's
 * first comment) belongs to that thread, so it keeps no range or state of its own: both
 * are its thread's.
 */
export interface CommentRecord {
  readonly id: string;
  readonly fileId: string;
  readonly authorId: string;
  /** Trimmed, 1–10,000 code points; line breaks and tabs allowed (`normaliseCommentText`). */
  readonly text: string;
  /** The cells a thread is about, in A1 notation as `normaliseCommentRange` writes it; null for the file as a whole, and on every reply. */
  readonly range: string | null;
  /** The thread's first comment, for a reply; null for a comment that starts a thread. */
  readonly parentId: string | null;
  /** Whether the thread is resolved: kept on its first comment; always false on a reply. */
  readonly resolved: boolean;
  readonly createdAt: Date;
  /** When its text last changed, or its thread was resolved or reopened. */
  readonly updatedAt: Date;
}

/**
 * A comment as callers see it: with its author's account as it is now (null once it is
 * gone), and, for a reply, its thread's `range` and `resolved`.
 */
export interface Comment extends CommentRecord {
  readonly author: UserSummary | null;
}

/** The longest comment, in characters (code points), once trimmed. */
export const MAX_COMMENT_LENGTH = 10_000;

/** The most comments (replies included) one file may hold. */
export const MAX_COMMENTS_PER_FILE = 10_000;

/** What a `commented` activity entry says happened to the comment it names. */
export const COMMENT_ACTIONS = ["created", "edited", "resolved", "reopened", "deleted"] as const;

export type CommentAction = (typeof COMMENT_ACTIONS)[number];

/**
 * A `commented` entry's details: which comment, what happened to it, its thread and the
 * cells it is about. Never its text, so that a deleted comment's words leave the log with it.
 */
export interface CommentedDetails {
  readonly [key: string]: string | null;
  readonly comment_id: string;
  readonly action: CommentAction;
  readonly parent_id: string | null;
  readonly range: string | null;
}

/**
 * A comment's text: trimmed, 1–10,000 characters, no control characters but line breaks
 * and tabs, nor direction overrides. Throws `validation_error` on `text` otherwise.
 */
export function normaliseCommentText(value: unknown): string {
  if (typeof value !== "string") throw invalidField("text", "must be a string");
  const trimmed = value.trim();
  // A comment runs over lines as it likes: line breaks and tabs are the only controls it may hold.
  if (hasForbiddenCharacters(trimmed.replace(/[\t\n\r]/g, " "))) {
    throw invalidField("text", "must not contain control characters other than line breaks and tabs");
  }
  const length = [...trimmed].length;
  if (length === 0) throw invalidField("text", "must not be empty");
  if (length > MAX_COMMENT_LENGTH) throw invalidField("text", `must be at most ${MAX_COMMENT_LENGTH} characters`);
  return trimmed;
}

/**
 * The cells a thread is about: an A1 range as `GET /files/:id/values` takes it (with or
 * without a sheet), written one way whatever way it was given (`b2:$D$10` and `D10:B2`
 * are `B2:D10`; `'Data'!A1` is `Data!A1`), so that threads about the same cells carry the
 * same range. Null or absent is none. Its syntax alone is checked: a comment may name a
 * sheet the file does not have (yet, or any more).
 */
export function normaliseCommentRange(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw invalidField("range", "must be a string or null");
  const range = parseA1Range(value, "range");
  // Written with a stand-in sheet, which is then taken off again when none was named.
  const written = formatA1Range({ ...range, sheet: range.sheet ?? "S" });
  return range.sheet === null ? written.slice("S!".length) : written;
}

// `@` starting a word, then an address: `@ana@example.com`. What ends a sentence is taken
// off its end again (`@ana@example.com.`), as are closing brackets and quotes.
const MENTION = /(?<![\p{L}\p{N}_@.+-])@([^\s@]+@[^\s@]+)/gu;
const TRAILING = /[.,;:!?)\]}>'"»”’…]+$/u;

/**
 * The addresses a comment's text mentions (`@ana@example.com`), normalised as sign-in
 * addresses are, each once, in the order they first appear. What only looks like one
 * (`@not-an-address@`) is plain text.
 */
export function mentionedAddresses(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(MENTION)) {
    const candidate = (match[1] as string).replace(TRAILING, "");
    try {
      found.add(normaliseEmail(candidate));
    } catch {
      // Not an address: it stays text.
    }
  }
  return [...found];
}

/** How much of a comment a mention's mail quotes, in characters. */
export const MENTION_EXCERPT_LENGTH = 1000;

/** The comment as a mention's mail quotes it: whole, or its first 1,000 characters and an ellipsis. */
export function mentionExcerpt(text: string): string {
  const characters = [...text];
  if (characters.length <= MENTION_EXCERPT_LENGTH) return text;
  return `${characters.slice(0, MENTION_EXCERPT_LENGTH).join("").trimEnd()}…`;
}
