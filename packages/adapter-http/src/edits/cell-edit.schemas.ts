import { CELL_INPUTS, type CellInput, MAX_EDIT_CELLS } from "@cellar/core";
import { fileRef } from "../files/file.schemas.js";

/** A value as an edit writes it: text stays text (never a formula), null empties the cell. */
const cellInput = {
  type: ["string", "number", "boolean", "null"],
  description:
    "With `input: raw` (the default), a string is written as text, whatever it starts with (never a formula); with `input: user`, as a person types it (see `input`). A number as a number; a boolean as a boolean; null empties the cell.",
} as const;

const inputProperty = {
  type: "string",
  enum: CELL_INPUTS,
  default: "raw",
  description:
    "How strings are read. `raw` (the default): each is text. `user`: as a person types into a cell of an en-US spreadsheet program: `=…` a formula, written with its result (a formula that does not parse → 400 naming the cell; a CSV holds none → 400); a number (`3000`, `-1.5`, `1,234.5`, `1e3`), a percentage (`12.5%` → 0.125), an amount (`$1,200` → 1200); `TRUE`/`FALSE` in any case; a date or a time (`2026-01-31`, `1/31/2026`, `13:45`, `1:45 PM`) as its serial number, with a date or time format when the cell has none; a leading `'` keeps the rest as text. In a CSV, values are written as typed.",
} as const;

const grid = (description: string) =>
  ({
    type: "array",
    minItems: 1,
    description,
    items: { type: "array", minItems: 1, items: cellInput },
  }) as const;

const rangeProperties = {
  range: {
    type: "string",
    minLength: 1,
    description:
      "Where the values go, in A1 notation with an optional sheet (`'Q1 Budget'!B2`): one cell, the top-left corner of the values, or a rectangle of exactly their shape.",
    examples: ["B2", "Sheet1!B2:C3"],
  },
  values: grid(`The cells, row by row, every row as long as the first; at most ${MAX_EDIT_CELLS} in a request.`),
  expect: grid(
    "What the edit assumes the cells hold now, as `GET /values` gives them (null for empty), in the shape of `values`: the edit applies while every one still does, whatever else changed; else 412 naming each cell that differs. Instead of `If-Match`.",
  ),
} as const;

export const editValuesBodySchema = {
  type: "object",
  additionalProperties: false,
  description: "One range (`range`, `values`, `expect`), or several in `data`, written as one version.",
  properties: {
    ...rangeProperties,
    input: inputProperty,
    data: {
      type: "array",
      minItems: 1,
      description: "Several ranges written as one version, in order (a later one over an earlier where they meet).",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["range", "values"],
        properties: rangeProperties,
      },
    },
  },
} as const;

export const editedCellsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["file", "updated_range", "updated_cells"],
  properties: {
    file: fileRef,
    updated_range: {
      description: "The range written, with its sheet; with `data`, each range written, in order.",
      anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }],
      examples: ["Sheet1!B2:C3"],
    },
    updated_cells: { type: "integer", minimum: 1, description: "How many cells were written." },
  },
} as const;

export const appendRowsBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["values"],
  properties: {
    sheet: { type: "string", minLength: 1, description: "The sheet's name; the first sheet by default." },
    input: inputProperty,
    values: grid(`The rows to add, every row as long as the first; at most ${MAX_EDIT_CELLS} cells.`),
  },
} as const;

export const appendedRowsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["file", "updated_range"],
  properties: {
    file: fileRef,
    updated_range: {
      type: "string",
      description: "Where the rows went, with its sheet: just after the last row with a value.",
      examples: ["Sheet1!A101:C102"],
    },
  },
} as const;

type Grid = (string | number | boolean | null)[][];

export interface EditValuesBody {
  readonly range?: string;
  readonly values?: Grid;
  readonly expect?: Grid;
  readonly data?: { readonly range: string; readonly values: Grid; readonly expect?: Grid }[];
  readonly input?: CellInput;
}

export interface AppendRowsBody {
  readonly input?: CellInput;
  readonly sheet?: string;
  readonly values: Grid;
}
