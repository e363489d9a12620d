import {
  ACCESS_TOKEN_SCOPES,
  type AccessTokenRecord,
  MAX_ACCESS_TOKEN_DAYS,
  MAX_ACCESS_TOKENS_PER_ACCOUNT,
} from "@cellar/core";
import { pageHeaders, pageQueryProperties } from "../files/file.schemas.js";

const tokenProperties = {
  id: { type: "string", pattern: "^tok_[a-z2-7]+$", examples: ["tok_mfrggzdfmztwq2lknnwg23tp"] },
  name: { type: "string", examples: ["Nightly import"] },
  scope: {
    type: "string",
    enum: ACCESS_TOKEN_SCOPES,
    description: "`read`: GET, HEAD and event streams. `write`: every call but managing tokens, sessions and webhooks.",
  },
  created_at: { type: "string", format: "date-time" },
  expires_at: {
    type: ["string", "null"],
    format: "date-time",
    description: "When it stops working; null when it works until deleted.",
  },
  last_used_at: {
    type: ["string", "null"],
    format: "date-time",
    description: "When a request last used it, to the minute; null until one does.",
  },
} as const;

const TOKEN_FIELDS = ["id", "name", "scope", "created_at", "expires_at", "last_used_at"] as const;

/** The `$id` of an access token as listed. */
export const ACCESS_TOKEN_SCHEMA_ID = "AccessToken";

export const accessTokenSchema = {
  $id: ACCESS_TOKEN_SCHEMA_ID,
  title: ACCESS_TOKEN_SCHEMA_ID,
  description: "An access token, without its value.",
  type: "object",
  additionalProperties: false,
  required: TOKEN_FIELDS,
  properties: tokenProperties,
} as const;

export const newAccessTokenSchema = {
  description:
    "The new token, with its value: shown in this answer only. Send it as `Authorization: Bearer <token>` (or `CELLAR_TOKEN` for the command line).",
  type: "object",
  additionalProperties: false,
  required: [...TOKEN_FIELDS, "token"],
  properties: {
    ...tokenProperties,
    token: { type: "string", pattern: "^cellar_pat_", examples: ["cellar_pat_3q2+7w…"] },
  },
} as const;

export interface AccessTokenJson {
  readonly id: string;
  readonly name: string;
  readonly scope: string;
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly last_used_at: string | null;
}

/** The one mapping from core's access token to the API's JSON: never its value or hash. */
export function toAccessTokenJson(token: AccessTokenRecord): AccessTokenJson {
  return {
    id: token.id,
    name: token.name,
    scope: token.scope,
    created_at: token.createdAt.toISOString(),
    expires_at: token.expiresAt?.toISOString() ?? null,
    last_used_at: token.lastUsedAt?.toISOString() ?? null,
  };
}

export const createAccessTokenBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "scope"],
  properties: {
    name: { type: "string", description: "What it is for: trimmed, 1–100 characters.", examples: ["Nightly import"] },
    scope: { type: "string", enum: ACCESS_TOKEN_SCOPES },
    expires_in_days: {
      type: "integer",
      minimum: 1,
      maximum: MAX_ACCESS_TOKEN_DAYS,
      description: `Days until it stops working, 1–${MAX_ACCESS_TOKEN_DAYS}; without it, it works until deleted.`,
    },
  },
} as const;

export interface CreateAccessTokenBody {
  readonly name: string;
  readonly scope: string;
  readonly expires_in_days?: number;
}

export const listAccessTokensQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: pageQueryProperties("Tokens"),
} as const;

export interface ListAccessTokensQuery {
  readonly page?: string;
  readonly per_page?: string;
}

export const accessTokenPageHeaders = pageHeaders("tokens", "Each links to `/tokens`.");

export const accessTokenIdParamsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["id"],
  properties: { id: { type: "string", minLength: 1, maxLength: 64, description: "The token's id (`tok_…`)." } },
} as const;

export interface AccessTokenIdParams {
  readonly id: string;
}

export const TOKEN_LIMIT_TEXT = `limit_reached: the account holds ${MAX_ACCESS_TOKENS_PER_ACCOUNT} tokens already; delete one first.`;
