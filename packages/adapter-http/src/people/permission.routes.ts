import { type Cellar, MAX_PEOPLE_PER_FILE } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { type FileIdParams, fileIdParamsSchema } from "../files/file.schemas.js";
import { JSON_BODY_LIMIT_BYTES } from "../http/json-body-parser.js";
import { callerOf } from "../http/request-context.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";
import { toPermissionJson, toSharedJson } from "./permission.json.js";
import {
  type ChangeRoleBody,
  changeRoleBodySchema,
  type PermissionParams,
  permissionParamsSchema,
  permissionRef,
  type SharePermissionBody,
  sharedSchema,
  sharePermissionBodySchema,
} from "./permission.schemas.js";

const TAGS = ["People"];

const JSON_BODY_ERRORS = {
  413: "payload_too_large: the JSON body is over 1 MiB.",
  415: "unsupported_media_type: the body is not application/json.",
} as const;

const OWNER_ONLY_ERRORS = {
  403: "forbidden: a file you may see, but only its owner may give, change and take roles.",
  404: "not_found: no such file or permission, or a file you may not see.",
  409: "file_in_trash: the file is in the trash; restore it first.",
} as const;

/** Who holds which role on a file: `/files/:id/permissions` and `/files/:id/permissions/:pid`. */
export function registerPermissionRoutes(app: FastifyInstance, { cellar }: { readonly cellar: Cellar }): void {
  app.post<{ Params: FileIdParams; Body: SharePermissionBody }>(
    "/files/:id/permissions",
    {
      bodyLimit: JSON_BODY_LIMIT_BYTES,
      config: { cellarBody: "json" },
      schema: {
        operationId: "shareFile",
        summary: "Give a person a role on a file",
        description: `Owner only. Gives the address a role on the file, whether or not it has an account yet (its first sign-in sees the file at once). A person new to the file is told by mail unless \`notify\` is false; the mail holds no sign-in token. The same address again changes its role and sends nothing (200). At most ${MAX_PEOPLE_PER_FILE} people per file, and, per account, at most \`INVITE_RATE_MAX\` mails an hour (default 50): past that nothing is made.`,
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        body: sharePermissionBodySchema,
        response: {
          201: { description: "The person is new to the file.", ...sharedSchema },
          200: { description: "The address already held a role: it now holds this one. No mail.", ...sharedSchema },
          ...errorResponses([400, 403, 404, 409, 413, 415, ...AUTHENTICATED], {
            ...JSON_BODY_ERRORS,
            ...OWNER_ONLY_ERRORS,
            400: "validation_error: a bad `email`, `role`, `notify` or `message`, or the owner's own address.",
            404: "not_found: no such file, or one you may not see.",
            409: `limit_reached: the file already has ${MAX_PEOPLE_PER_FILE} people. file_in_trash: the file is in the trash; restore it first.`,
            429: "rate_limited: you sent as many mails telling people of files as an hour allows (nothing was made), or too many requests; wait for Retry-After seconds.",
          }),
        },
      },
    },
    async (request, reply) => {
      const { email, role, notify, message } = request.body;
      const result = await cellar.people.share({
        callerId: callerOf(request).userId,
        fileId: request.params.id,
        email,
        role,
        ...(notify === undefined ? {} : { notify }),
        ...(message === undefined ? {} : { message }),
      });
      reply.code(result.created ? 201 : 200);
      return toSharedJson(result);
    },
  );

  app.get<{ Params: FileIdParams }>(
    "/files/:id/permissions",
    {
      schema: {
        operationId: "listPermissions",
        summary: "List the people on a file",
        description:
          "Everyone the owner gave a role on the file, oldest first. For its owner (the trash included) and the people on it: someone who sees a public file without a role on it may not see who it is shared with (403).",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        response: {
          200: { description: "The people on the file, oldest first.", type: "array", items: permissionRef },
          ...errorResponses([400, 403, 404, ...AUTHENTICATED], {
            403: "forbidden: a public file you see without a role on it: only the people it is shared with may see its people.",
          }),
        },
      },
    },
    async (request) =>
      (await cellar.people.list({ callerId: callerOf(request).userId, fileId: request.params.id })).map(
        toPermissionJson,
      ),
  );

  app.patch<{ Params: PermissionParams; Body: ChangeRoleBody }>(
    "/files/:id/permissions/:pid",
    {
      bodyLimit: JSON_BODY_LIMIT_BYTES,
      config: { cellarBody: "json" },
      schema: {
        operationId: "changeRole",
        summary: "Change a person's role on a file",
        description:
          "Owner only. From the moment this is answered, the person may do only what the new role allows. The same role again changes nothing.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: permissionParamsSchema,
        body: changeRoleBodySchema,
        response: {
          200: { description: "The permission, with its new role.", ...permissionRef },
          ...errorResponses([400, 403, 404, 409, 413, 415, ...AUTHENTICATED], {
            ...JSON_BODY_ERRORS,
            ...OWNER_ONLY_ERRORS,
            400: "validation_error: a missing or unknown `role`, or another field.",
          }),
        },
      },
    },
    async (request) =>
      toPermissionJson(
        await cellar.people.changeRole({
          callerId: callerOf(request).userId,
          fileId: request.params.id,
          permissionId: request.params.pid,
          role: request.body.role,
        }),
      ),
  );

  app.delete<{ Params: PermissionParams }>(
    "/files/:id/permissions/:pid",
    {
      schema: {
        operationId: "removePermission",
        summary: "Take a person off a file, or leave it",
        description:
          "The owner may take anyone off the file; anyone may take themselves off (leave). From the moment this is answered, the person may no longer see the file (unless it is public).",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: permissionParamsSchema,
        response: {
          204: { description: "The person is off the file.", type: "null" },
          ...errorResponses([400, 403, 404, 409, ...AUTHENTICATED], {
            ...OWNER_ONLY_ERRORS,
            403: "forbidden: someone else's permission on a file you may see: only the owner may take it away.",
          }),
        },
      },
    },
    async (request, reply) => {
      await cellar.people.remove({
        callerId: callerOf(request).userId,
        fileId: request.params.id,
        permissionId: request.params.pid,
      });
      reply.code(204);
    },
  );
}
