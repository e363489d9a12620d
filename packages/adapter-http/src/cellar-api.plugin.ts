import { type Cellar, CellarError, ErrorCode } from "@cellar/core";
import fastifyMultipart from "@fastify/multipart";
import type { FastifyPluginAsync } from "fastify";
import { registerActivityRoutes } from "./activity/activity.routes.js";
import { activityEntrySchema } from "./activity/activity.schemas.js";
import { registerCommentRoutes } from "./comments/comment.routes.js";
import { commentSchema } from "./comments/comment.schemas.js";
import { registerCellEditRoutes } from "./edits/cell-edit.routes.js";
import { registerFileRoutes, registerUploadRoute } from "./files/file.routes.js";
import { fileSchema } from "./files/file.schemas.js";
import { handleCellarApiError } from "./http/error-handler.js";
import { useJsonBodyParser } from "./http/json-body-parser.js";
import { addRequestGuards } from "./http/request-guards.js";
import { createValidatorCompiler } from "./http/validator-compiler.js";
import { EventStreams } from "./live/event-streams.js";
import { registerLiveRoutes } from "./live/live.routes.js";
import { registerPermissionRoutes } from "./people/permission.routes.js";
import { permissionSchema } from "./people/permission.schemas.js";
import { registerSessionRoutes } from "./sessions/session.routes.js";
import { sessionSchema } from "./sessions/session.schemas.js";
import { errorSchema } from "./shared/error.schemas.js";
import { registerSheetRoutes } from "./sheets/sheet.routes.js";
import { cellWindowSchema, foundCellSchema, sheetSchema } from "./sheets/sheet.schemas.js";
import { registerStructureRoutes } from "./structure/structure.routes.js";
import { registerAccessTokenRoutes } from "./tokens/token.routes.js";
import { accessTokenSchema } from "./tokens/token.schemas.js";
import { registerUserRoutes } from "./users/user.routes.js";
import { userSchema, userSummarySchema } from "./users/user.schemas.js";
import { registerContentRoute } from "./versions/content.routes.js";
import { registerVersionRoutes } from "./versions/version.routes.js";
import { versionSchema } from "./versions/version.schemas.js";
import { registerWebhookRoutes } from "./webhooks/webhook.routes.js";
import { webhookAttemptSchema, webhookSchema } from "./webhooks/webhook.schemas.js";

export interface CellarApiOptions {
  /** The service the API exposes. */
  readonly cellar: Cellar;
  /** Where clients reach the server (`PUBLIC_URL`): the base of `Location` and `Link` URLs. */
  readonly publicUrl: string;
  /**
   * Asked on every request; once it returns false (the server is shutting down), new
   * requests are answered 503 `unavailable` with `Retry-After`. Default: always true.
   */
  readonly acceptingRequests?: () => boolean;
  /**
   * Tells failures of the storage underneath (a locked or unreadable database, a full or
   * failing disk) from bugs: those are answered 503 `unavailable` with `Retry-After`
   * instead of 500. Only the composition root knows which adapters it chose, so it
   * decides. Default: none is.
   */
  readonly isStorageUnavailable?: (error: unknown) => boolean;
}

/** How long a client is asked to wait when storage failed under a request. */
const STORAGE_RETRY_AFTER_SECONDS = 5;

/** Text fields of an upload form are short; anything longer is refused, not buffered. */
const MAX_FORM_FIELD_BYTES = 4096;

/**
 * The /v1 API. Register it with its prefix, not through fastify-plugin: its validator,
 * error handler, not-found handler, body parsers and hooks stay inside it.
 *
 * ```ts
 * await app.register(cellarApi, { prefix: "/v1", cellar, publicUrl });
 * ```
 */
export const cellarApi: FastifyPluginAsync<CellarApiOptions> = async (app, options) => {
  const { cellar } = options;
  const publicBase = options.publicUrl.replace(/\/+$/, "");

  app.setValidatorCompiler(createValidatorCompiler());
  const isStorageUnavailable = options.isStorageUnavailable ?? (() => false);
  app.setErrorHandler((error, request, reply) =>
    handleCellarApiError(
      isStorageUnavailable(error)
        ? new CellarError(ErrorCode.unavailable, "Storage is unavailable at the moment; try again shortly.", {
            cause: error,
            retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS,
          })
        : error,
      request,
      reply,
    ),
  );
  app.setNotFoundHandler(async () => {
    throw new CellarError(ErrorCode.not_found, "No such route.");
  });

  useJsonBodyParser(app);
  for (const schema of [
    errorSchema,
    fileSchema,
    userSchema,
    userSummarySchema,
    permissionSchema,
    activityEntrySchema,
    commentSchema,
    versionSchema,
    sheetSchema,
    cellWindowSchema,
    foundCellSchema,
    sessionSchema,
    accessTokenSchema,
    // Only where the Cellar has webhooks, as their routes are.
    ...(cellar.webhooks === undefined ? [] : [webhookSchema, webhookAttemptSchema]),
  ]) {
    app.addSchema(schema);
  }

  addRequestGuards(app, { cellar, acceptingRequests: options.acceptingRequests ?? (() => true) });

  registerFileRoutes(app, { cellar, publicBase });
  // In a context of its own, loaded after this function has added the guards and
  // schemas it inherits (see registerUploadRoute).
  app.register(async (uploads) => {
    await uploads.register(fastifyMultipart, {
      limits: {
        // One byte over the limit lets core see the excess and refuse the file itself.
        fileSize: cellar.config.maxUploadBytes + 1,
        fieldSize: MAX_FORM_FIELD_BYTES,
        fieldNameSize: 100,
        fields: 10,
        // Two, so that a second file reaches the handler and is refused by name.
        files: 2,
        parts: 20,
        headerPairs: 100,
      },
    });

    registerUploadRoute(uploads, { cellar, publicBase });
  });
  registerPermissionRoutes(app, { cellar });
  registerActivityRoutes(app, { cellar, publicBase });
  registerCommentRoutes(app, { cellar, publicBase });
  registerVersionRoutes(app, { cellar, publicBase });
  app.register(async (content) => registerContentRoute(content, { cellar }));
  registerSheetRoutes(app, { cellar, publicBase });
  registerCellEditRoutes(app, { cellar });
  registerStructureRoutes(app, { cellar });
  registerUserRoutes(app, { cellar });
  registerSessionRoutes(app, { cellar, publicBase });
  registerAccessTokenRoutes(app, { cellar, publicBase });
  // Only a Cellar given a webhook transport has webhooks (`CellarDeps.webhookTransport`).
  if (cellar.webhooks !== undefined) registerWebhookRoutes(app, { webhooks: cellar.webhooks, publicBase });
  const streams = new EventStreams();
  // Open streams would keep the server from closing: their readers reconnect elsewhere.
  app.addHook("preClose", async () => streams.endAll());
  registerLiveRoutes(app, { cellar, streams });
};
