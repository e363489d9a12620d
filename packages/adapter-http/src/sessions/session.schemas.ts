import type { ListedSession } from "@cellar/core";
import { pageHeaders, pageQueryProperties } from "../files/file.schemas.js";
import { USER_SUMMARY_SCHEMA_ID } from "../users/user.schemas.js";

/** The 403 of a route only a signed-in session may call (decisions §10). */
export const SESSION_ONLY =
  "insufficient_scope: an access token was used; tokens, sessions and webhooks are managed only from a signed-in session.";

export const requestSignInBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["email"],
  properties: {
    email: {
      type: "string",
      format: "email",
      description: "Where to send the sign-in link. Trimmed and lower-cased.",
      examples: ["ada@example.com"],
    },
  },
} as const;

export interface RequestSignInBody {
  readonly email: string;
}

export const signInSentSchema = {
  description:
    "The link was sent, if the address can receive one. The answer is the same whether or not an account exists.",
  type: "object",
  additionalProperties: false,
  required: ["status"],
  properties: { status: { type: "string", enum: ["sent"] } },
} as const;

export const verifySignInBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["token"],
  properties: {
    token: { type: "string", description: "The `token` query parameter of the sign-in link." },
  },
} as const;

export interface VerifySignInBody {
  readonly token: string;
}

export const signedInSchema = {
  description: "A new session: send `jwt` as `Authorization: Bearer <jwt>`.",
  type: "object",
  additionalProperties: false,
  required: ["jwt", "user"],
  properties: {
    jwt: { type: "string", description: "The session's access token (HS256 JWT)." },
    user: { $ref: `${USER_SUMMARY_SCHEMA_ID}#` },
  },
} as const;

/** The `$id` of a session as listed. */
export const SESSION_SCHEMA_ID = "Session";

export const sessionSchema = {
  $id: SESSION_SCHEMA_ID,
  title: SESSION_SCHEMA_ID,
  description: "A sign-in that still holds.",
  type: "object",
  additionalProperties: false,
  required: ["id", "created_at", "last_used_at", "expires_at", "user_agent", "current"],
  properties: {
    id: { type: "string", examples: ["sess_mfrggzdfmztwq2lknnwg23tp"] },
    created_at: { type: "string", format: "date-time", description: "When the sign-in link was used." },
    last_used_at: {
      type: ["string", "null"],
      format: "date-time",
      description:
        "When a request last used it, to the minute; null for one never used since it was signed in before this was kept.",
    },
    expires_at: { type: "string", format: "date-time" },
    user_agent: {
      type: ["string", "null"],
      description: "The `User-Agent` the sign-in came with (its first 512 characters), or null.",
      examples: ["Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"],
    },
    current: { type: "boolean", description: "Whether this request came with this session." },
  },
} as const;

export interface SessionJson {
  readonly id: string;
  readonly created_at: string;
  readonly last_used_at: string | null;
  readonly expires_at: string;
  readonly user_agent: string | null;
  readonly current: boolean;
}

/** The one mapping from core's listed session to the API's JSON. */
export function toSessionJson({ session, current }: ListedSession): SessionJson {
  return {
    id: session.id,
    created_at: session.createdAt.toISOString(),
    last_used_at: session.lastUsedAt?.toISOString() ?? null,
    expires_at: session.expiresAt.toISOString(),
    user_agent: session.userAgent,
    current,
  };
}

export const listSessionsQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: pageQueryProperties("Sessions"),
} as const;

export interface ListSessionsQuery {
  readonly page?: string;
  readonly per_page?: string;
}

export const sessionPageHeaders = pageHeaders("sessions", "Each links to `/sessions`.");

export const sessionIdParamsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["id"],
  properties: { id: { type: "string", minLength: 1, maxLength: 64, description: "The session's id (`sess_…`)." } },
} as const;

export interface SessionIdParams {
  readonly id: string;
}
