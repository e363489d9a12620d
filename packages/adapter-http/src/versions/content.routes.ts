import type { Readable } from "node:stream";
import { type Cellar, CellarError, ErrorCode } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { contentPrecondition, entityTag } from "../files/entity-tag.js";
import { toFileJson } from "../files/file.json.js";
import { type FileIdParams, fileEtagHeader, fileIdParamsSchema, fileRef } from "../files/file.schemas.js";
import { clientBytes } from "../files/file-upload.js";
import { callerOf } from "../http/request-context.js";
import { OCTET_STREAM } from "../http/validator-compiler.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";
import { ifMatchHeaderSchema } from "./version.schemas.js";

/** The raw body, described for the OpenAPI document: any type, the bytes are what count. */
const rawBody = { content: { [OCTET_STREAM]: { schema: { type: "string", contentMediaType: OCTET_STREAM } } } };

/**
 * `PUT /files/:id/content`. In a context of its own: every body there is raw bytes of any
 * type, handed to core as a stream (no parser reads it first), where the rest of the API
 * parses JSON.
 */
export function registerContentRoute(app: FastifyInstance, { cellar }: { readonly cellar: Cellar }): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_request, payload, done) => done(null, payload));

  app.put<{ Params: FileIdParams }>(
    "/files/:id/content",
    {
      config: { cellarBody: "raw" },
      schema: {
        operationId: "replaceContent",
        summary: "Replace a file's content",
        description:
          "Editors and the owner. The body is the new bytes, of any `Content-Type`, streamed and checked against the file's type as an upload is. The content becomes the file's next version; its name and type stay. Needs `If-Match` with the ETag of the content it is based on (or `*`).",
        tags: ["Versions"],
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        headers: ifMatchHeaderSchema,
        body: rawBody,
        response: {
          200: { description: "The file, at its new version.", headers: fileEtagHeader, ...fileRef },
          ...errorResponses([400, 403, 404, 409, 412, 413, 415, 428, ...AUTHENTICATED], {
            400: "validation_error: an empty body, one that ended early, or an `If-Match` that is not one strong entity tag or `*`.",
            409: "file_in_trash: the file is in the trash; restore it first.",
            413: "payload_too_large: more bytes than the server accepts (MAX_UPLOAD_BYTES).",
            415: "unsupported_media_type: bytes that are not of the file's type (a CSV's must be text, an XLSX's a workbook).",
          }),
        },
      },
    },
    async (request, reply) => {
      // A refused body's rest is read by the error handler before it answers.
      const declared = Number(request.headers["content-length"] ?? Number.NaN);
      if (declared > cellar.config.maxUploadBytes) {
        throw new CellarError(
          ErrorCode.payload_too_large,
          `The file is larger than the ${cellar.config.maxUploadBytes} bytes Cellar accepts.`,
        );
      }
      const body = request.body as Readable | undefined;
      const file = await cellar.versions.replaceContent({
        callerId: callerOf(request).userId,
        fileId: request.params.id,
        precondition: contentPrecondition(request.headers["if-match"]),
        content: body === undefined ? noBytes() : clientBytes(body),
      });
      reply.header("etag", entityTag(file.sha256));
      return toFileJson(file);
    },
  );
}

async function* noBytes(): AsyncGenerator<Uint8Array> {}
