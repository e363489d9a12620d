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
  /** For a workbook's sheet: how its author laid it out. A CSV has none. */
  readonly layout?: SheetLayout;
  /** Formula cells on the sheet (a CSV has none; an index made before formulas were read says nothing). */
  readonly formulaCells?: number;
  /**
   * Formulas Cellar cannot compute (a function its engine lacks, another workbook's
   * reference, a cycle): they keep their stored results (decisions §8).
   */
  readonly uncomputedFormulas?: number;
  /** The functions of those formulas that Cellar's engine lacks, upper case, sorted (at most 100). */
  readonly unsupportedFunctions?: readonly string[];
  /** False when the workbook is past what Cellar computes (`COMPUTE_LIMITS`): its formulas keep their stored results. */
  readonly computed?: boolean;
}

/**
 * Columns `first` to `last` (from 1, both included) of one width, in characters as the
 * workbook stores it; 0 for hidden columns.
 */
export type ColumnWidthRun = readonly [first: number, last: number, width: number];

/** Rows and columns kept in view while the rest of a sheet scrolls. */
export interface FrozenPanes {
  readonly rows: number;
  readonly columns: number;
}

/** How a workbook's sheet looks to its author, beyond its cells' values. */
export interface SheetLayout {
  /**
   * The columns of the sheet's extent whose width is its own, in order and apart; every
   * other column has the sheet's default width. Kept as runs so that a wide sheet's index
   * stays small.
   */
  readonly columnWidths: readonly ColumnWidthRun[];
  /** The width of the other columns, in characters, when the workbook says (`defaultColWidth`). */
  readonly defaultColumnWidth: number | null;
  /** Merged areas in A1 notation (`A1:C1`), in the order the workbook lists them. */
  readonly merged: readonly string[];
  readonly frozen: FrozenPanes;
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
  /**
   * The content it describes (the blob it was made from). Set by Cellar when it saves the
   * index, not by the reader: an index of other content (before a change of content) is
   * made again, never misread.
   */
  readonly blobKey?: string;
  readonly sheets: readonly SheetSummary[];
  /** Per sheet, in the same order. */
  readonly checkpoints: readonly RowCheckpoints[];
  /** For a CSV: how its bytes were read. */
  readonly csv?: { readonly encoding: CsvEncoding; readonly delimiter: CsvDelimiter; readonly bom: boolean };
  /** For a workbook: the size of its rows blob, in bytes. */
  readonly rowsBytes?: number;
  /** For a workbook: what its cells' number formats need beyond the rows blob. */
  readonly xlsx?: {
    /** Dates count from 1904-01-01 instead of 1900-01-01. */
    readonly date1904: boolean;
    /** The format codes its cells use (each once, `General` not listed): the rows blob refers to them by position. */
    readonly numberFormats: readonly string[];
    /**
     * Where the rows blob keeps the workbook's formulas and defined names (`KeptFormulas`),
     * after every sheet's rows: bytes `start` to `end` (excluded). Absent when the reader
     * kept none (no formula engine).
     */
    readonly formulas?: { readonly start: number; readonly end: number };
  };
}

/** A file whose cells Cellar cannot read (a damaged or hostile workbook): the reason, for the 422. */
export interface UnreadableSheetIndex {
  readonly readable: false;
  readonly version: number;
  /** As `ReadableSheetIndex.blobKey`. */
  readonly blobKey?: string;
  readonly reason: string;
}

export type SheetIndex = ReadableSheetIndex | UnreadableSheetIndex;
