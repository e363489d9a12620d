import type { Cellar } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { contentPrecondition, entityTag } from "../files/entity-tag.js";
import { toFileJson } from "../files/file.json.js";
import { type FileIdParams, fileEtagHeader, fileIdParamsSchema } from "../files/file.schemas.js";
import { JSON_BODY_LIMIT_BYTES } from "../http/json-body-parser.js";
import { callerOf } from "../http/request-context.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";
import {
  type AppendRowsBody,
  appendedRowsSchema,
  appendRowsBodySchema,
  type EditValuesBody,
  editedCellsSchema,
  editValuesBodySchema,
} from "./cell-edit.schemas.js";

const TAGS = ["Spreadsheets"];

/** A cell edit's body may hold 50,000 cells of text: more than other JSON bodies. */
const EDIT_BODY_LIMIT_BYTES = 16 * JSON_BODY_LIMIT_BYTES;

const ifMatchHeaders = (description: string) =>
  ({ type: "object", properties: { "if-match": { type: "string", description } } }) as const;

/** Changing a spreadsheet's cells: `PATCH /files/:id/values`, `POST /files/:id/rows`. */
export function registerCellEditRoutes(app: FastifyInstance, { cellar }: { readonly cellar: Cellar }): void {
  app.patch<{ Params: FileIdParams; Body: EditValuesBody }>(
    "/files/:id/values",
    {
      bodyLimit: EDIT_BODY_LIMIT_BYTES,
      config: { cellarBody: "json" },
      schema: {
        operationId: "editValues",
        summary: "Write cells",
        description:
          "Editors and the owner. Writes one range, or several (`data`), as one new version of a CSV or workbook; every other cell stays as it was and the sheet grows as needed. Based either on the whole content (`If-Match`, the file's ETag) or on the cells themselves (an `expect` for every range): people editing different cells never conflict.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        headers: ifMatchHeaders(
          'The file\'s ETag (`"<sha256>"`) of the content the edit is based on, or `*`. Required unless every range carries `expect`.',
        ),
        body: editValuesBodySchema,
        response: {
          200: {
            description: "The cells written, and the file at its new version.",
            headers: fileEtagHeader,
            ...editedCellsSchema,
          },
          ...errorResponses([400, 403, 404, 409, 412, 413, 415, 422, 428, ...AUTHENTICATED], {
            400: "validation_error: a range that is not one cell or a rectangle of the values' shape, rows of unequal length, a value that is not a string, number, boolean or null, more than 50,000 cells, an unknown sheet, text a CSV's encoding cannot hold, a formula that does not parse or makes a cell depend on itself (naming the cells), a formula for a CSV, or a bad `If-Match`.",
            412: "precondition_failed: the content changed since the `If-Match` given, or a cell no longer holds what `expect` says; `details` names each such cell and its value now.",
            422: "unreadable_spreadsheet: a .sheet file, or one whose cells Cellar cannot read (its content can still be replaced whole).",
          }),
        },
      },
    },
    async (request, reply) => {
      const edited = await cellar.edits.editValues({
        callerId: callerOf(request).userId,
        fileId: request.params.id,
        precondition: contentPrecondition(request.headers["if-match"]),
        body: request.body,
      });
      reply.header("etag", entityTag(edited.file.sha256));
      return {
        file: toFileJson(edited.file),
        updated_range: request.body.data === undefined ? edited.updatedRanges[0] : edited.updatedRanges,
        updated_cells: edited.updatedCells,
      };
    },
  );

  app.post<{ Params: FileIdParams; Body: AppendRowsBody }>(
    "/files/:id/rows",
    {
      bodyLimit: EDIT_BODY_LIMIT_BYTES,
      config: { cellarBody: "json" },
      schema: {
        operationId: "appendRows",
        summary: "Append rows",
        description:
          "Editors and the owner. Adds the rows just after the last row with a value of a sheet (the first by default), as one new version. Needs no `If-Match`: appends never conflict, and concurrent ones all land.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        headers: ifMatchHeaders("Optional: the file's ETag of the content the append is based on, or `*`."),
        body: appendRowsBodySchema,
        response: {
          200: {
            description: "Where the rows went, and the file at its new version.",
            headers: fileEtagHeader,
            ...appendedRowsSchema,
          },
          ...errorResponses([400, 403, 404, 409, 412, 413, 415, 422, ...AUTHENTICATED], {
            400: "validation_error: rows of unequal length, a value that is not a string, number, boolean or null, more than 50,000 cells, an unknown sheet, text a CSV's encoding cannot hold, a formula that does not parse or makes a cell depend on itself (naming the cells), or a formula for a CSV.",
            412: "precondition_failed: an `If-Match` was given, and the content changed since.",
            422: "unreadable_spreadsheet: a .sheet file, or one whose cells Cellar cannot read.",
          }),
        },
      },
    },
    async (request, reply) => {
      const appended = await cellar.edits.appendRows({
        callerId: callerOf(request).userId,
        fileId: request.params.id,
        precondition: contentPrecondition(request.headers["if-match"]),
        ...(request.body.sheet === undefined ? {} : { sheet: request.body.sheet }),
        ...(request.body.input === undefined ? {} : { input: request.body.input }),
        values: request.body.values,
      });
      reply.header("etag", entityTag(appended.file.sha256));
      return { file: toFileJson(appended.file), updated_range: appended.updatedRange };
    },
  );
}
