import { MAX_INVITATION_MESSAGE_LENGTH, ROLES, type Role } from "@cellar/core";
import { USER_SUMMARY_SCHEMA_ID } from "../users/user.schemas.js";

/** The `$id` of the Permission object, referenced by every route that returns one. */
export const PERMISSION_SCHEMA_ID = "Permission";

const role = {
  type: "string",
  enum: ROLES,
  description:
    "`viewer`: see the file, download it, read its cells, its people and its activity. `commenter`: also comment. `editor`: also rename it and change its content.",
} as const;

const timestamp = { type: "string", format: "date-time", examples: ["2026-11-21T10:00:00.000Z"] } as const;

const permissionProperties = {
  id: { type: "string", pattern: "^perm_[a-z2-7]+$", examples: ["perm_mfrggzdfmztwq2lknnwg23tp"] },
  file_id: { type: "string", pattern: "^file_[a-z2-7]+$" },
  email: {
    type: "string",
    format: "email",
    description: "The address the role was given to, trimmed and lower-cased.",
    examples: ["grace@example.com"],
  },
  role,
  user: {
    description:
      "The account of `email`, or null while the address has none: the role waits for it, and its first sign-in sees the file at once.",
    anyOf: [{ $ref: `${USER_SUMMARY_SCHEMA_ID}#` }, { type: "null" }],
  },
  created_at: { ...timestamp, description: "When the role was given." },
  updated_at: { ...timestamp, description: "When the role last changed." },
} as const;

const permissionRequired = ["id", "file_id", "email", "role", "user", "created_at", "updated_at"] as const;

/** A person's role on a file: everyone who may see the file sees these. */
export const permissionSchema = {
  $id: PERMISSION_SCHEMA_ID,
  title: PERMISSION_SCHEMA_ID,
  description: "A person's role on a file, given by its owner to an email address.",
  type: "object",
  additionalProperties: false,
  required: permissionRequired,
  properties: permissionProperties,
} as const;

export const permissionRef = { $ref: `${PERMISSION_SCHEMA_ID}#` } as const;

/** What sharing answers: the permission, and whether the person was told by mail. */
export const sharedSchema = {
  type: "object",
  additionalProperties: false,
  required: [...permissionRequired, "notified"],
  properties: {
    ...permissionProperties,
    notified: {
      type: "boolean",
      description:
        "Whether the mail telling the person went out: false with `notify: false`, for an address that already held a role, and when the mail could not be sent (the role stands all the same).",
    },
  },
} as const;

export const sharePermissionBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["email", "role"],
  properties: {
    email: {
      type: "string",
      format: "email",
      description: "Whom to give the role: an address, with or without an account yet. Not the owner's own.",
      examples: ["grace@example.com"],
    },
    role,
    notify: {
      type: "boolean",
      default: true,
      description:
        "Whether to tell a person new to the file by mail (plain text: the file's name and link, your name and address, the role and your `message`). Default true.",
    },
    message: {
      type: "string",
      description: `A note for the mail, up to ${MAX_INVITATION_MESSAGE_LENGTH} characters once trimmed; line breaks and tabs are its only control characters.`,
      examples: ["Here are the figures for Q3."],
    },
  },
} as const;

export interface SharePermissionBody {
  readonly email: string;
  readonly role: Role;
  readonly notify?: boolean;
  readonly message?: string;
}

export const changeRoleBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["role"],
  properties: { role },
} as const;

export interface ChangeRoleBody {
  readonly role: Role;
}

/** Like file ids, checked for length only: anything of the wrong shape is a permission that does not exist. */
export const permissionParamsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["id", "pid"],
  properties: {
    id: { type: "string", minLength: 1, maxLength: 64, description: "The file's id, `file_…`." },
    pid: { type: "string", minLength: 1, maxLength: 64, description: "The permission's id, `perm_…`." },
  },
} as const;

export interface PermissionParams {
  readonly id: string;
  readonly pid: string;
}
