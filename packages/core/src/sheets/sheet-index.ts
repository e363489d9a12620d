/**
 * What Cellar knows of a spreadsheet's contents once it has read it through: its sheets,
 * their extents, and where each run of rows starts, so that a window of cells is read
 * without going through the file from the top. Made once per file by a
 * `SpreadsheetReader`, kept beside the file's row (`FileRepository.saveSheetIndex`) and,
 * for a workbook, beside its bytes (`sheetRowsBlobKey`).
 */

/** A cell's value as JSON carries it; dates and times are ISO 8601 strings. */
export type CellValue = string | number | boolean | null;

/** What a cell holds, for `types=true` and a sheet's column types. */
export type CellType = "string" | "number" | "boolean" | "date" | "error";

/** The text encodings Cellar reads a CSV in. */
export type CsvEncoding = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";

/** The delimiters Cellar detects in a CSV. */
export type CsvDelimiter = "," | ";" | "\t" | "|";

/** One sheet as the sheets route describes it. */
export interface SheetSummary {
  /** Position in the workbook, from 0. */
  readonly index: number;
  readonly name: string;
  /** The last row holding a value, counted from 1 (0: no value at all). */
  readonly rowCount: number;
  /** The last column holding a value, counted from 1. */
  readonly columnCount: number;
  /**
   * Whether the first row looks like a header: every cell of it text, and at least one
   * column below it holding something else, or all of it different from what follows.
   */
  readonly headerRow: boolean;
  /** Per column (up to the first 1,000), the type most of its values below any header have, or null for an empty one. */
  readonly columnTypes: readonly (CellType | null)[];
  /** Text cells that a spreadsheet would run as a formula if they were typed in (`=`, `+`, `-`, `@`, tab, CR first). */
  readonly formulaLikeCells: number;
}

/** Where a sheet's rows are found again: every `every`-th row's position. */
export interface RowCheckpoints {
  /** Rows between two checkpoints. */
  readonly every: number;
  /**
   * Byte offsets where rows 1, 1 + every, 1 + 2 × every, … start: in the stored CSV, or
   * in the workbook's rows blob.
   */
  readonly offsets: readonly number[];
  /** For a workbook's sheet: where its rows end in the rows blob. */
  readonly end?: number;
}

/** A file Cellar has read through and can answer windows of. */
export interface ReadableSheetIndex {
  readonly readable: true;
  /** The reader's format version: an index of another version is made again. */
  readonly version: number;
  readonly sheets: readonly SheetSummary[];
  /** Per sheet, in the same order. */
  readonly checkpoints: readonly RowCheckpoints[];
  /** For a CSV: how its bytes were read. */
  readonly csv?: { readonly encoding: CsvEncoding; readonly delimiter: CsvDelimiter; readonly bom: boolean };
  /** For a workbook: the size of its rows blob, in bytes. */
  readonly rowsBytes?: number;
}

/** A file whose cells Cellar cannot read (a damaged or hostile workbook): the reason, for the 422. */
export interface UnreadableSheetIndex {
  readonly readable: false;
  readonly version: number;
  readonly reason: string;
}

export type SheetIndex = ReadableSheetIndex | UnreadableSheetIndex;
