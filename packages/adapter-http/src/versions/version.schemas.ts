import { VERSION_RETENTION_COUNT, VERSION_RETENTION_DAYS } from "@cellar/core";
import { fileIdParamsSchema, pageHeaders, pageQueryProperties } from "../files/file.schemas.js";
import { USER_SUMMARY_SCHEMA_ID } from "../users/user.schemas.js";

/** The `$id` of a version. */
export const VERSION_SCHEMA_ID = "Version";

export const versionSchema = {
  $id: VERSION_SCHEMA_ID,
  title: VERSION_SCHEMA_ID,
  description: `One version of a file's content: 1 is the upload, each change of content makes the next. A version that is neither current nor kept is removed once older than VERSION_RETENTION_DAYS (default ${VERSION_RETENTION_DAYS}) and not among the file's newest VERSION_RETENTION_COUNT (default ${VERSION_RETENTION_COUNT}).`,
  type: "object",
  additionalProperties: false,
  required: ["version", "size", "sha256", "created_at", "author", "current", "keep"],
  properties: {
    version: { type: "integer", minimum: 1, examples: [2] },
    size: { type: "integer", minimum: 1, description: "Size in bytes." },
    sha256: { type: "string", pattern: "^[0-9a-f]{64}$", description: "Lowercase hex SHA-256 of the bytes." },
    created_at: { type: "string", format: "date-time", examples: ["2026-11-21T10:00:00.000Z"] },
    author: {
      description:
        "Who made it (the uploader, or the editor who changed the content); null once their account is gone.",
      anyOf: [{ $ref: `${USER_SUMMARY_SCHEMA_ID}#` }, { type: "null" }],
    },
    current: { type: "boolean", description: "Whether it is the file's content now." },
    keep: { type: "boolean", description: "Kept on purpose: retention never removes it." },
  },
} as const;

export const versionRef = { $ref: `${VERSION_SCHEMA_ID}#` } as const;

export const listVersionsQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: pageQueryProperties("Versions"),
} as const;

export interface ListVersionsQuery {
  readonly page?: string;
  readonly per_page?: string;
}

export const versionPageHeaders = pageHeaders("versions", "Each links to this file's versions.");

/** `:id` and `:n`: the version's number is checked by core, so that any text gets the API's error. */
export const versionParamsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["id", "n"],
  properties: {
    id: fileIdParamsSchema.properties.id,
    n: { type: "string", minLength: 1, maxLength: 16, description: "The version's number." },
  },
} as const;

export interface VersionParams {
  readonly id: string;
  readonly n: string;
}

export const keepBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["keep"],
  properties: { keep: { type: "boolean", description: "Whether retention must leave this version alone." } },
} as const;

export interface KeepBody {
  readonly keep: boolean;
}

export const ifMatchHeaderSchema = {
  type: "object",
  properties: {
    "if-match": {
      type: "string",
      description:
        'The file\'s ETag (`"<sha256>"`, as `GET /files/:id` answers it) of the content this change is based on, or `*` for whatever is there now. Required.',
    },
  },
} as const;
