import type { Cellar } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { JSON_BODY_LIMIT_BYTES } from "../http/json-body-parser.js";
import { rememberedJsonPayload } from "../http/remembered-json.js";
import { callerOf } from "../http/request-context.js";
import { MULTIPART_FORM_DATA } from "../http/validator-compiler.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";
import { type ConversionQuery, conversionAnswer } from "../sheets/conversion-download.js";
import { conversionQuerySchema } from "../sheets/sheet.schemas.js";
import { entityTag } from "./entity-tag.js";
import { toFileJson } from "./file.json.js";
import {
  downloadContent,
  downloadHeaders,
  downloadRequestHeadersSchema,
  type FileIdParams,
  fileEtagHeader,
  fileIdParamsSchema,
  fileRef,
  type ListFilesQuery,
  listFilesQuerySchema,
  locationHeader,
  type PatchFileBody,
  paginationHeaders,
  partialAndNotModifiedResponses,
  patchFileBodySchema,
  uploadFormSchema,
} from "./file.schemas.js";
import { downloadAnswer } from "./file-download.js";
import { receiveUploadForm } from "./file-upload.js";
import { pageRequestOf, setPageHeaders } from "./pagination-links.js";

const TAGS = ["Files"];

export interface FileRoutesOptions {
  readonly cellar: Cellar;
  /** `PUBLIC_URL` without a trailing slash: the base of `Location` and `Link`. */
  readonly publicBase: string;
}

export function registerFileRoutes(app: FastifyInstance, { cellar, publicBase }: FileRoutesOptions): void {
  // GET /files/:id answers 200 with a file: a cached file's text is made once.
  const fileJsonPayload = rememberedJsonPayload();

  app.get<{ Querystring: ListFilesQuery }>(
    "/files",
    {
      schema: {
        operationId: "listFiles",
        summary: "List your files",
        description:
          "Your active files; your trash with `trashed=true`; or, with `shared=true`, the active files others share with you, each with your `role` on it. Only those whose name contains `q` when given, in the order `sort` names: newest first by default (`created_at` then `id`, descending), or for shared files newest share first. Paginated with `page` and `per_page`; the totals, which count only what `q` finds, are in headers.",
        tags: TAGS,
        security: BEARER_SECURITY,
        querystring: listFilesQuerySchema,
        response: {
          200: {
            description: "One page of files; an empty array past the last page.",
            headers: paginationHeaders,
            type: "array",
            items: fileRef,
          },
          ...errorResponses([400, ...AUTHENTICATED], {
            400: "validation_error: a bad `page`, `per_page`, `q` or `sort`, or `shared=true` with `trashed=true`.",
          }),
        },
      },
    },
    async (request, reply) => {
      const { trashed, shared, q, sort } = request.query;
      const listing = await cellar.files.list({
        callerId: callerOf(request).userId,
        trashed: trashed === "true",
        shared: shared === "true",
        ...pageRequestOf(request.query),
        ...(q === undefined ? {} : { q }),
        ...(sort === undefined ? {} : { sort }),
      });
      const listingUrl = new URL(`${publicBase}${app.prefix}/files`);
      if (trashed === "true") listingUrl.searchParams.set("trashed", "true");
      if (shared === "true") listingUrl.searchParams.set("shared", "true");
      if (q !== undefined) listingUrl.searchParams.set("q", q);
      if (sort !== undefined) listingUrl.searchParams.set("sort", sort);
      setPageHeaders(reply, listing, listingUrl);
      return listing.items.map(toFileJson);
    },
  );

  app.get<{ Params: FileIdParams }>(
    "/files/:id",
    {
      schema: {
        operationId: "getFile",
        summary: "Get a file's metadata",
        description:
          "Your own file in any state; an active file shared with you; or someone else's public, active file. `ETag` names the file's current content, for `If-Match` on changes of content.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        response: {
          200: { description: "The file.", headers: fileEtagHeader, ...fileRef },
          ...errorResponses([400, 404, ...AUTHENTICATED]),
        },
      },
    },
    async (request, reply) => {
      const file = await cellar.files.get({ callerId: callerOf(request).userId, fileId: request.params.id });
      reply.header("etag", entityTag(file.sha256));
      return fileJsonPayload(reply, toFileJson(file));
    },
  );

  app.patch<{ Params: FileIdParams; Body: PatchFileBody }>(
    "/files/:id",
    {
      bodyLimit: JSON_BODY_LIMIT_BYTES,
      config: { cellarBody: "json" },
      schema: {
        operationId: "updateFile",
        summary: "Rename a file or change its visibility",
        description:
          "Renaming needs the `editor` role or ownership; changing `visibility` is the owner's alone. Not while the file is in the trash. `updated_at` moves on.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        body: patchFileBodySchema,
        response: {
          200: { description: "The updated file.", ...fileRef },
          ...errorResponses([400, 403, 404, 409, 413, 415, ...AUTHENTICATED], {
            403: "forbidden: a file you may see, but may not change so: renaming needs the `editor` role, `visibility` ownership.",
            413: "payload_too_large: the JSON body is over 1 MiB.",
            415: "unsupported_media_type: the body is not application/json.",
          }),
        },
      },
    },
    async (request) => {
      const { name, visibility } = request.body;
      const file = await cellar.files.update({
        callerId: callerOf(request).userId,
        fileId: request.params.id,
        changes: { name, visibility },
      });
      return toFileJson(file);
    },
  );

  app.delete<{ Params: FileIdParams }>(
    "/files/:id",
    {
      schema: {
        operationId: "trashFile",
        summary: "Move a file to the trash",
        description:
          "Owner only. The file is deleted for good at `purge_at` (30 days by default) unless restored. Trashing a trashed file again changes nothing.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        response: {
          200: { description: "The file, now `trashed`, with `trashed_at` and `purge_at` set.", ...fileRef },
          ...errorResponses([400, 403, 404, ...AUTHENTICATED]),
        },
      },
    },
    async (request) =>
      toFileJson(await cellar.files.trash({ callerId: callerOf(request).userId, fileId: request.params.id })),
  );

  app.post<{ Params: FileIdParams }>(
    "/files/:id/restore",
    {
      schema: {
        operationId: "restoreFile",
        summary: "Restore a file from the trash",
        description: "Owner only. Restoring an active file changes nothing.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        response: {
          200: { description: "The file, `active` again.", ...fileRef },
          ...errorResponses([400, 403, 404, ...AUTHENTICATED]),
        },
      },
    },
    async (request) =>
      toFileJson(await cellar.files.restore({ callerId: callerOf(request).userId, fileId: request.params.id })),
  );

  app.get<{ Params: FileIdParams; Querystring: ConversionQuery }>(
    "/files/:id/download",
    {
      schema: {
        operationId: "downloadFile",
        summary: "Download a file",
        description:
          "The file's bytes. Your own active file, an active file shared with you, or someone else's public, active file. Supports one byte range (`Range`) and revalidation (`If-None-Match`). With `format`, the file converted instead: a workbook's sheet (`sheet`, default the first) to CSV (RFC 4180, UTF-8), or a CSV to XLSX; text a spreadsheet would run as a formula is neutralised, and the stored file never changes. A conversion streams (no `Content-Length`) and ignores `Range`.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        querystring: conversionQuerySchema,
        headers: downloadRequestHeadersSchema,
        response: {
          200: { description: "The whole file.", headers: downloadHeaders, content: downloadContent },
          ...partialAndNotModifiedResponses,
          ...errorResponses([400, 404, 409, 416, 422, ...AUTHENTICATED], {
            400: "validation_error: a `format` the file does not convert to, a `sheet` for a CSV, or an unknown sheet.",
            409: "file_in_trash: your file is in the trash; restore it first.",
            422: "unreadable_spreadsheet: with `format`, a file whose cells Cellar cannot read.",
          }),
        },
      },
    },
    (request, reply) => {
      const { format } = request.query;
      return format === undefined
        ? downloadAnswer(request, reply, (range) =>
            cellar.files.openDownload({
              callerId: callerOf(request).userId,
              fileId: request.params.id,
              ...(range === undefined ? {} : { range }),
            }),
          )
        : conversionAnswer(cellar, request, reply, format);
    },
  );
}

/**
 * `POST /files`. Registered in a context of its own, with @fastify/multipart: that plugin
 * adds an `onRequest` and an `onResponse` hook to every route of the context it joins,
 * and every other route would pay for them on every request.
 */
export function registerUploadRoute(app: FastifyInstance, { cellar, publicBase }: FileRoutesOptions): void {
  const fileUrl = (id: string) => `${publicBase}${app.prefix}/files/${encodeURIComponent(id)}`;

  app.post(
    "/files",
    {
      config: { cellarBody: "multipart" },
      schema: {
        operationId: "uploadFile",
        summary: "Upload a file",
        description:
          "Uploads a .csv, .xlsx or .sheet file as `multipart/form-data`, its parts in any order. The extension of the file's name decides its type, and the content must match it.",
        tags: TAGS,
        security: BEARER_SECURITY,
        body: { content: { [MULTIPART_FORM_DATA]: { schema: uploadFormSchema } } },
        response: {
          201: { description: "The file, stored and active.", headers: locationHeader, ...fileRef },
          ...errorResponses([400, 413, 415, ...AUTHENTICATED], {
            400: "validation_error: no `file` part, two of them, an empty file, an unknown field or a bad `name` or `visibility`.",
            413: "payload_too_large: the file is larger than the server accepts (MAX_UPLOAD_BYTES).",
            415: "unsupported_media_type: not multipart/form-data, or a file that is not .csv/.xlsx/.sheet or whose content does not match its extension.",
          }),
        },
      },
    },
    async (request, reply) => {
      // A refused upload's rest is read by the error handler before it answers.
      const file = await receiveUploadForm(request, cellar, callerOf(request).userId);
      reply.code(201).header("location", fileUrl(file.id));
      return toFileJson(file);
    },
  );
}
