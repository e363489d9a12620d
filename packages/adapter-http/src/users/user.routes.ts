import type { Cellar } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { JSON_BODY_LIMIT_BYTES } from "../http/json-body-parser.js";
import { callerOf } from "../http/request-context.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";
import { toUserJson } from "./user.json.js";
import { type PatchUserBody, patchUserBodySchema, USER_SCHEMA_ID } from "./user.schemas.js";

const TAGS = ["Users"];
const userRef = { $ref: `${USER_SCHEMA_ID}#` } as const;

export function registerUserRoutes(app: FastifyInstance, { cellar }: { readonly cellar: Cellar }): void {
  app.get(
    "/users/me",
    {
      schema: {
        operationId: "getProfile",
        summary: "Get your profile",
        tags: TAGS,
        security: BEARER_SECURITY,
        response: { 200: { description: "Your profile.", ...userRef }, ...errorResponses(AUTHENTICATED) },
      },
    },
    async (request) => toUserJson(await cellar.users.getProfile(callerOf(request).userId)),
  );

  app.patch<{ Body: PatchUserBody }>(
    "/users/me",
    {
      bodyLimit: JSON_BODY_LIMIT_BYTES,
      config: { cellarBody: "json" },
      schema: {
        operationId: "updateProfile",
        summary: "Change your name",
        description: "Only `name` can be changed: trimmed, 1–100 characters, no control characters.",
        tags: TAGS,
        security: BEARER_SECURITY,
        body: patchUserBodySchema,
        response: {
          200: { description: "Your updated profile.", ...userRef },
          ...errorResponses([400, 413, 415, ...AUTHENTICATED], {
            413: "payload_too_large: the JSON body is over 1 MiB.",
            415: "unsupported_media_type: the body is not application/json.",
          }),
        },
      },
    },
    async (request) =>
      toUserJson(await cellar.users.rename({ userId: callerOf(request).userId, name: request.body.name })),
  );
}
