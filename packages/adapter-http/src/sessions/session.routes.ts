import type { Cellar } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { pageRequestOf, setPageHeaders } from "../files/pagination-links.js";
import { JSON_BODY_LIMIT_BYTES } from "../http/json-body-parser.js";
import { callerOf } from "../http/request-context.js";
import { ALWAYS_POSSIBLE, AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY, NO_SECURITY } from "../shared/openapi.js";
import { toUserSummaryJson } from "../users/user.json.js";
import {
  type ListSessionsQuery,
  listSessionsQuerySchema,
  type RequestSignInBody,
  requestSignInBodySchema,
  SESSION_ONLY,
  SESSION_SCHEMA_ID,
  type SessionIdParams,
  sessionIdParamsSchema,
  sessionPageHeaders,
  signedInSchema,
  signInSentSchema,
  toSessionJson,
  type VerifySignInBody,
  verifySignInBodySchema,
} from "./session.schemas.js";

const TAGS = ["Sessions"];
const JSON_BODY_ERRORS = {
  413: "payload_too_large: the JSON body is over 1 MiB.",
  415: "unsupported_media_type: the body is not application/json.",
};

export function registerSessionRoutes(
  app: FastifyInstance,
  { cellar, publicBase }: { readonly cellar: Cellar; readonly publicBase: string },
): void {
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
      const userAgent = request.headers["user-agent"];
      const signedIn = await cellar.auth.verifySignInLink({
        token: request.body.token,
        clientAddress: request.ip,
        ...(userAgent === undefined ? {} : { userAgent }),
      });
      return { jwt: signedIn.jwt, user: toUserSummaryJson(signedIn.user) };
    },
  );

  app.get<{ Querystring: ListSessionsQuery }>(
    "/sessions",
    {
      config: { cellarAccess: "session" },
      schema: {
        operationId: "listSessions",
        summary: "List where you are signed in",
        description:
          "The caller's sessions that still hold (neither signed out nor expired), newest first, each with the browser or program that signed in (`user_agent`) and when it was last used (to the minute). The one this request came with is `current`. Paginated like `GET /files`, with the same headers. A signed-in session only: an access token gets 403 `insufficient_scope`.",
        tags: TAGS,
        security: BEARER_SECURITY,
        querystring: listSessionsQuerySchema,
        response: {
          200: {
            description: "One page of sessions, newest first; an empty array past the last page.",
            headers: sessionPageHeaders,
            type: "array",
            items: { $ref: `${SESSION_SCHEMA_ID}#` },
          },
          ...errorResponses([400, 403, ...AUTHENTICATED], {
            400: "validation_error: a bad `page` or `per_page`.",
            403: SESSION_ONLY,
          }),
        },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const page = await cellar.auth.listSessions({
        callerId: caller.userId,
        currentSessionId: caller.credential.kind === "session" ? caller.credential.id : null,
        ...pageRequestOf(request.query),
      });
      setPageHeaders(reply, page, new URL(`${publicBase}${app.prefix}/sessions`));
      return page.items.map(toSessionJson);
    },
  );

  app.delete(
    "/sessions",
    {
      config: { cellarAccess: "session" },
      schema: {
        operationId: "signOut",
        summary: "Sign out",
        description:
          "Revokes the session of the token used for this request: it is refused from then on. A signed-in session only: an access token gets 403 `insufficient_scope` (delete it with `DELETE /tokens/:id`).",
        tags: TAGS,
        security: BEARER_SECURITY,
        response: {
          204: { description: "Signed out.", type: "null" },
          ...errorResponses([403, ...AUTHENTICATED], { 403: SESSION_ONLY }),
        },
      },
    },
    async (request, reply) => {
      const { credential } = callerOf(request);
      if (credential.kind === "session") await cellar.auth.signOut({ sessionId: credential.id });
      reply.code(204);
    },
  );

  app.delete<{ Params: SessionIdParams }>(
    "/sessions/:id",
    {
      config: { cellarAccess: "session" },
      schema: {
        operationId: "endSession",
        summary: "Sign out one of your sessions",
        description:
          "Ends one of the caller's sessions (another device's, or this one): it is refused from the answer on, by every server. A signed-in session only.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: sessionIdParamsSchema,
        response: {
          204: { description: "That session is signed out.", type: "null" },
          ...errorResponses([403, 404, ...AUTHENTICATED], {
            403: SESSION_ONLY,
            404: "not_found: no such session of yours that still holds.",
          }),
        },
      },
    },
    async (request, reply) => {
      await cellar.auth.endSession({ callerId: callerOf(request).userId, sessionId: request.params.id });
      reply.code(204);
    },
  );
}
