import type { Cellar } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { JSON_BODY_LIMIT_BYTES } from "../http/json-body-parser.js";
import { callerOf } from "../http/request-context.js";
import { ALWAYS_POSSIBLE, AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY, NO_SECURITY } from "../shared/openapi.js";
import { toUserSummaryJson } from "../users/user.json.js";
import {
  type RequestSignInBody,
  requestSignInBodySchema,
  signedInSchema,
  signInSentSchema,
  type VerifySignInBody,
  verifySignInBodySchema,
} from "./session.schemas.js";

const TAGS = ["Sessions"];
const JSON_BODY_ERRORS = {
  413: "payload_too_large: the JSON body is over 1 MiB.",
  415: "unsupported_media_type: the body is not application/json.",
};

export function registerSessionRoutes(app: FastifyInstance, { cellar }: { readonly cellar: Cellar }): void {
  app.post<{ Body: RequestSignInBody }>(
    "/sessions",
    {
      bodyLimit: JSON_BODY_LIMIT_BYTES,
      config: { cellarAccess: "anyone", cellarBody: "json" },
      schema: {
        operationId: "requestSignInLink",
        summary: "Email a sign-in link",
        description:
          "Sends a sign-in link to the address, whether or not it has an account yet (the answer never tells). At most 5 links per address per 15 minutes.",
        tags: TAGS,
        security: NO_SECURITY,
        body: requestSignInBodySchema,
        response: {
          202: signInSentSchema,
          ...errorResponses([400, 413, 415, ...ALWAYS_POSSIBLE], {
            ...JSON_BODY_ERRORS,
            400: "validation_error: not an email address.",
            429: "rate_limited: too many links for this address, or too many requests from this client.",
            503: "mail_unavailable: the mail could not be handed to the mail server; no link was left usable.",
          }),
        },
      },
    },
    async (request, reply) => {
      await cellar.auth.requestSignInLink({ email: request.body.email });
      reply.code(202);
      return { status: "sent" };
    },
  );

  app.post<{ Body: VerifySignInBody }>(
    "/sessions/verify",
    {
      bodyLimit: JSON_BODY_LIMIT_BYTES,
      config: { cellarAccess: "anyone", cellarBody: "json" },
      schema: {
        operationId: "verifySignInLink",
        summary: "Exchange a sign-in link's token for a session",
        description:
          "Each token works once, within its lifetime. The user is created on their first sign-in. After 20 failed attempts from one client address, that address must wait 15 minutes.",
        tags: TAGS,
        security: NO_SECURITY,
        body: verifySignInBodySchema,
        response: {
          200: signedInSchema,
          ...errorResponses(
            [400, 401, 413, 415, ...ALWAYS_POSSIBLE],
            {
              ...JSON_BODY_ERRORS,
              401: "invalid_token: the token is unknown, expired or already used.",
              429: "rate_limited: too many failed sign-ins from this client address, or too many requests.",
            },
            { withoutHeaders: [401] },
          ),
        },
      },
    },
    async (request) => {
      const signedIn = await cellar.auth.verifySignInLink({ token: request.body.token, clientAddress: request.ip });
      return { jwt: signedIn.jwt, user: toUserSummaryJson(signedIn.user) };
    },
  );

  app.delete(
    "/sessions",
    {
      schema: {
        operationId: "signOut",
        summary: "Sign out",
        description: "Revokes the session of the token used for this request: it is refused from then on.",
        tags: TAGS,
        security: BEARER_SECURITY,
        response: {
          204: { description: "Signed out.", type: "null" },
          ...errorResponses(AUTHENTICATED),
        },
      },
    },
    async (request, reply) => {
      await cellar.auth.signOut({ sessionId: callerOf(request).session.id });
      reply.code(204);
    },
  );
}
