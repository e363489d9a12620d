import { MAX_COMMENT_LENGTH } from "@cellar/core";
import { fileIdParamsSchema, pageHeaders, pageQueryProperties } from "../files/file.schemas.js";
import { USER_SUMMARY_SCHEMA_ID } from "../users/user.schemas.js";

/** The `$id` of the Comment object, referenced by every route that returns one. */
export const COMMENT_SCHEMA_ID = "Comment";

const timestamp = { type: "string", format: "date-time", examples: ["2026-11-21T10:00:00.000Z"] } as const;

const rangeDescription =
  "An A1 range as `GET /files/:id/values` takes it, with or without a sheet (`B2:D10`, `'Q1 Budget'!A1:Z100`, `Sheet2!A:C`, `3:5`, `C7`). Only its syntax is checked.";

const commentProperties = {
  id: { type: "string", pattern: "^cmt_[a-z2-7]+$", examples: ["cmt_mfrggzdfmztwq2lknnwg23tp"] },
  author: {
    description: "Who wrote it; null once their account is gone.",
    anyOf: [{ $ref: `${USER_SUMMARY_SCHEMA_ID}#` }, { type: "null" }],
  },
  text: {
    type: "string",
    description: "What it says, trimmed; it may run over several lines.",
    examples: ["@grace@example.com is this total right?"],
  },
  range: {
    type: ["string", "null"],
    description:
      "The cells its thread is about, written one way however it was given (`b2:$D$10` is `B2:D10`); null for the file as a whole. A reply shows its thread's.",
    examples: ["'Q1 Budget'!B2:D10"],
  },
  parent_id: {
    type: ["string", "null"],
    description: "For a reply, the comment that starts its thread; null for a comment that starts one.",
  },
  resolved: {
    type: "boolean",
    description: "Whether its thread is resolved. A reply shows its thread's.",
  },
  created_at: timestamp,
  updated_at: { ...timestamp, description: "When its text last changed, or its thread was resolved or reopened." },
} as const;

const commentRequired = ["id", "author", "text", "range", "parent_id", "resolved", "created_at", "updated_at"] as const;

/** A comment on a file: anyone who may see the file sees these. */
export const commentSchema = {
  $id: COMMENT_SCHEMA_ID,
  title: COMMENT_SCHEMA_ID,
  description:
    "A comment on a file, or on some of its cells. A comment with no `parent_id` starts a thread; replies are one level deep.",
  type: "object",
  additionalProperties: false,
  required: commentRequired,
  properties: commentProperties,
} as const;

export const commentRef = { $ref: `${COMMENT_SCHEMA_ID}#` } as const;

/** What writing a comment answers: the comment, and who of those it newly mentions was told. */
export const writtenCommentSchema = {
  type: "object",
  additionalProperties: false,
  required: [...commentRequired, "mentions"],
  properties: {
    ...commentProperties,
    mentions: {
      type: "array",
      description:
        "Each address the text newly mentions (`@ana@example.com`; for an edit, only those the old text did not), in order, once each, and whether that person was told by mail: false for an address with no access to the file (it stays plain text), for your own, and when the mail could not be sent.",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["email", "notified"],
        properties: {
          email: { type: "string", format: "email", examples: ["grace@example.com"] },
          notified: { type: "boolean" },
        },
      },
    },
  },
} as const;

const text = {
  type: "string",
  description: `1–${MAX_COMMENT_LENGTH.toLocaleString("en")} characters once trimmed; line breaks and tabs are the only control characters it may hold. \`@name@example.com\` mentions that person: they are told by mail when they have access to the file.`,
  examples: ["@grace@example.com is this total right?"],
} as const;

export const createCommentBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["text"],
  properties: {
    text,
    range: {
      type: ["string", "null"],
      description: `The cells the new thread is about; absent or null for the file as a whole. Not with \`parent_id\`: a reply is about its thread's cells. ${rangeDescription}`,
      examples: ["B2:D10"],
    },
    parent_id: {
      type: ["string", "null"],
      description: "To reply: the id of the comment that starts the thread (not of a reply).",
    },
  },
} as const;

export interface CreateCommentBody {
  readonly text: string;
  readonly range?: string | null;
  readonly parent_id?: string | null;
}

export const updateCommentBodySchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  description: "At least one of `text` (its author only) and `resolved` (a thread's first comment only).",
  properties: {
    text,
    resolved: {
      type: "boolean",
      description:
        "Resolve (true) or reopen (false) the thread this comment starts: the author of that comment, editors and the owner.",
    },
  },
} as const;

export interface UpdateCommentBody {
  readonly text?: string;
  readonly resolved?: boolean;
}

export const listCommentsQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: pageQueryProperties("Comments"),
} as const;

export interface ListCommentsQuery {
  readonly page?: string;
  readonly per_page?: string;
}

export const commentPageHeaders = pageHeaders("comments", "Each links to this file's comments.");

/** Like file ids, checked for length only: anything of the wrong shape is a comment that does not exist. */
export const commentParamsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["id", "cid"],
  properties: {
    id: fileIdParamsSchema.properties.id,
    cid: { type: "string", minLength: 1, maxLength: 64, description: "The comment's id, `cmt_…`." },
  },
} as const;

export interface CommentParams {
  readonly id: string;
  readonly cid: string;
}
