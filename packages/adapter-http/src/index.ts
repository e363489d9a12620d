/**
 * `@cellar/adapter-http`: Cellar's /v1 HTTP API as Fastify 5 plugins.
 *
 * ```ts
 * const app = Fastify({ ...requestIdOptions, ...frameworkErrorOptionsFor({ cellar }), logger: true });
 * await app.register(cellarResponseHeaders);
 * await app.register(cellarOpenApi, { publicUrl });
 * await app.register(cellarApi, { prefix: "/v1", cellar, publicUrl, acceptingRequests });
 * await app.register(cellarSignInPage);
 * ```
 */
export { type ActivityEntryJson, toActivityEntryJson } from "./activity/activity.json.js";
export { activityEntrySchema } from "./activity/activity.schemas.js";
export { type CellarApiOptions, cellarApi } from "./cellar-api.plugin.js";
export { answerClientError, clientErrorOptions } from "./client-errors.js";
export {
  type CommentJson,
  toCommentJson,
  toWrittenCommentJson,
  type WrittenCommentJson,
} from "./comments/comment.json.js";
export { commentSchema } from "./comments/comment.schemas.js";
export { contentDisposition } from "./files/content-disposition.js";
export { entityTag, ifNoneMatchMatches } from "./files/entity-tag.js";
export { type FileJson, toFileJson } from "./files/file.json.js";
export { fileSchema } from "./files/file.schemas.js";
export { parseRangeHeader } from "./files/range-header.js";
export {
  answerFrameworkError,
  type FrameworkErrorOptions,
  type FrameworkErrorOptionsInput,
  frameworkErrorOptionsFor,
} from "./framework-errors.js";
export { type CellarHealthOptions, cellarHealth } from "./health/health.plugin.js";
export { type ErrorReply, toCellarError, toErrorReply, wwwAuthenticate } from "./http/error-handler.js";
export { ERROR_STATUS, type ErrorStatus } from "./http/error-status.js";
export { JSON_BODY_LIMIT_BYTES } from "./http/json-body-parser.js";
export { lazySerializerOptions } from "./http/serializer-compiler.js";
export { type CellarOpenApiOptions, cellarOpenApi } from "./openapi.plugin.js";
export { type PermissionJson, type SharedJson, toPermissionJson, toSharedJson } from "./people/permission.json.js";
export { permissionSchema } from "./people/permission.schemas.js";
export { requestIdFor, requestIdOptions } from "./request-id.js";
export { cellarResponseHeaders } from "./response-headers.plugin.js";
export { type ErrorJson, errorSchema } from "./shared/error.schemas.js";
export { type CellarSignInPageOptions, cellarSignInPage } from "./sign-in-page.plugin.js";
export { toUserJson, toUserSummaryJson, type UserJson, type UserSummaryJson } from "./users/user.json.js";
export { userSchema, userSummarySchema } from "./users/user.schemas.js";
export {
  type CellarWebAppOptions,
  cellarWebApp,
  WEB_APP_CSP,
  WEB_APP_ROUTES,
  webAppIsBuilt,
} from "./web-app.plugin.js";
export { type CheckedDestination, checkDestination, type ResolveHost, refusedAddress } from "./webhooks/destination.js";
export {
  createWebhookTransport,
  WEBHOOK_ANSWER_BYTES,
  WEBHOOK_TIMEOUT_MS,
  type WebhookTransportOptions,
  webhookBody,
  webhookSignature,
} from "./webhooks/transport.js";
