import type { Cellar } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { pageRequestOf, setPageHeaders } from "../files/pagination-links.js";
import { JSON_BODY_LIMIT_BYTES } from "../http/json-body-parser.js";
import { callerOf } from "../http/request-context.js";
import { SESSION_ONLY } from "../sessions/session.schemas.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";
import {
  ACCESS_TOKEN_SCHEMA_ID,
  type AccessTokenIdParams,
  accessTokenIdParamsSchema,
  accessTokenPageHeaders,
  type CreateAccessTokenBody,
  createAccessTokenBodySchema,
  type ListAccessTokensQuery,
  listAccessTokensQuerySchema,
  newAccessTokenSchema,
  TOKEN_LIMIT_TEXT,
  toAccessTokenJson,
} from "./token.schemas.js";

const TAGS = ["Access tokens"];

/** Access tokens for scripts and services (decisions §10): `/tokens`, managed from a signed-in session only. */
export function registerAccessTokenRoutes(
  app: FastifyInstance,
  { cellar, publicBase }: { readonly cellar: Cellar; readonly publicBase: string },
): void {
  app.post<{ Body: CreateAccessTokenBody }>(
    "/tokens",
    {
      bodyLimit: JSON_BODY_LIMIT_BYTES,
      config: { cellarAccess: "session", cellarBody: "json" },
      schema: {
        operationId: "createAccessToken",
        summary: "Make an access token",
        description:
          "A token a script or a service sends as `Authorization: Bearer …` in place of a session, acting as the caller's account within its scope; its requests count against the account's rate limit. Its value is in this answer only: Cellar keeps only its SHA-256.",
        tags: TAGS,
        security: BEARER_SECURITY,
        body: createAccessTokenBodySchema,
        response: {
          201: newAccessTokenSchema,
          ...errorResponses([400, 403, 409, 413, 415, ...AUTHENTICATED], {
            400: "validation_error: a bad `name`, `scope` or `expires_in_days`.",
            403: SESSION_ONLY,
            409: TOKEN_LIMIT_TEXT,
          }),
        },
      },
    },
    async (request, reply) => {
      const { record, token } = await cellar.accessTokens.create({
        callerId: callerOf(request).userId,
        name: request.body.name,
        scope: request.body.scope,
        expiresInDays: request.body.expires_in_days,
      });
      reply.code(201);
      return { ...toAccessTokenJson(record), token };
    },
  );

  app.get<{ Querystring: ListAccessTokensQuery }>(
    "/tokens",
    {
      config: { cellarAccess: "session" },
      schema: {
        operationId: "listAccessTokens",
        summary: "List your access tokens",
        description:
          "The caller's tokens, newest first, never their values. Paginated like `GET /files`, with the same headers.",
        tags: TAGS,
        security: BEARER_SECURITY,
        querystring: listAccessTokensQuerySchema,
        response: {
          200: {
            description: "One page of tokens, newest first; an empty array past the last page.",
            headers: accessTokenPageHeaders,
            type: "array",
            items: { $ref: `${ACCESS_TOKEN_SCHEMA_ID}#` },
          },
          ...errorResponses([400, 403, ...AUTHENTICATED], {
            400: "validation_error: a bad `page` or `per_page`.",
            403: SESSION_ONLY,
          }),
        },
      },
    },
    async (request, reply) => {
      const page = await cellar.accessTokens.list({
        callerId: callerOf(request).userId,
        ...pageRequestOf(request.query),
      });
      setPageHeaders(reply, page, new URL(`${publicBase}${app.prefix}/tokens`));
      return page.items.map(toAccessTokenJson);
    },
  );

  app.delete<{ Params: AccessTokenIdParams }>(
    "/tokens/:id",
    {
      config: { cellarAccess: "session" },
      schema: {
        operationId: "deleteAccessToken",
        summary: "Delete an access token",
        description: "The token is refused from the answer on, by every server; event streams opened with it end.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: accessTokenIdParamsSchema,
        response: {
          204: { description: "Deleted.", type: "null" },
          ...errorResponses([403, 404, ...AUTHENTICATED], {
            403: SESSION_ONLY,
            404: "not_found: no such token of yours.",
          }),
        },
      },
    },
    async (request, reply) => {
      await cellar.accessTokens.delete({ callerId: callerOf(request).userId, tokenId: request.params.id });
      reply.code(204);
    },
  );
}
