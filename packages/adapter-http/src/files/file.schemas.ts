import {
  CONTENT_TYPES,
  DEFAULT_FILE_SORT,
  FILE_SORTS,
  type FileRole,
  type FileSortName,
  MAX_SEARCH_LENGTH,
  ROLES,
  VISIBILITIES,
} from "@cellar/core";

/** The `$id` of the File object, referenced by every route that returns one. */
export const FILE_SCHEMA_ID = "File";

const timestamp = { type: "string", format: "date-time", examples: ["2026-11-21T10:00:00.000Z"] } as const;
const nullableTimestamp = { type: ["string", "null"], format: "date-time" } as const;
/** A caller's standing on a file, most first: the owner, then the roles given, each including the next. */
const FILE_ROLES: readonly FileRole[] = ["owner", ...[...ROLES].reverse()];

const visibility = {
  type: "string",
  enum: VISIBILITIES,
  description:
    "`private`: only the owner and the people it is shared with see the file. `public`: any signed-in user may also read and download it.",
} as const;

/** A file as every route returns it: snake_case, dates as ISO 8601 UTC with milliseconds. */
export const fileSchema = {
  $id: FILE_SCHEMA_ID,
  title: FILE_SCHEMA_ID,
  description: "A spreadsheet file and its metadata.",
  type: "object",
  additionalProperties: false,
  required: [
    "id",
    "name",
    "visibility",
    "created_at",
    "updated_at",
    "size",
    "content_type",
    "sha256",
    "owner_id",
    "state",
    "trashed_at",
    "purge_at",
    "role",
    "version",
  ],
  properties: {
    id: { type: "string", pattern: "^file_[a-z2-7]+$", examples: ["file_mfrggzdfmztwq2lknnwg23tp"] },
    name: {
      type: "string",
      description: "Display name: trimmed, 1–255 characters, no control characters.",
      examples: ["Budget.xlsx"],
    },
    visibility,
    created_at: timestamp,
    updated_at: timestamp,
    size: { type: "integer", minimum: 1, description: "Size in bytes." },
    content_type: { type: "string", enum: Object.values(CONTENT_TYPES) },
    sha256: { type: "string", pattern: "^[0-9a-f]{64}$", description: "Lowercase hex SHA-256 of the bytes." },
    owner_id: { type: "string", pattern: "^user_[a-z2-7]+$" },
    state: {
      type: "string",
      enum: ["active", "trashed"],
      description: "`trashed` files are deleted for good at `purge_at`.",
    },
    trashed_at: { ...nullableTimestamp, description: "When the file was moved to the trash; null while active." },
    purge_at: { ...nullableTimestamp, description: "When a trashed file is deleted for good; null while active." },
    role: {
      type: ["string", "null"],
      enum: [...FILE_ROLES, null],
      description:
        "Your role on the file: `owner`, or the role its owner gave you (`editor`, `commenter`, `viewer`, each allowing what the next allows and more); null when you see it only because it is public.",
      examples: ["owner"],
    },
    version: {
      type: "integer",
      minimum: 1,
      description: "The version of the content: 1 at upload, one more on every change of content.",
      examples: [1],
    },
  },
} as const;

export const fileRef = { $ref: `${FILE_SCHEMA_ID}#` } as const;

/**
 * Path ids are checked for length only: anything of the wrong shape is simply a file
 * that does not exist (404), and the bound keeps a huge id from reaching storage.
 */
export const fileIdParamsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["id"],
  properties: { id: { type: "string", minLength: 1, maxLength: 64, description: "The file's id, `file_…`." } },
} as const;

export interface FileIdParams {
  readonly id: string;
}

/**
 * Whole numbers ≥ 1, as query strings: the schema checks the text, the handler converts
 * it. No leading zeros; at most 15 digits, so every one is a safe integer and a huge
 * page number is simply a page past the end.
 */
export const WHOLE_NUMBER_PATTERN = "^[1-9][0-9]*$";
export const WHOLE_NUMBER_MAX_DIGITS = 15;

const wholeNumberText = { type: "string", pattern: WHOLE_NUMBER_PATTERN, maxLength: WHOLE_NUMBER_MAX_DIGITS } as const;

/**
 * Finding and ordering files: the query parameters every listing of files takes, beside
 * its paging.
 */
export const findFilesQueryProperties = {
  q: {
    type: "string",
    minLength: 1,
    maxLength: MAX_SEARCH_LENGTH,
    description: `Keeps only the files whose name contains this text, ignoring case (in every script: \`ärger\` finds \`ÄRGER.csv\`, \`strasse\` finds \`Straße.xlsx\`). 1–${MAX_SEARCH_LENGTH} characters, spaces included as given; no control characters.`,
    examples: ["budget"],
  },
  sort: {
    type: "string",
    enum: FILE_SORTS,
    default: DEFAULT_FILE_SORT,
    description:
      "The order: `created_at`, `updated_at`, `name` (ignoring case, character by character in Unicode code point order) or `size`, ascending; with a leading `-`, descending. Files equal in it are ordered by `id`, in the same direction. Default `-created_at`, newest first.",
    examples: ["name", "-size"],
  },
} as const;

/** `page` and `per_page`: the query parameters of every paged listing. `what` names what is listed. */
export function pageQueryProperties(what: string) {
  return {
    page: {
      ...wholeNumberText,
      description:
        "Page number, a whole number ≥ 1 (no leading zeros, at most 15 digits). Default 1. A page past the end is an empty array.",
      examples: ["1"],
    },
    per_page: {
      ...wholeNumberText,
      description: `${what} per page, a whole number ≥ 1 (no leading zeros, at most 15 digits). Default 25; above 100 it is served as 100.`,
      examples: ["25"],
    },
  } as const;
}

export const listFilesQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    ...pageQueryProperties("Files"),
    trashed: {
      type: "string",
      enum: ["true", "false"],
      description: "`true` lists the caller's trash instead of their active files.",
    },
    shared: {
      type: "string",
      enum: ["true", "false"],
      description:
        "`true` lists the active files others share with the caller instead of their own, newest share first by default, each with the caller's `role`. Not with `trashed=true`.",
    },
    ...findFilesQueryProperties,
  },
} as const;

export interface ListFilesQuery {
  readonly page?: string;
  readonly per_page?: string;
  readonly trashed?: "true" | "false";
  readonly shared?: "true" | "false";
  readonly q?: string;
  readonly sort?: FileSortName;
}

export const patchFileBodySchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  description: "At least one of `name` and `visibility`.",
  properties: {
    name: { type: "string", description: "Trimmed, 1–255 characters, no control characters." },
    visibility,
  },
} as const;

export interface PatchFileBody {
  readonly name?: string;
  readonly visibility?: string;
}

/**
 * The upload form, for the OpenAPI document. The parts are streamed and checked one by
 * one by the handler, so this schema is never run against a request.
 */
export const uploadFormSchema = {
  type: "object",
  additionalProperties: false,
  required: ["file"],
  properties: {
    file: {
      type: "string",
      contentMediaType: "application/octet-stream",
      description:
        "The file: a .csv (text, no NUL byte), .xlsx (an OOXML workbook) or .sheet; the extension of its file name decides, case-insensitively.",
    },
    name: {
      type: "string",
      description: "Display name; defaults to the uploaded file's base name. Trimmed, 1–255 characters.",
    },
    visibility: { ...visibility, default: "private" },
  },
} as const;

const integerHeader = (description: string) => ({ type: "integer", minimum: 0, description }) as const;

/** The headers of one page of a listing; `what` names what is listed, `keeps` what its links carry over. */
export function pageHeaders(what: string, keeps: string) {
  return {
    "X-Total-Count": integerHeader(`Total number of ${what} in the listing.`),
    "X-Total-Pages": integerHeader("ceil(X-Total-Count / X-Per-Page); 0 when there are none."),
    "X-Page": integerHeader("The page served."),
    "X-Per-Page": integerHeader(`How many ${what} a page holds, as served (at most 100).`),
    Link: {
      type: "string",
      description: `RFC 8288 links to the \`first\`, \`last\`, \`prev\` and \`next\` pages, where they exist: \`<…?page=2&per_page=25>; rel="next"\`. ${keeps} Absent when the list is empty.`,
    },
  } as const;
}

export const paginationHeaders = pageHeaders("files", "Each keeps the listing's `trashed`, `shared`, `q` and `sort`.");

export const locationHeader = {
  Location: { type: "string", format: "uri", description: "The new file's address: `{PUBLIC_URL}/v1/files/<id>`." },
} as const;

/** The download's body for each type Cellar serves. */
export const downloadContent = Object.fromEntries(
  [...new Set(Object.values(CONTENT_TYPES))].map((contentType) => [
    contentType,
    { schema: { type: "string", contentMediaType: contentType } },
  ]),
);

const etagHeader = { ETag: { type: "string", description: 'The SHA-256 of the bytes, quoted: `"<sha256>"`.' } };

/** `GET /files/:id`'s ETag: the content's, as the download gives it, whatever else changes. */
export const fileEtagHeader = {
  ETag: {
    type: "string",
    description:
      "The SHA-256 of the file's current content, quoted (`\"<sha256>\"`), as the download's `ETag`: it names the content, not this JSON, which changes on its own (a rename) without it.",
  },
} as const;

export const downloadHeaders = {
  "Content-Length": { type: "integer", minimum: 0 },
  "Content-Disposition": {
    type: "string",
    description: "`attachment; filename=\"<ASCII fallback>\"; filename*=UTF-8''<percent-encoded name>`.",
  },
  ...etagHeader,
  "Accept-Ranges": { type: "string", enum: ["bytes"] },
  "Cache-Control": { type: "string", enum: ["private, no-cache"] },
} as const;

export const partialDownloadHeaders = {
  ...downloadHeaders,
  "Content-Range": { type: "string", description: "`bytes <first>-<last>/<size>`." },
} as const;

export const notModifiedHeaders = {
  ...etagHeader,
  "Cache-Control": downloadHeaders["Cache-Control"],
} as const;

/** The answers of a download besides the whole bytes and the errors: a range (206), or not modified (304). */
export const partialAndNotModifiedResponses = {
  206: { description: "The requested range.", headers: partialDownloadHeaders, content: downloadContent },
  304: { description: "Not modified: the client's copy is current.", headers: notModifiedHeaders, type: "null" },
} as const;

export const downloadRequestHeadersSchema = {
  type: "object",
  properties: {
    Range: {
      type: "string",
      description:
        "One byte range: `bytes=a-b`, `bytes=a-` or `bytes=-n`. Several ranges, or a malformed header, are ignored (the whole file is sent).",
    },
    "If-None-Match": {
      type: "string",
      description: 'The ETag the client holds (`"<sha256>"`, a list, or `*`): when it matches, 304 without a body.',
    },
  },
} as const;
