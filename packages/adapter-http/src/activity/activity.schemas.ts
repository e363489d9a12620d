import { ACTIVITY_ACTIONS, ACTIVITY_RETENTION_DAYS } from "@cellar/core";
import { pageHeaders, pageQueryProperties } from "../files/file.schemas.js";
import { USER_SUMMARY_SCHEMA_ID } from "../users/user.schemas.js";

/** The `$id` of an activity entry. */
export const ACTIVITY_ENTRY_SCHEMA_ID = "ActivityEntry";

export const activityEntrySchema = {
  $id: ACTIVITY_ENTRY_SCHEMA_ID,
  title: ACTIVITY_ENTRY_SCHEMA_ID,
  description: `One thing that happened to a file: who did what, and when. Entries are kept at least ${ACTIVITY_RETENTION_DAYS} days.`,
  type: "object",
  additionalProperties: false,
  required: ["id", "at", "actor", "action", "details"],
  properties: {
    id: { type: "string", pattern: "^act_[a-z2-7]+$", examples: ["act_mfrggzdfmztwq2lknnwg23tp"] },
    at: { type: "string", format: "date-time", examples: ["2026-11-21T10:00:00.000Z"] },
    actor: {
      description: "Who did it; null once their account is gone.",
      anyOf: [{ $ref: `${USER_SUMMARY_SCHEMA_ID}#` }, { type: "null" }],
    },
    action: { type: "string", enum: ACTIVITY_ACTIONS },
    details: {
      type: "object",
      additionalProperties: true,
      description:
        "What the action says besides who and when: `uploaded` and `renamed` `{ name }` (the name it now has), `visibility_changed` `{ visibility }`, `shared` and `role_changed` `{ email, role }` (the role the person now holds), `unshared` `{ email }` (the actor is that person when they left); `version_restored` `{ version, from }` (the new version, and the one whose content it has); `commented` `{ comment_id, action, parent_id, range }` (`action`: `created`, `edited`, `resolved`, `reopened` or `deleted`; never the text); `structure_changed` `{ version, sha256, operations }` (the operations as `POST /structure` took them); `trashed` and `restored` `{}`.",
      examples: [{ email: "grace@example.com", role: "editor" }],
    },
  },
} as const;

export const listActivityQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: pageQueryProperties("Entries"),
} as const;

export interface ListActivityQuery {
  readonly page?: string;
  readonly per_page?: string;
}

export const activityPageHeaders = pageHeaders("entries", "Each links to this file's activity.");
