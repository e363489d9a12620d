import type { WebhookService } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { pageRequestOf, setPageHeaders } from "../files/pagination-links.js";
import { JSON_BODY_LIMIT_BYTES } from "../http/json-body-parser.js";
import { callerOf } from "../http/request-context.js";
import { SESSION_ONLY } from "../sessions/session.schemas.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";
import {
  type CreateWebhookBody,
  createWebhookBodySchema,
  listWebhookAttemptsQuerySchema,
  listWebhooksQuerySchema,
  newWebhookSchema,
  type PatchWebhookBody,
  patchWebhookBodySchema,
  toWebhookAttemptJson,
  toWebhookJson,
  WEBHOOK_ATTEMPT_SCHEMA_ID,
  WEBHOOK_LIMIT_TEXT,
  WEBHOOK_SCHEMA_ID,
  type WebhookIdParams,
  type WebhookPageQuery,
  webhookAttemptPageHeaders,
  webhookIdParamsSchema,
  webhookPageHeaders,
} from "./webhook.schemas.js";

const TAGS = ["Webhooks"];
const JSON_BODY_ERRORS = {
  413: "payload_too_large: the JSON body is over 1 MiB.",
  415: "unsupported_media_type: the body is not application/json.",
};
const NOT_FOUND = "not_found: no such webhook of yours.";
const BAD_URL =
  'validation_error: a bad `url` (not an absolute https:// URL, or one whose host is refused: loopback and private addresses unless the server allows them, link-local and cloud metadata addresses always, a host that does not resolve), a bad `events` (not a non-empty list of distinct kinds, or `["*"]`)';
const webhookRef = { $ref: `${WEBHOOK_SCHEMA_ID}#` } as const;

/** Webhooks (decisions §10): `/webhooks`, managed from a signed-in session only. */
export function registerWebhookRoutes(
  app: FastifyInstance,
  { webhooks, publicBase }: { readonly webhooks: WebhookService; readonly publicBase: string },
): void {
  app.post<{ Body: CreateWebhookBody }>(
    "/webhooks",
    {
      bodyLimit: JSON_BODY_LIMIT_BYTES,
      config: { cellarAccess: "session", cellarBody: "json" },
      schema: {
        operationId: "createWebhook",
        summary: "Make a webhook",
        description:
          "From now on, the events of the kinds asked for, of your files and the files shared with you (or of `file_id` alone), are POSTed to `url` as signed JSON, at least once and in order per file. The secret they are signed with is in this answer only.",
        tags: TAGS,
        security: BEARER_SECURITY,
        body: createWebhookBodySchema,
        response: {
          201: newWebhookSchema,
          ...errorResponses([400, 403, 404, 409, 413, 415, ...AUTHENTICATED], {
            ...JSON_BODY_ERRORS,
            400: `${BAD_URL}, a bad \`file_id\`, or an unknown field.`,
            403: `${SESSION_ONLY} Or forbidden: \`file_id\` is a public file you hold no role on.`,
            404: "not_found: no such file as `file_id`, or one you may not see.",
            409: WEBHOOK_LIMIT_TEXT,
          }),
        },
      },
    },
    async (request, reply) => {
      const hook = await webhooks.create({
        callerId: callerOf(request).userId,
        url: request.body.url,
        events: request.body.events,
        ...(request.body.file_id === undefined ? {} : { fileId: request.body.file_id }),
      });
      reply.code(201);
      return { ...toWebhookJson(hook), secret: hook.secret };
    },
  );

  app.get<{ Querystring: WebhookPageQuery }>(
    "/webhooks",
    {
      config: { cellarAccess: "session" },
      schema: {
        operationId: "listWebhooks",
        summary: "List your webhooks",
        description:
          "The caller's webhooks, newest first, never their secrets. Paginated like `GET /files`, with the same headers.",
        tags: TAGS,
        security: BEARER_SECURITY,
        querystring: listWebhooksQuerySchema,
        response: {
          200: {
            description: "One page of webhooks, newest first; an empty array past the last page.",
            headers: webhookPageHeaders,
            type: "array",
            items: webhookRef,
          },
          ...errorResponses([400, 403, ...AUTHENTICATED], {
            400: "validation_error: a bad `page` or `per_page`.",
            403: SESSION_ONLY,
          }),
        },
      },
    },
    async (request, reply) => {
      const page = await webhooks.list({ callerId: callerOf(request).userId, ...pageRequestOf(request.query) });
      setPageHeaders(reply, page, new URL(`${publicBase}${app.prefix}/webhooks`));
      return page.items.map(toWebhookJson);
    },
  );

  app.get<{ Params: WebhookIdParams }>(
    "/webhooks/:id",
    {
      config: { cellarAccess: "session" },
      schema: {
        operationId: "getWebhook",
        summary: "Read a webhook",
        description: "One of the caller's webhooks, without its secret.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: webhookIdParamsSchema,
        response: {
          200: { description: "The webhook.", ...webhookRef },
          ...errorResponses([403, 404, ...AUTHENTICATED], { 403: SESSION_ONLY, 404: NOT_FOUND }),
        },
      },
    },
    async (request) =>
      toWebhookJson(await webhooks.get({ callerId: callerOf(request).userId, hookId: request.params.id })),
  );

  app.patch<{ Params: WebhookIdParams; Body: PatchWebhookBody }>(
    "/webhooks/:id",
    {
      bodyLimit: JSON_BODY_LIMIT_BYTES,
      config: { cellarAccess: "session", cellarBody: "json" },
      schema: {
        operationId: "updateWebhook",
        summary: "Change a webhook",
        description:
          "Changes its `url`, its `events`, or turns it off or on again (`active`). Turned on again, it delivers what waited meanwhile, in order, and its 24 hours of allowed failures start afresh.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: webhookIdParamsSchema,
        body: patchWebhookBodySchema,
        response: {
          200: { description: "The webhook as changed, without its secret.", ...webhookRef },
          ...errorResponses([400, 403, 404, 413, 415, ...AUTHENTICATED], {
            ...JSON_BODY_ERRORS,
            400: `${BAD_URL}, no field, or an unknown one.`,
            403: SESSION_ONLY,
            404: NOT_FOUND,
          }),
        },
      },
    },
    async (request) =>
      toWebhookJson(
        await webhooks.update({
          callerId: callerOf(request).userId,
          hookId: request.params.id,
          url: request.body.url,
          events: request.body.events,
          active: request.body.active,
        }),
      ),
  );

  app.delete<{ Params: WebhookIdParams }>(
    "/webhooks/:id",
    {
      config: { cellarAccess: "session" },
      schema: {
        operationId: "deleteWebhook",
        summary: "Delete a webhook",
        description: "Nothing more is delivered to it; what waited to be, and its attempts, go with it.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: webhookIdParamsSchema,
        response: {
          204: { description: "Deleted.", type: "null" },
          ...errorResponses([403, 404, ...AUTHENTICATED], { 403: SESSION_ONLY, 404: NOT_FOUND }),
        },
      },
    },
    async (request, reply) => {
      await webhooks.delete({ callerId: callerOf(request).userId, hookId: request.params.id });
      reply.code(204);
    },
  );

  app.get<{ Params: WebhookIdParams; Querystring: WebhookPageQuery }>(
    "/webhooks/:id/deliveries",
    {
      config: { cellarAccess: "session" },
      schema: {
        operationId: "listWebhookDeliveries",
        summary: "List a webhook's delivery attempts",
        description:
          "Every attempt at delivering an event to the webhook, newest first: a failed one is tried again with backoff, so one event may have several. Paginated like `GET /files`, with the same headers.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: webhookIdParamsSchema,
        querystring: listWebhookAttemptsQuerySchema,
        response: {
          200: {
            description: "One page of attempts, newest first; an empty array past the last page.",
            headers: webhookAttemptPageHeaders,
            type: "array",
            items: { $ref: `${WEBHOOK_ATTEMPT_SCHEMA_ID}#` },
          },
          ...errorResponses([400, 403, 404, ...AUTHENTICATED], {
            400: "validation_error: a bad `page` or `per_page`.",
            403: SESSION_ONLY,
            404: NOT_FOUND,
          }),
        },
      },
    },
    async (request, reply) => {
      const hookId = request.params.id;
      const page = await webhooks.listAttempts({
        callerId: callerOf(request).userId,
        hookId,
        ...pageRequestOf(request.query),
      });
      setPageHeaders(
        reply,
        page,
        new URL(`${publicBase}${app.prefix}/webhooks/${encodeURIComponent(hookId)}/deliveries`),
      );
      return page.items.map(toWebhookAttemptJson);
    },
  );
}
