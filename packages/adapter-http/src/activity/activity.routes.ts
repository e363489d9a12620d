import type { Cellar } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { type FileIdParams, fileIdParamsSchema } from "../files/file.schemas.js";
import { answerFileListPage } from "../files/pagination-links.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";
import { toActivityEntryJson } from "./activity.json.js";
import {
  ACTIVITY_ENTRY_SCHEMA_ID,
  activityPageHeaders,
  type ListActivityQuery,
  listActivityQuerySchema,
} from "./activity.schemas.js";

const TAGS = ["Activity"];

/** What happened to a file: `GET /files/:id/activity`. */
export function registerActivityRoutes(
  app: FastifyInstance,
  { cellar, publicBase }: { readonly cellar: Cellar; readonly publicBase: string },
): void {
  app.get<{ Params: FileIdParams; Querystring: ListActivityQuery }>(
    "/files/:id/activity",
    {
      schema: {
        operationId: "listActivity",
        summary: "List what happened to a file",
        description:
          "Who did what to the file and when, newest first: uploads, renames, changes of visibility, trash and restore, who was given, changed or taken off a role, changes of content, and comments. For the file's owner (the trash included) and the people on it: someone who sees a public file without a role on it may not see its activity (403). Paginated like `GET /files`, with the same headers.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        querystring: listActivityQuerySchema,
        response: {
          200: {
            description: "One page of entries, newest first; an empty array past the last page.",
            headers: activityPageHeaders,
            type: "array",
            items: { $ref: `${ACTIVITY_ENTRY_SCHEMA_ID}#` },
          },
          ...errorResponses([400, 403, 404, ...AUTHENTICATED], {
            400: "validation_error: a bad `page` or `per_page`.",
            403: "forbidden: a public file you see without a role on it: only the people it is shared with may see its activity.",
          }),
        },
      },
    },
    async (request, reply) =>
      answerFileListPage(
        request,
        reply,
        { publicBase, prefix: app.prefix, list: "activity" },
        (query) => cellar.activity.list(query),
        toActivityEntryJson,
      ),
  );
}
