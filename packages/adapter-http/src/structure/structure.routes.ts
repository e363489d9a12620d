import { type Cellar, MAX_STRUCTURE_OPERATIONS } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { contentPrecondition, entityTag } from "../files/entity-tag.js";
import { toFileJson } from "../files/file.json.js";
import { type FileIdParams, fileEtagHeader, fileIdParamsSchema, fileRef } from "../files/file.schemas.js";
import { callerOf } from "../http/request-context.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";

const operationSchema = {
  type: "object",
  additionalProperties: true,
  description:
    'One change, sheets by name: `{ "insert": "rows", "sheet", "before": 5, "count": 2 }`, `{ "insert": "columns", "sheet", "before": "C", "count": 1 }`, `{ "delete": "rows", "sheet", "from": 5, "count": 2 }`, `{ "delete": "columns", "sheet", "from": "C", "count": 1 }`; for a workbook also `{ "add_sheet": "name", "index"? }`, `{ "rename_sheet": "name", "to": "new name" }`, `{ "move_sheet": "name", "to": 0 }`, `{ "delete_sheet": "name" }`.',
  examples: [{ insert: "rows", sheet: "Sheet1", before: 5, count: 2 }],
} as const;

export interface ChangeStructureBody {
  readonly operations: unknown[];
}

/** Changing a file's structure: `POST /files/:id/structure` (decisions §9). */
export function registerStructureRoutes(app: FastifyInstance, { cellar }: { readonly cellar: Cellar }): void {
  app.post<{ Params: FileIdParams; Body: ChangeStructureBody }>(
    "/files/:id/structure",
    {
      config: { cellarBody: "json" },
      schema: {
        operationId: "changeStructure",
        summary: "Insert or delete rows and columns; add, rename, move or delete sheets",
        description:
          "Editors and the owner. The operations apply in order, as one new version, all or nothing: one refused is a 400 naming it (`operations[2]`), and nothing is written. Everything that refers to moved cells follows them, as in Excel. A CSV's rows and columns change with every other field's bytes kept; a workbook's structure cannot be changed yet (422).",
        tags: ["Spreadsheets"],
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        headers: {
          type: "object",
          properties: {
            "if-match": {
              type: "string",
              description: 'Required: the file\'s ETag (`"<sha256>"`) of the content the change is based on, or `*`.',
            },
          },
        },
        body: {
          type: "object",
          required: ["operations"],
          properties: {
            operations: {
              type: "array",
              minItems: 1,
              maxItems: MAX_STRUCTURE_OPERATIONS,
              items: operationSchema,
              description: `The changes, applied in order (at most ${MAX_STRUCTURE_OPERATIONS}).`,
            },
          },
        },
        response: {
          200: {
            description: "The file at its new version.",
            headers: fileEtagHeader,
            type: "object",
            additionalProperties: false,
            required: ["file"],
            properties: { file: fileRef },
          },
          ...errorResponses([400, 403, 404, 409, 412, 413, 415, 422, 428, ...AUTHENTICATED], {
            400: "validation_error: an operation refused, named (`operations[2]`): an unknown sheet, a bad position or count, a sheet's name Excel would refuse or one taken, a change that would push cells past the sheet's last row or column, the last sheet deleted, or sheets changed in a CSV.",
            412: "precondition_failed: the content changed since the `If-Match` given.",
            422: "unreadable_spreadsheet: a .sheet file, one whose cells Cellar cannot read, or a workbook (whose structure cannot be changed yet).",
            428: "precondition_required: no `If-Match`.",
          }),
        },
      },
    },
    async (request, reply) => {
      const changed = await cellar.edits.changeStructure({
        callerId: callerOf(request).userId,
        fileId: request.params.id,
        precondition: contentPrecondition(request.headers["if-match"]),
        body: request.body,
      });
      reply.header("etag", entityTag(changed.file.sha256));
      return { file: toFileJson(changed.file) };
    },
  );
}
