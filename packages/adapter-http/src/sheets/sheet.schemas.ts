import { MAX_WINDOW_CELLS } from "@cellar/core";

const cellType = { type: ["string", "null"], enum: ["string", "number", "boolean", "date", "error", null] } as const;

/** One sheet of a spreadsheet, as `GET /files/:id/sheets` lists it. */
export const sheetSchema = {
  $id: "Sheet",
  title: "Sheet",
  description: "One sheet of a spreadsheet: its place, name and extent, and what Cellar makes of its columns.",
  type: "object",
  additionalProperties: false,
  required: ["index", "name", "row_count", "column_count", "header_row", "column_types", "formula_like_cells"],
  properties: {
    index: { type: "integer", minimum: 0, description: "Position in the workbook, from 0." },
    name: { type: "string", description: "The sheet's name (a CSV's one sheet is `Sheet1`)." },
    row_count: {
      type: "integer",
      minimum: 0,
      description: "The last row holding a value, counted from 1 (formatting alone does not count).",
    },
    column_count: { type: "integer", minimum: 0, description: "The last column holding a value, counted from 1." },
    header_row: { type: "boolean", description: "Whether the first row looks like a header (a guess)." },
    column_types: {
      type: "array",
      description:
        "Per column (the first 1,000), the type most of its values have below any header, or null for an empty column. For a CSV, what the text looks like; its cells stay text.",
      items: cellType,
    },
    formula_like_cells: {
      type: "integer",
      minimum: 0,
      description:
        "Text cells a spreadsheet would run as a formula if typed in (starting with `=`, `+`, `-`, `@`, a tab or a CR, and not a number). Converted downloads neutralise them.",
    },
    csv: {
      type: "object",
      additionalProperties: false,
      description: "For a CSV: how Cellar read its bytes.",
      required: ["encoding", "delimiter", "bom"],
      properties: {
        encoding: { type: "string", enum: ["utf-8", "utf-16le", "utf-16be", "windows-1252"] },
        delimiter: { type: "string", enum: [",", ";", "\t", "|"] },
        bom: { type: "boolean", description: "Whether the file starts with a byte-order mark." },
      },
    },
  },
} as const;

const cellValue = { type: ["string", "number", "boolean", "null"] } as const;

export const cellWindowSchema = {
  $id: "CellWindow",
  title: "CellWindow",
  description:
    "A rectangle of cells, row by row. Every row has the same length; a cell without a value is null. Numbers are JSON numbers, dates and times ISO 8601 strings, a formula its stored result, an error its text; a CSV's cells are its text.",
  type: "object",
  additionalProperties: false,
  required: ["range", "values"],
  properties: {
    range: {
      type: "string",
      description: "The range answered, with its sheet: the one asked for, clipped to the sheet's extent.",
      examples: ["'Q1 Budget'!A1:D10"],
    },
    values: { type: "array", items: { type: "array", items: cellValue } },
    types: {
      type: "array",
      description: "With `types=true`: each cell's type, the same shape as `values`.",
      items: { type: "array", items: cellType },
    },
  },
} as const;

export const valuesQuerySchema = {
  type: "object",
  additionalProperties: false,
  required: ["range"],
  properties: {
    range: {
      type: "string",
      minLength: 1,
      maxLength: 300,
      description: `An A1 range: \`B2:D10\`, \`'Q1 Budget'!A1:Z100\`, \`Sheet2!A:C\` (whole columns), \`3:5\` (whole rows), \`C7\`, \`A2:C\` (to the last row). Without a sheet, the first sheet; a sheet name with spaces or punctuation is quoted, \`''\` for a quote inside. At most ${MAX_WINDOW_CELLS} cells once clipped to the sheet.`,
    },
    types: { type: "string", enum: ["true", "false"], description: "`true` adds each cell's type (`types`)." },
  },
} as const;

export interface ValuesQuery {
  readonly range: string;
  readonly types?: "true" | "false";
}

/** The download's query: what to convert to, and which sheet. Other parameters are ignored, as before. */
export const conversionQuerySchema = {
  type: "object",
  properties: {
    format: {
      type: "string",
      enum: ["csv", "xlsx"],
      description: "Convert instead of sending the stored bytes: `csv` for a workbook, `xlsx` for a CSV.",
    },
    sheet: {
      type: "string",
      minLength: 1,
      maxLength: 300,
      description: "With `format=csv`: the sheet to convert, by name (default the first).",
    },
  },
} as const;
