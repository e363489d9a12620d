import { USER_SUMMARY_SCHEMA_ID } from "../users/user.schemas.js";

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
