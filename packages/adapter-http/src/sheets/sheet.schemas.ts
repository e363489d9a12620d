import { CELL_RENDERS, type CellRender, FIND_LIMITS, MAX_WINDOW_CELLS } from "@cellar/core";
import { pageHeaders, pageQueryProperties } from "../files/file.schemas.js";

const cellType = { type: ["string", "null"], enum: ["string", "number", "boolean", "date", "error", null] } as const;

/** One sheet of a spreadsheet, as `GET /files/:id/sheets` lists it. */
export const sheetSchema = {
  $id: "Sheet",
  title: "Sheet",
  description: "One sheet of a spreadsheet: its place, name and extent, and what Cellar makes of its columns.",
  type: "object",
  additionalProperties: false,
  required: [
    "index",
    "name",
    "row_count",
    "column_count",
    "header_row",
    "column_types",
    "formula_like_cells",
    "formula_cells",
    "uncomputed_formulas",
    "unsupported_functions",
    "computed",
    "column_widths",
    "default_column_width",
    "merged",
    "frozen",
  ],
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
    formula_cells: {
      type: "integer",
      minimum: 0,
      description: "Formula cells on the sheet (a CSV has none).",
    },
    uncomputed_formulas: {
      type: "integer",
      minimum: 0,
      description:
        "Formulas Cellar cannot compute (a function its engine lacks, another workbook's reference, an array formula over several cells, a circular reference): they keep the results stored in the workbook, and are never shown as a silently wrong value.",
    },
    unsupported_functions: {
      type: "array",
      description: "The functions of those formulas that Cellar's engine lacks, sorted (at most 100).",
      items: { type: "string" },
      examples: [["XLOOKUP"]],
    },
    computed: {
      type: "boolean",
      description:
        "False when the workbook is past what Cellar computes (200,000 formula cells, 4,000,000 cells read, 10 s): its formulas keep their stored results.",
    },
    column_widths: {
      type: "array",
      description:
        "One per column of the extent (`column_count` of them): its width in characters as the workbook stores it (`<col width>`, which counts the cell's padding), `0` for a hidden column, or null for the default width. A column has a width of its own when the workbook marks it `customWidth`. A CSV's are all null. At most 16,384 runs of neighbouring columns of one width are kept per workbook; columns past them are null.",
      items: { type: ["number", "null"], minimum: 0 },
      examples: [[23.35, 15.57, 0, null]],
    },
    default_column_width: {
      type: ["number", "null"],
      minimum: 0,
      description:
        "The width of the columns that are null in `column_widths`, in characters, when the workbook says (`defaultColWidth`); else null, and the program's own default applies (Excel's, shown as 8.43, is 9.14 in these units).",
    },
    merged: {
      type: "array",
      description:
        "Merged areas in A1 notation, in the workbook's order; the value of each is in its top-left cell. `[]` for a CSV. At most 50,000 per workbook, in sheet order.",
      items: { type: "string" },
      examples: [["A1:C1"]],
    },
    frozen: {
      type: "object",
      additionalProperties: false,
      description:
        "The rows at the top and the columns at the left kept in view while the rest scrolls (frozen panes); `{ rows: 0, columns: 0 }` when none, and for a CSV.",
      required: ["rows", "columns"],
      properties: {
        rows: { type: "integer", minimum: 0 },
        columns: { type: "integer", minimum: 0 },
      },
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
    "A rectangle of cells, row by row. Every row has the same length; a cell without a value is null. Numbers are JSON numbers, dates and times ISO 8601 strings, a formula its stored result, an error its text; a CSV's cells are its text. With `render=formatted`, every cell with a value is the text a spreadsheet program displays for it; with `render=formula`, a formula cell is its formula, starting with `=`.",
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
    render: {
      type: "string",
      enum: CELL_RENDERS,
      default: "raw",
      description:
        "`raw` (the default): the stored values. `formatted`: each cell of a workbook as the text a spreadsheet program displays by its number format, as Excel does in English (United States): thousands separators, decimals, percent, currency and literal text, a format's negative and zero sections, dates and times by their codes (`d-mmm-yy` → `31-Jan-26`, `h:mm AM/PM` → `1:30 PM`) in the workbook's date system, General as Excel shows it (`1.23457E+15`), a boolean `TRUE` or `FALSE`, an error its text; a CSV's cells as they are; a cell without a value stays null. `types` still gives the stored values' types. `formula`: a workbook's formula cell as its formula, starting with `=`, as a spreadsheet program's formula bar shows it (a shared formula with its own references), every other cell as `raw` gives it; `types` gives the formula's result's type.",
    },
  },
} as const;

/** The `$id` of a cell found by `GET /files/:id/find`. */
export const FOUND_CELL_SCHEMA_ID = "FoundCell";

export const foundCellSchema = {
  $id: FOUND_CELL_SCHEMA_ID,
  title: FOUND_CELL_SCHEMA_ID,
  description: "A cell whose text as shown holds the text looked for.",
  type: "object",
  additionalProperties: false,
  required: ["range", "value", "text"],
  properties: {
    range: { type: "string", description: "The cell, with its sheet.", examples: ["Data!B3", "'Q1 Budget'!C7"] },
    value: { ...cellValue, description: "Its value as `GET /values` gives it (`render=raw`)." },
    text: {
      type: "string",
      description: "Its text as shown (`render=formatted`): what was searched.",
      examples: ["$1,200.00"],
    },
  },
} as const;

export const findQuerySchema = {
  type: "object",
  additionalProperties: false,
  required: ["q"],
  properties: {
    q: {
      type: "string",
      description: `The text to find, 1 to ${FIND_LIMITS.maxQueryCharacters} characters: a cell matches when its text as shown holds it, case aside (folded as file names are).`,
      examples: ["rent"],
    },
    sheet: { type: "string", description: "Only this sheet (by name); every sheet when absent." },
    ...pageQueryProperties("Cells"),
  },
} as const;

export interface FindQuery {
  readonly q: string;
  readonly sheet?: string;
  readonly page?: string;
  readonly per_page?: string;
}

export const foundCellsPageHeaders = pageHeaders("cells found", "Each keeps the search's `q` and `sheet`.");

export interface ValuesQuery {
  readonly range: string;
  readonly types?: "true" | "false";
  readonly render?: CellRender;
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
