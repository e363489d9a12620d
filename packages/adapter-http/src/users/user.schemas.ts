export const USER_SCHEMA_ID = "User";
export const USER_SUMMARY_SCHEMA_ID = "UserSummary";

const userProperties = {
  id: { type: "string", pattern: "^user_[a-z2-7]+$", examples: ["user_mfrggzdfmztwq2lknnwg23tp"] },
  email: { type: "string", format: "email", description: "Trimmed and lower-cased.", examples: ["ada@example.com"] },
  name: {
    type: "string",
    description: "Display name: trimmed, 1–100 characters, no control characters.",
    examples: ["ada"],
  },
} as const;

/** The signed-in user's profile. */
export const userSchema = {
  $id: USER_SCHEMA_ID,
  title: USER_SCHEMA_ID,
  description: "The signed-in user's profile.",
  type: "object",
  additionalProperties: false,
  required: ["id", "email", "name", "created_at"],
  properties: {
    ...userProperties,
    created_at: { type: "string", format: "date-time", examples: ["2026-11-21T10:00:00.000Z"] },
  },
} as const;

/** The user returned with a new session. */
export const userSummarySchema = {
  $id: USER_SUMMARY_SCHEMA_ID,
  title: USER_SUMMARY_SCHEMA_ID,
  description: "The user a session belongs to.",
  type: "object",
  additionalProperties: false,
  required: ["id", "email", "name"],
  properties: userProperties,
} as const;

export const patchUserBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: { name: userProperties.name },
} as const;

export interface PatchUserBody {
  readonly name: string;
}
