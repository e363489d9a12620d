import type { Cellar, FileRecord } from "@cellar/core";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { entityTag, ifNoneMatchMatches } from "../files/entity-tag.js";
import { type FileIdParams, fileIdParamsSchema } from "../files/file.schemas.js";
import { pageRequestOf, setPageHeaders } from "../files/pagination-links.js";
import { callerOf } from "../http/request-context.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";
import {
  type FindQuery,
  FOUND_CELL_SCHEMA_ID,
  findQuerySchema,
  foundCellsPageHeaders,
  type ValuesQuery,
  valuesQuerySchema,
} from "./sheet.schemas.js";

const TAGS = ["Spreadsheets"];

/** Revalidated on every use: the answer changes only with the file's bytes and Cellar's reader. */
const CACHE_CONTROL = "private, no-cache";

const revalidationHeaders = {
  ETag: { type: "string", description: "Changes with the file's bytes and with Cellar's reader." },
  "Cache-Control": { type: "string", enum: [CACHE_CONTROL] },
} as const;

const conditionalHeadersSchema = {
  type: "object",
  properties: {
    "If-None-Match": { type: "string", description: "The ETag the client holds: when it matches, 304 without a body." },
  },
} as const;

const notModified = {
  description: "Not modified: the client's copy is current.",
  headers: revalidationHeaders,
  type: "null",
} as const;

const ACCESS_ERRORS = {
  404: "not_found: no such file, or one the caller may not see (someone else's trashed file, or a private one not shared with you).",
  409: "file_in_trash: your file is in the trash; restore it first.",
} as const;

export function registerSheetRoutes(
  app: FastifyInstance,
  { cellar, publicBase }: { readonly cellar: Cellar; readonly publicBase: string },
): void {
  /**
   * Authorises the request and answers 304 when the client's copy is current: returns
   * true then. Otherwise sets the revalidation headers for the 200 to come.
   */
  async function revalidate(request: FastifyRequest<{ Params: FileIdParams }>, reply: FastifyReply): Promise<boolean> {
    const file: FileRecord = await cellar.sheets.authorize({
      callerId: callerOf(request).userId,
      fileId: request.params.id,
    });
    const etag = entityTag(`${file.sha256}.sheets.${cellar.sheets.readerVersion ?? 0}`);
    reply.header("cache-control", CACHE_CONTROL);
    if (ifNoneMatchMatches(request.headers["if-none-match"], etag)) {
      reply.code(304).header("etag", etag);
      return true;
    }
    // Set once the answer is ready: an error must not carry it.
    reply.header("etag", etag);
    return false;
  }

  app.get<{ Params: FileIdParams }>(
    "/files/:id/sheets",
    {
      schema: {
        operationId: "listSheets",
        summary: "List a spreadsheet's sheets",
        description:
          "The sheets of a CSV or XLSX file, in workbook order, with their extents and, for a workbook, how its author laid them out (column widths, merged areas, frozen panes). Same access as the download: your own active file, an active file shared with you, or someone else's public, active file. Cellar reads each file once, after upload or on first use; a request that arrives while it reads waits for it.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        headers: conditionalHeadersSchema,
        response: {
          200: { description: "The sheets.", headers: revalidationHeaders, type: "array", items: { $ref: "Sheet#" } },
          304: notModified,
          ...errorResponses([404, 409, 422, ...AUTHENTICATED], ACCESS_ERRORS),
        },
      },
    },
    async (request, reply) => {
      if (await revalidate(request, reply)) return undefined;
      const { sheets } = await cellar.sheets.sheets({ callerId: callerOf(request).userId, fileId: request.params.id });
      return sheets.map((sheet) => ({
        index: sheet.index,
        name: sheet.name,
        row_count: sheet.rowCount,
        column_count: sheet.columnCount,
        header_row: sheet.headerRow,
        column_types: sheet.columnTypes,
        formula_like_cells: sheet.formulaLikeCells,
        formula_cells: sheet.formulaCells ?? 0,
        uncomputed_formulas: sheet.uncomputedFormulas ?? 0,
        unsupported_functions: sheet.unsupportedFunctions ?? [],
        computed: sheet.computed ?? true,
        column_widths: sheet.columnWidths,
        default_column_width: sheet.defaultColumnWidth,
        merged: sheet.merged,
        frozen: sheet.frozen,
        ...(sheet.csv === undefined ? {} : { csv: sheet.csv }),
      }));
    },
  );

  app.get<{ Params: FileIdParams; Querystring: FindQuery }>(
    "/files/:id/find",
    {
      schema: {
        operationId: "findCells",
        summary: "Find text in a file's cells",
        description:
          "The cells whose text as shown (`render=formatted`) holds `q`, case aside, on every sheet or the one named, in sheet, row, then column order. Paginated like `GET /files`, with the same headers. A file is read through for each search: a million-row CSV answers in well under a second.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        querystring: findQuerySchema,
        response: {
          200: {
            description: "One page of the cells found; an empty array past the last page.",
            headers: foundCellsPageHeaders,
            type: "array",
            items: { $ref: `${FOUND_CELL_SCHEMA_ID}#` },
          },
          ...errorResponses([400, 404, 409, 422, ...AUTHENTICATED], {
            ...ACCESS_ERRORS,
            400: "validation_error: `q` missing, empty or too long, an unknown sheet, or a bad `page` or `per_page`.",
          }),
        },
      },
    },
    async (request, reply) => {
      const { q, sheet } = request.query;
      const { page } = await cellar.sheets.find({
        callerId: callerOf(request).userId,
        fileId: request.params.id,
        q,
        ...(sheet === undefined ? {} : { sheet }),
        ...pageRequestOf(request.query),
      });
      const listing = new URL(`${publicBase}${app.prefix}/files/${encodeURIComponent(request.params.id)}/find`);
      listing.searchParams.set("q", q);
      if (sheet !== undefined) listing.searchParams.set("sheet", sheet);
      setPageHeaders(reply, page, listing);
      return page.items;
    },
  );

  app.get<{ Params: FileIdParams; Querystring: ValuesQuery }>(
    "/files/:id/values",
    {
      schema: {
        operationId: "getValues",
        summary: "Read a window of cells",
        description:
          "The cells of an A1 range of a CSV or XLSX file, clipped to the sheet's extent: a rectangle, `null` where a cell has no value, `[]` when the range lies wholly outside the sheet. Any window is as quick as the first rows: Cellar reads from the nearest checkpoint it noted when it read the file through.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        querystring: valuesQuerySchema,
        headers: conditionalHeadersSchema,
        response: {
          200: { description: "The cells.", headers: revalidationHeaders, $ref: "CellWindow#" },
          304: notModified,
          ...errorResponses([400, 404, 409, 422, ...AUTHENTICATED], {
            ...ACCESS_ERRORS,
            400: "validation_error: `range` missing or malformed, an unknown sheet, more cells than one answer holds, or `render` other than `raw`, `formatted` or `formula`.",
          }),
        },
      },
    },
    async (request, reply) => {
      if (await revalidate(request, reply)) return undefined;
      const { window } = await cellar.sheets.values({
        callerId: callerOf(request).userId,
        fileId: request.params.id,
        range: request.query.range,
        types: request.query.types === "true",
        ...(request.query.render === undefined ? {} : { render: request.query.render }),
      });
      return window;
    },
  );
}
