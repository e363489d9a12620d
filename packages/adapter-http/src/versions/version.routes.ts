import type { Cellar } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { contentPrecondition, entityTag } from "../files/entity-tag.js";
import { toFileJson } from "../files/file.json.js";
import {
  downloadContent,
  downloadHeaders,
  downloadRequestHeadersSchema,
  type FileIdParams,
  fileIdParamsSchema,
  fileRef,
  partialAndNotModifiedResponses,
} from "../files/file.schemas.js";
import { downloadAnswer } from "../files/file-download.js";
import { answerFileListPage } from "../files/pagination-links.js";
import { JSON_BODY_LIMIT_BYTES } from "../http/json-body-parser.js";
import { callerOf } from "../http/request-context.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";
import { toVersionJson } from "./version.json.js";
import {
  ifMatchHeaderSchema,
  type KeepBody,
  keepBodySchema,
  type ListVersionsQuery,
  listVersionsQuerySchema,
  VERSION_SCHEMA_ID,
  type VersionParams,
  versionPageHeaders,
  versionParamsSchema,
  versionRef,
} from "./version.schemas.js";

const TAGS = ["Versions"];

/** A version's number from the path: digits as a number, anything else as it is, for core to refuse. */
const numberOf = (n: string): number | string => (/^[1-9][0-9]{0,15}$/.test(n) ? Number(n) : n);

/**
 * A file's versions: `GET /files/:id/versions`, `GET …/:n/download`, `PATCH
 * /files/:id/versions/:n`, `POST …/:n/restore`.
 */
export function registerVersionRoutes(
  app: FastifyInstance,
  { cellar, publicBase }: { readonly cellar: Cellar; readonly publicBase: string },
): void {
  app.get<{ Params: FileIdParams; Querystring: ListVersionsQuery }>(
    "/files/:id/versions",
    {
      schema: {
        operationId: "listVersions",
        summary: "List the versions of a file's content",
        description:
          "Every version kept, newest first: 1 is the upload, each change of content adds one. For anyone who may see the file. Paginated like `GET /files`, with the same headers.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        querystring: listVersionsQuerySchema,
        response: {
          200: {
            description: "One page of versions, newest first; an empty array past the last page.",
            headers: versionPageHeaders,
            type: "array",
            items: { $ref: `${VERSION_SCHEMA_ID}#` },
          },
          ...errorResponses([400, 404, ...AUTHENTICATED], { 400: "validation_error: a bad `page` or `per_page`." }),
        },
      },
    },
    async (request, reply) =>
      answerFileListPage(
        request,
        reply,
        { publicBase, prefix: app.prefix, list: "versions" },
        (query) => cellar.versions.list(query),
        toVersionJson,
      ),
  );

  app.get<{ Params: VersionParams }>(
    "/files/:id/versions/:n/download",
    {
      schema: {
        operationId: "downloadVersion",
        summary: "Download one version of a file",
        description:
          "Version n's bytes, for anyone who may see the file, with the download's headers: its own `ETag`, one byte range (`Range`) and revalidation (`If-None-Match`).",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: versionParamsSchema,
        headers: downloadRequestHeadersSchema,
        response: {
          200: { description: "The version's bytes.", headers: downloadHeaders, content: downloadContent },
          ...partialAndNotModifiedResponses,
          ...errorResponses([400, 404, 409, 416, ...AUTHENTICATED], {
            400: "validation_error: a version number that is not a whole number ≥ 1.",
            404: "not_found: no such file, one the caller may not see, or no such version.",
            409: "file_in_trash: your file is in the trash; restore it first.",
          }),
        },
      },
    },
    (request, reply) =>
      downloadAnswer(request, reply, (range) =>
        cellar.versions.openDownload({
          callerId: callerOf(request).userId,
          fileId: request.params.id,
          number: numberOf(request.params.n),
          ...(range === undefined ? {} : { range }),
        }),
      ),
  );

  app.patch<{ Params: VersionParams; Body: KeepBody }>(
    "/files/:id/versions/:n",
    {
      bodyLimit: JSON_BODY_LIMIT_BYTES,
      config: { cellarBody: "json" },
      schema: {
        operationId: "keepVersion",
        summary: "Keep a version, or let retention have it",
        description: "Editors and the owner. A kept version is never removed by retention.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: versionParamsSchema,
        body: keepBodySchema,
        response: {
          200: { description: "The version, as changed.", ...versionRef },
          ...errorResponses([400, 403, 404, 409, 413, 415, ...AUTHENTICATED], {
            400: "validation_error: a `keep` that is not a boolean, another field, or a version number that is not a whole number ≥ 1.",
            404: "not_found: no such file, one the caller may not see, or no such version.",
          }),
        },
      },
    },
    async (request) =>
      toVersionJson(
        await cellar.versions.setKeep({
          callerId: callerOf(request).userId,
          fileId: request.params.id,
          number: numberOf(request.params.n),
          keep: request.body.keep,
        }),
      ),
  );

  app.post<{ Params: VersionParams }>(
    "/files/:id/versions/:n/restore",
    {
      schema: {
        operationId: "restoreVersion",
        summary: "Make an earlier version the file's content again",
        description:
          "Editors and the owner. A change of content like any other: a new version with version n's bytes, based on the content `If-Match` names. Answers with the file and its new `ETag`.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: versionParamsSchema,
        headers: ifMatchHeaderSchema,
        response: {
          200: { description: "The file, at its new version.", ...fileRef },
          ...errorResponses([400, 403, 404, 409, 412, 428, ...AUTHENTICATED], {
            400: "validation_error: an `If-Match` that is not one strong entity tag or `*`, or a version number that is not a whole number ≥ 1.",
            404: "not_found: no such file, one the caller may not see, or no such version.",
          }),
        },
      },
    },
    async (request, reply) => {
      const file = await cellar.versions.restore({
        callerId: callerOf(request).userId,
        fileId: request.params.id,
        number: numberOf(request.params.n),
        precondition: contentPrecondition(request.headers["if-match"]),
      });
      reply.header("etag", entityTag(file.sha256));
      return toFileJson(file);
    },
  );
}
